import { Migration } from '@mikro-orm/migrations';
import { APPEND_ONLY, tenantTableSql } from './rls';

/**
 * Work orders (section 4.4, D4), their append-only status history, and the transactional outbox
 * of events (section 6): an event row is written in the same transaction as the change it
 * describes, with its envelope fixed at that moment.
 */
export class Migration20261121020000WorkOrders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table users add constraint users_org_id_unique unique (organization_id, id)`);

    this.addSql(`create table work_orders (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      status text not null check (status in ('PENDING', 'DISPATCHED', 'COMPLETED', 'CANCELLED')),
      quote_id uuid null,
      assigned_technician_id uuid null,
      scheduled_date date null,
      site_address text null check (length(site_address) <= 400),
      notes text null check (length(notes) <= 2000),
      created_by_user_id uuid not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      dispatched_at timestamptz null,
      completed_at timestamptz null,
      cancelled_at timestamptz null,
      foreign key (organization_id, quote_id) references quotes (organization_id, id),
      foreign key (organization_id, assigned_technician_id) references users (organization_id, id),
      foreign key (organization_id, created_by_user_id) references users (organization_id, id),
      unique (organization_id, id)
    )`);
    // Soonest first, unscheduled last, then a stable tie-break.
    this.addSql(`create index work_orders_schedule on work_orders (organization_id, scheduled_date asc nulls last, created_at, id)`);
    this.addSql(`create index work_orders_technician on work_orders (organization_id, assigned_technician_id, scheduled_date asc nulls last)`);
    for (const sql of tenantTableSql('work_orders')) this.addSql(sql);

    this.addSql(`create table work_order_history (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      work_order_id uuid not null,
      sequence bigint generated always as identity,
      from_status text null,
      to_status text not null,
      changed_by_user_id uuid not null,
      changed_at timestamptz not null default clock_timestamp(),
      notes text null check (length(notes) <= 2000),
      foreign key (organization_id, work_order_id) references work_orders (organization_id, id),
      foreign key (organization_id, changed_by_user_id) references users (organization_id, id)
    )`);
    this.addSql(`create index work_order_history_by_order on work_order_history (organization_id, work_order_id, sequence)`);
    for (const sql of tenantTableSql('work_order_history', APPEND_ONLY)) this.addSql(sql);

    this.addSql(`create table outbox_events (
      id uuid primary key,
      organization_id uuid not null references organizations(id),
      event text not null,
      envelope jsonb not null,
      created_at timestamptz not null,
      sequence bigint generated always as identity
    )`);
    this.addSql(`create index outbox_events_by_tenant on outbox_events (organization_id, sequence)`);
    for (const sql of tenantTableSql('outbox_events', APPEND_ONLY)) this.addSql(sql);
  }
}
