import type { EntityManager } from '@mikro-orm/postgresql';
import { secretFieldsOf, type AuditEntry } from '../../domain/audit/audit-entry';
import { beyond, exactTimestamp, keyset, microseconds, TimeAndId } from '../cursor';
import { tablesOf } from '../tables';

/**
 * The audit log (D22): written in the caller's transaction, the same one as the change it
 * records (a rolled-back change leaves no audit event, a committed one always has one), and
 * read newest first. The table is append-only for the application roles (its migration).
 */

export class SecretInAuditLogError extends Error {
  constructor(fields: string[]) {
    super(`audit events never carry secrets; refused field(s): ${fields.join(', ')}`);
  }
}

export async function recordAuditEvent(em: EntityManager, organizationId: string, entry: AuditEntry): Promise<void> {
  const secrets = secretFieldsOf(entry);
  if (secrets.length > 0) throw new SecretInAuditLogError(secrets);
  await em.execute(
    `insert into audit_events (organization_id, actor_type, actor_id, actor_email, action, entity_type, entity_id, changes, request_id)
     values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)`,
    [organizationId, entry.actor.type, entry.actor.id, entry.actor.email, entry.action, entry.entityType, entry.entityId, JSON.stringify(entry.changes), entry.requestId],
  );
}

export interface AuditEventRow {
  id: string;
  occurred_at: Date;
  actor_type: 'user' | 'operator' | 'system';
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  entity_type: string;
  entity_id: string;
  changes: { field: string; before: unknown; after: unknown }[];
  request_id: string | null;
  cursor_occurred_at: string;
}

export const AUDIT_EVENT_KEYSET = keyset(TimeAndId, (row: AuditEventRow) => [row.cursor_occurred_at, row.id] as const);

export interface AuditEventFilter {
  entityType?: string | undefined;
  entityId?: string | undefined;
  actorId?: string | undefined;
  action?: string | undefined;
  /** Events at or after this instant (ISO-8601). */
  since?: string | undefined;
}

/** One page (`limit` + 1 rows) of the tenant's audit events, newest first, after a position of AUDIT_EVENT_KEYSET. */
export function auditEventPage(em: EntityManager, filter: AuditEventFilter, after: readonly [string, string] | undefined, limit: number): Promise<AuditEventRow[]> {
  let query = tablesOf(em)
    .selectFrom('audit_events as a')
    .select((eb) => [
      'a.id',
      'a.occurred_at',
      eb.ref('a.actor_type').$castTo<AuditEventRow['actor_type']>().as('actor_type'),
      'a.actor_id',
      'a.actor_email',
      'a.action',
      'a.entity_type',
      'a.entity_id',
      eb.ref('a.changes').$castTo<AuditEventRow['changes']>().as('changes'),
      'a.request_id',
      microseconds(eb.ref('a.occurred_at')).as('cursor_occurred_at'),
    ]);
  if (filter.entityType) query = query.where('a.entity_type', '=', filter.entityType);
  if (filter.entityId) query = query.where('a.entity_id', '=', filter.entityId);
  if (filter.actorId) query = query.where('a.actor_id', '=', filter.actorId);
  if (filter.action) query = query.where('a.action', '=', filter.action);
  if (filter.since) query = query.where('a.occurred_at', '>=', exactTimestamp(filter.since));
  if (after) query = query.where((eb) => beyond([eb.ref('a.occurred_at'), eb.ref('a.id')], 'desc', after));
  return query.orderBy('a.occurred_at', 'desc').orderBy('a.id', 'desc').limit(limit + 1).execute();
}
