import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { QUOTE_TRANSITIONS } from '../../db/quotes/quote-status';

/**
 * D3: DRAFT and SENT quotes older than their tenant's validity period become EXPIRED. Runs per
 * tenant, inside that tenant's transaction, moving exactly the states the transition table lets
 * `expire` move.
 */
export async function expireStaleQuotes(em: EntityManager, now: Date = new Date()): Promise<{ expired: number }> {
  const tenants = await em.fork().execute<{ tenant_ids: string }[]>('select tenant_ids()');
  const rule = QUOTE_TRANSITIONS.expire;
  let expired = 0;
  for (const { tenant_ids: organizationId } of tenants) {
    const moved = await inTenant(em, organizationId, (tx) =>
      tx.execute<{ id: string }[]>(
        `update quotes set status = ?, ${rule.stamp} = ?, updated_at = ?
          where status in (${rule.from.map(() => '?').join(', ')})
            and created_at < ?::timestamptz - make_interval(days => (select quote_validity_days from organizations where id = app_current_organization()))
          returning id`,
        [rule.to, now, now, ...rule.from, now],
      ),
    );
    expired += moved.length;
  }
  return { expired };
}
