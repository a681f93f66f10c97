import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../events/outbox';
import type { EventEnvelope } from '../../domain/events/catalogue';
import type { RevisionHead } from './pricebook';
import { revisionById } from './pricebook';
import { recordAuditEvent } from '../audit/audit-events';

/** The `pricebook.published` event of a revision (D21), recorded in the caller's tenant transaction. */
export function recordPricebookPublished(em: EntityManager, organizationId: string, head: RevisionHead): Promise<EventEnvelope> {
  return recordEvent(
    em,
    organizationId,
    'pricebook.published',
    { pricebook_id: organizationId, revision: head.revision, effective_from: head.effectiveFrom, published_by_user_id: head.publishedByUserId },
    new Date(head.effectiveFrom),
  );
}

/**
 * The timer's announcement of a future-dated revision: `announced` once, `already` when a
 * retry finds it recorded, `missing` for a revision that never committed, `not_yet` before its instant.
 */
export async function announceRevision(em: EntityManager, organizationId: string, revisionId: string): Promise<'announced' | 'already' | 'missing' | 'not_yet'> {
  const head = await revisionById(em, revisionId);
  if (!head) return 'missing';
  const [due] = await em.execute<{ due: boolean }[]>(`select effective_from <= now() as due from rate_card_revisions where id = ?`, [revisionId]);
  if (!due?.due) return 'not_yet';
  const [seen] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from outbox_events where event = 'pricebook.published' and envelope->'data'->>'revision' = ?`,
    [head.revision],
  );
  if ((seen?.n ?? 0) > 0) return 'already';
  await recordPricebookPublished(em, organizationId, head);
  // D22: the revision became current without anyone acting; the ADMIN's act was recorded as
  // `pricebook.scheduled` when it was published.
  const [previous] = await em.execute<{ revision: Date }[]>(
    `select revision from rate_card_revisions where (effective_from, revision) < (?::timestamptz, ?::timestamptz) order by effective_from desc, revision desc limit 1`,
    [head.effectiveFrom, head.revision],
  );
  await recordAuditEvent(em, organizationId, {
    actor: { type: 'system', id: null, email: null },
    action: 'pricebook.published',
    entityType: 'pricebook',
    entityId: organizationId,
    changes: [{ field: 'current_revision', before: previous ? new Date(previous.revision).toISOString() : null, after: head.revision }],
    requestId: null,
  });
  return 'announced';
}
