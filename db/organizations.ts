import type { EntityManager } from '@mikro-orm/postgresql';

/** Every tenant's id, through the security-definer `tenant_ids()` (for jobs that visit each tenant in turn). */
export async function allTenantIds(em: EntityManager): Promise<string[]> {
  const tenants = await em.execute<{ tenant_ids: string }[]>('select tenant_ids()');
  return tenants.map((row) => row.tenant_ids);
}
