/**
 * SQL that every migration adding a tenant-owned table runs for it. Isolation lives here, in
 * the database: the application role sees and writes only the rows whose organization_id is the
 * transaction-local setting `app.organization_id` (set by db/tenant-scope.ts). Without the
 * setting it sees nothing at all.
 */
export const APP_ROLE = 'shade_app';

export function tenantTableSql(table: string, privileges = 'select, insert, update, delete'): string[] {
  return [
    `alter table "${table}" enable row level security`,
    `create policy tenant_isolation on "${table}" using (organization_id = app_current_organization()) with check (organization_id = app_current_organization())`,
    `grant ${privileges} on "${table}" to ${APP_ROLE}`,
  ];
}

/** For append-only tables (histories): the application may add rows, never change or remove them. */
export const APPEND_ONLY = 'select, insert';
