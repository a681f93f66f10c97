import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, WORKER_ROLE } from './rls';

/**
 * D23's coalescing of `dispatch.updated` (docs/webhooks.md): each route keeps the state it last
 * told (`dispatch_told`, the shown attributes), when (`dispatch_told_at`), and, while changes
 * wait out the workspace's `dispatch_coalesce_seconds`, when the one trailing event is due
 * (`dispatch_due_at`). The outbox relay finds due routes across tenants through one door, as it
 * leases outbox rows (the worker's role alone); it tells them in each tenant's own transaction.
 */
export class Migration20261128030000DispatchCoalescing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table routes add column dispatch_told jsonb null, add column dispatch_told_at timestamptz null, add column dispatch_due_at timestamptz null`);
    this.addSql(`create index routes_dispatch_due on routes (dispatch_due_at) where dispatch_due_at is not null`);
    this.addSql(`create function dispatch_due_days(p_limit integer)
      returns table (organization_id uuid, route_date text)
      language sql stable security definer set search_path = public as $$
        select distinct r.organization_id, r.route_date::text from routes r
         where r.dispatch_due_at is not null and r.dispatch_due_at <= clock_timestamp() limit p_limit
      $$`);
    // A cross-tenant door: the worker's alone, as outbox_lease.
    this.addSql(`revoke all on function dispatch_due_days(integer) from public, ${APP_ROLE}`);
    this.addSql(`grant execute on function dispatch_due_days(integer) to ${WORKER_ROLE}`);
  }
}
