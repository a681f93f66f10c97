import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { allTenantIds, tenantStanding } from '../../db/organizations';
import { expireStaleQuotesOfTenant } from '../../db/quotes/quotes';
import { isSuspended } from '../../domain/organizations/suspension';

/**
 * D3: DRAFT and SENT quotes older than their tenant's validity period become EXPIRED. Runs per
 * tenant, inside that tenant's transaction, moving exactly the states the transition table lets
 * `expire` move.
 */
export async function expireStaleQuotes(em: EntityManager, now: Date = new Date()): Promise<{ expired: number; suspendedTenants: number }> {
  const tenants = await allTenantIds(em.fork());
  let expired = 0;
  let suspendedTenants = 0;
  for (const organizationId of tenants) {
    const outcome = await expireStaleQuotesOf(em, organizationId, now);
    if (outcome === 'suspended') suspendedTenants += 1;
    else expired += outcome;
  }
  return { expired, suspendedTenants };
}

/**
 * One tenant's turn: how many quotes expired, or `suspended` when the tenant is (D22: nothing acts
 * for it; its quotes expire at the first run after it is resumed).
 */
export function expireStaleQuotesOf(em: EntityManager, organizationId: string, now: Date): Promise<number | 'suspended'> {
  return inTenant(em, organizationId, async (tx) => (isSuspended(await tenantStanding(tx)) ? 'suspended' : expireStaleQuotesOfTenant(tx, now)));
}
