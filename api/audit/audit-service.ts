import type { EntityManager } from '@mikro-orm/postgresql';
import { AUDIT_EVENT_KEYSET, auditEventPage, type AuditEventRow } from '../../db/audit/audit-events';
import { pageOf } from '../../db/cursor';
import { inTenant } from '../../db/tenant-scope';
import { iso } from '../../domain/timestamps';
import { cursorPosition } from '../http/pagination';
import type { Caller } from '../http/request-context';
import type { AuditEvent, AuditEventQuery } from './schemas';

const toAuditEvent = (row: AuditEventRow): AuditEvent => ({
  id: row.id,
  occurred_at: iso(row.occurred_at),
  actor: { type: row.actor_type, id: row.actor_id, email: row.actor_email },
  action: row.action as AuditEvent['action'],
  entity_type: row.entity_type as AuditEvent['entity_type'],
  entity_id: row.entity_id,
  changes: row.changes,
  request_id: row.request_id,
});

/** D22: the tenant's audit log, newest first; row-level security keeps it the caller's tenant's. */
export class AuditService {
  constructor(private readonly em: EntityManager) {}

  async list(caller: Caller, query: AuditEventQuery): Promise<{ data: AuditEvent[]; next: string | null }> {
    const after = query.cursor ? cursorPosition(AUDIT_EVENT_KEYSET, query.cursor) : undefined;
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const rows = await auditEventPage(
        tx,
        { entityType: query.entity_type, entityId: query.entity_id, actorId: query.actor_id, action: query.action, since: query.since },
        after,
        query.limit,
      );
      const { rows: page, next } = pageOf(rows, query.limit, AUDIT_EVENT_KEYSET);
      return { data: page.map(toAuditEvent), next };
    });
  }
}
