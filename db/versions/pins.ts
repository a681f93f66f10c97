import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * D16: the dated version a tenant is pinned to: the current version at its first API request,
 * set once and kept. Runs in a tenant transaction (db/tenant-scope.ts).
 */
export async function pinTenantVersion(em: EntityManager, current: string): Promise<string> {
  const [row] = await em.execute<{ api_version: string }[]>(
    'update organizations set api_version = coalesce(api_version, ?) where id = app_current_organization() returning api_version',
    [current],
  );
  if (!row) throw new Error('the tenant selected has no organization row');
  return row.api_version;
}
