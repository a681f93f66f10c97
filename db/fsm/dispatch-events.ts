import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventEnvelope } from '../../domain/events/catalogue';
import { recordEvent } from '../events/outbox';
import { dispatchChange, dispatchStops, emptyDispatchState, type DispatchState } from '../../domain/dispatch/dispatch-update';
import type { StoredRoute } from './routes';

const stateOf = (route: StoredRoute): DispatchState => ({
  assigneeId: route.assignee_id,
  totalDriveMinutes: route.total_drive_minutes,
  overtimeMinutes: route.overtime_minutes,
  stops: dispatchStops(route.stops),
});

/**
 * D23: records one `dispatch.updated` per route of the day whose shown attributes differ between
 * `before` and `after` (read in the same transaction around the change), in the outbox of that
 * transaction, with the route's revision and the prior values of what changed. A route that did
 * not exist before is compared with an empty day of the same foreman. Answers the envelopes, to
 * dispatch after the commit (the outbox relay starts whatever is not).
 */
export async function recordDispatchUpdates(tx: EntityManager, date: string, before: readonly StoredRoute[], after: readonly StoredRoute[]): Promise<EventEnvelope[]> {
  const [org] = await tx.execute<{ id: string }[]>('select app_current_organization() as id');
  const recorded: EventEnvelope[] = [];
  for (const route of after) {
    const previous = before.find((r) => r.crew_id === route.crew_id);
    const now = stateOf(route);
    const change = dispatchChange(previous ? stateOf(previous) : emptyDispatchState(route.assignee_id), now);
    if (!change) continue;
    const envelope = await recordEvent(tx, org!.id, 'dispatch.updated', {
      id: route.id,
      date,
      ...now,
      changeReason: change.changeReason,
      revision: route.revision,
      previousAttributes: change.previousAttributes,
    });
    recorded.push(envelope);
  }
  return recorded;
}
