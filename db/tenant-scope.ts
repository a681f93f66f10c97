import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs `work` in a transaction whose first statement selects the tenant (for this transaction
 * only: the selection cannot outlive it on a pooled connection). Row-level security
 * (db/migrations/rls.ts) then filters and checks every statement in it; forgetting to call this
 * yields no rows at all rather than another tenant's rows.
 */
export async function inTenant<T>(em: EntityManager, organizationId: string, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return em.fork().transactional(async (tx) => {
    await selectTenant(tx, organizationId);
    return work(tx);
  });
}

/** Selects the tenant for the rest of the transaction `tx` (for work that cannot use inTenant). */
export async function selectTenant(tx: EntityManager, organizationId: string): Promise<void> {
  // Transaction-local, and stamped with this transaction (db/migrations: app_enter_tenant).
  await tx.execute('select app_enter_tenant(?)', [organizationId]);
}

/** Makes the rest of the transaction `tx` read-only: a statement that writes then fails. */
export async function readOnlyTransaction(tx: EntityManager): Promise<void> {
  await tx.execute('set transaction read only');
}
