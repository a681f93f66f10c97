import { isRecord, mapRoutes, type Target, type VersionChange } from '../change';

/** The payloads that dispatch work to a technician (document 001 section 6.2's `dispatch.updated`). */
const DISPATCH_EVENTS: readonly string[] = ['dispatch.updated'];

/**
 * 2026-01-20 (document 000 section 9): on dispatch payloads the technician is `assigneeId` (it was
 * `technicianId` before), and `invoice.generated` carries `partsConsumed` (absent before).
 */
export const change20260120: VersionChange = {
  version: '2026-01-20',
  description: '`technicianId` renamed `assigneeId` on dispatch payloads and route responses; `partsConsumed` added on `invoice.generated`.',
  transform(target: Target, body: unknown): unknown {
    if (target.kind === 'response') {
      // D23: a route names its foreman as the dispatch payloads do.
      return mapRoutes(target, body, (route) => {
        if (!('assigneeId' in route)) return route;
        const { assigneeId, ...rest } = route;
        return { ...rest, technicianId: assigneeId };
      });
    }
    if (!isRecord(body)) return body;
    if (DISPATCH_EVENTS.includes(target.event) && 'assigneeId' in body) {
      const { assigneeId, ...rest } = body;
      const renamed: Record<string, unknown> = { ...rest, technicianId: assigneeId };
      if (isRecord(body.previousAttributes) && 'assigneeId' in body.previousAttributes) {
        const { assigneeId: previous, ...others } = body.previousAttributes;
        renamed.previousAttributes = { ...others, technicianId: previous };
      }
      return renamed;
    }
    if (target.event === 'invoice.generated' && 'partsConsumed' in body) {
      const { partsConsumed: _added, ...before } = body;
      return before;
    }
    return body;
  },
};
