import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, WORKER_ROLE } from './rls';

/**
 * Least privilege. Until now the API and the worker shared one role that could do
 * everything either of them needed, including the worker's cross-tenant doors.
 *
 * - The worker gets a role of its own; each role is granted exactly what its code uses.
 * - Marking an outbox event dispatched is scoped to the tenant selected (both processes dispatch
 *   the events of one tenant at a time); the cross-tenant door for it is dropped.
 * - The tenant setting only counts in the transaction that made it: app_enter_tenant stamps it
 *   with that transaction's start time and app_current_organization ignores any other stamp, so
 *   a setting made session-wide by mistake selects nothing on the pooled connection's next use.
 */
const TABLES: Record<string, { api: string; worker: string }> = {
  organizations: { api: 'select', worker: 'select' },
  users: { api: 'select, update', worker: '' },
  rate_limits: { api: 'select, insert, update, delete', worker: '' },
  rate_card_revisions: { api: 'select', worker: '' },
  rate_card_skus: { api: 'select', worker: '' },
  rate_card_labour_tiers: { api: 'select', worker: '' },
  customers: { api: 'select, insert, update', worker: 'select, update' },
  quote_number_counters: { api: 'select, insert, update', worker: '' },
  quotes: { api: 'select, insert, update', worker: 'select, update' },
  quote_lines: { api: 'insert', worker: '' },
  work_orders: { api: 'select, insert, update', worker: '' },
  work_order_history: { api: 'select, insert', worker: '' },
  outbox_events: { api: 'insert', worker: 'select' },
  sync_records: { api: 'select', worker: 'select, insert, update' },
  payments_webhook_events: { api: 'select, insert', worker: '' },
  integration_connections: { api: 'select, insert, update', worker: 'select, update' },
  integration_oauth_states: { api: 'select, insert, update, delete', worker: '' },
  webhook_endpoints: { api: 'select, insert, update, delete', worker: 'select, update' },
  webhook_deliveries: { api: 'select, insert, update', worker: 'select, insert, update' },
  webhook_delivery_attempts: { api: 'select', worker: 'insert' },
};

export class Migration20261122000000LeastPrivilege extends Migration {
  override async up(): Promise<void> {
    this.addSql(`do $$ begin
      if not exists (select 1 from pg_roles where rolname = '${WORKER_ROLE}') then
        create role ${WORKER_ROLE} nologin nosuperuser nocreatedb nocreaterole noinherit nobypassrls;
      end if;
    end $$`);
    this.addSql(`alter role ${WORKER_ROLE} nosuperuser nocreatedb nocreaterole nobypassrls`);
    this.addSql(`grant usage on schema public to ${WORKER_ROLE}`);

    this.addSql(`revoke all on all tables in schema public from ${APP_ROLE}, ${WORKER_ROLE}`);
    for (const [table, privileges] of Object.entries(TABLES)) {
      if (privileges.api) this.addSql(`grant ${privileges.api} on "${table}" to ${APP_ROLE}`);
      if (privileges.worker) this.addSql(`grant ${privileges.worker} on "${table}" to ${WORKER_ROLE}`);
    }

    // The cross-tenant doors belong to the worker alone.
    for (const fn of ['tenant_ids()', 'outbox_lease(integer, integer, integer)', 'integration_refresh_targets()']) {
      this.addSql(`revoke all on function ${fn} from public, ${APP_ROLE}`);
      this.addSql(`grant execute on function ${fn} to ${WORKER_ROLE}`);
    }
    this.addSql(`drop function outbox_mark_dispatched(uuid[])`);
    this.addSql(`create function outbox_mark_dispatched_in_tenant(p_ids uuid[]) returns void
      language sql volatile security definer set search_path = public as $$
        update outbox_events set dispatched_at = clock_timestamp(), lease_until = null
         where id = any(p_ids) and dispatched_at is null and organization_id = app_current_organization()
      $$`);
    this.addSql(`revoke all on function outbox_mark_dispatched_in_tenant(uuid[]) from public`);
    this.addSql(`grant execute on function outbox_mark_dispatched_in_tenant(uuid[]) to ${APP_ROLE}, ${WORKER_ROLE}`);

    // The value is `<tenant id>@<epoch of this transaction's start>`; written only transaction-locally.
    this.addSql(`create function app_enter_tenant(p_organization_id uuid) returns uuid language sql volatile as $$
      select set_config('app.organization_id', p_organization_id::text || '@' || extract(epoch from now())::text, true)::text;
      select p_organization_id
    $$`);
    // One SELECT without FROM, so the planner inlines it into the policies (and index conditions).
    this.addSql(`create or replace function app_current_organization() returns uuid language sql stable as $$
      select case when split_part(current_setting('app.organization_id', true), '@', 2) = extract(epoch from now())::text
                  then nullif(split_part(current_setting('app.organization_id', true), '@', 1), '')::uuid end
    $$`);
  }
}
