import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { allTenantIds } from '../../db/organizations';
import { expireStaleQuotesOfTenant } from '../../db/quotes/quotes';

/**
 * D3: DRAFT and SENT quotes older than their tenant's validity period become EXPIRED. Runs per
 * tenant, inside that tenant's transaction, moving exactly the states the transition table lets
 * `expire` move.
 */
export async function expireStaleQuotes(em: EntityManager, now: Date = new Date()): Promise<{ expired: number }> {
  const tenants = await allTenantIds(em.fork());
  let expired = 0;
  for (const organizationId of tenants) {
    expired += await inTenant(em, organizationId, (tx) => expireStaleQuotesOfTenant(tx, now));
  }
  return { expired };
}
