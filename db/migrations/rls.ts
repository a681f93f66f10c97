/**
 * SQL that every migration adding a tenant-owned table runs for it. Isolation lives here, in
 * the database: the application roles see and write only the rows whose organization_id is the
 * tenant selected for the current transaction (app_enter_tenant, called by db/tenant-scope.ts).
 * Without one selected they see nothing at all. The policy applies to every role but the owner.
 */
/** The API's role (DATABASE_APP_PASSWORD). New tables are granted to it by tenantTableSql. */
export const APP_ROLE = 'shade_app';
/**
 * The worker's role (DATABASE_WORKER_PASSWORD): the cross-tenant doors the worker needs
 * (tenant_ids, outbox_lease, integration_refresh_targets) and the tables its activities use.
 * A table the worker needs is granted to it explicitly.
 */
export const WORKER_ROLE = 'shade_worker';

export function tenantTableSql(table: string, privileges = 'select, insert, update, delete'): string[] {
  return [
    `alter table "${table}" enable row level security`,
    `create policy tenant_isolation on "${table}" using (organization_id = app_current_organization()) with check (organization_id = app_current_organization())`,
    `grant ${privileges} on "${table}" to ${APP_ROLE}`,
  ];
}

/** For append-only tables (histories): the application may add rows, never change or remove them. */
export const APPEND_ONLY = 'select, insert';
