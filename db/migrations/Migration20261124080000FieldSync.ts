import { Migration } from '@mikro-orm/migrations';
import { APPEND_ONLY, WORKER_ROLE, tenantTableSql } from './rls';

/**
 * The field-sync jobs of document 001 (D10-D12).
 *
 * - A job is the field view of a work order (D11): `work_orders.job_status` is the one status,
 *   and the section 3.2 `status` is kept as its projection by a trigger (a write of either keeps
 *   the other in step, so the /api/ contract is untouched).
 * - Crews (with members), sites, time entries (no overlap per technician: a btree_gist exclusion
 *   constraint), material draws, change orders, and the append-only `job_history`.
 * - Incremental sync (docs/field-sync.md): every insert or update of a work order takes the next
 *   value of its tenant's `job_sync_clock` row, a sequence and a strictly increasing timestamp,
 *   under that row's lock. The lock is held to commit, so the order of those values is the order
 *   in which the changes become visible.
 */
export class Migration20261124080000FieldSync extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create extension if not exists btree_gist`);

    this.addSql(`create table crews (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      name text not null check (length(name) between 1 and 120),
      foreman_user_id uuid not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      foreign key (organization_id, foreman_user_id) references users (organization_id, id),
      unique (organization_id, id)
    )`);
    for (const sql of tenantTableSql('crews', 'select, insert, update')) this.addSql(sql);

    this.addSql(`create table crew_members (
      organization_id uuid not null references organizations(id),
      crew_id uuid not null,
      user_id uuid not null,
      primary key (crew_id, user_id),
      foreign key (organization_id, crew_id) references crews (organization_id, id),
      foreign key (organization_id, user_id) references users (organization_id, id)
    )`);
    this.addSql(`create index crew_members_by_user on crew_members (organization_id, user_id)`);
    for (const sql of tenantTableSql('crew_members', 'select, insert, delete')) this.addSql(sql);

    this.addSql(`create table sites (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      name text not null check (length(name) between 1 and 400),
      region text not null check (region ~ '^[A-Z]{2}-[A-Z]{2}$'),
      address_key text not null,
      created_at timestamptz not null default now(),
      unique (organization_id, address_key),
      unique (organization_id, id)
    )`);
    for (const sql of tenantTableSql('sites', 'select, insert')) this.addSql(sql);

    this.addSql(`create table job_sync_clock (
      organization_id uuid primary key references organizations(id),
      last_sequence bigint not null default 0,
      last_at timestamptz not null default '-infinity'
    )`);
    for (const sql of tenantTableSql('job_sync_clock', 'select, insert, update')) this.addSql(sql);

    this.addSql(`alter table work_orders
      add column job_status text not null default 'scheduled'
        check (job_status in ('scheduled', 'dispatched', 'in_progress', 'on_hold', 'complete', 'cancelled')),
      add column crew_id uuid null,
      add column site_id uuid null,
      add column actual_start timestamptz null,
      add column signed_off_at timestamptz null,
      add column sync_sequence bigint not null default 0,
      add column job_updated_at timestamptz not null default now(),
      add foreign key (organization_id, crew_id) references crews (organization_id, id),
      add foreign key (organization_id, site_id) references sites (organization_id, id)`);

    // The projection of D11, and the time columns of section 3.2 each projected status sets.
    this.addSql(`create function job_projection(p_job_status text) returns text language sql immutable as $$
      select case p_job_status when 'scheduled' then 'PENDING' when 'complete' then 'COMPLETED' when 'cancelled' then 'CANCELLED' else 'DISPATCHED' end
    $$`);
    this.addSql(`create function work_orders_job_sync() returns trigger language plpgsql as $$
      declare
        v_sequence bigint;
        v_at timestamptz;
      begin
        if tg_op = 'INSERT' then
          if new.status is distinct from job_projection(new.job_status) then
            new.job_status := case new.status when 'PENDING' then 'scheduled' when 'DISPATCHED' then 'dispatched' when 'COMPLETED' then 'complete' else 'cancelled' end;
          end if;
        elsif new.job_status is distinct from old.job_status then
          new.status := job_projection(new.job_status);
        elsif new.status is distinct from old.status then
          -- A write of the section 3.2 status alone: the job follows it.
          new.job_status := case new.status when 'PENDING' then 'scheduled' when 'DISPATCHED' then 'dispatched' when 'COMPLETED' then 'complete' else 'cancelled' end;
        end if;
        if tg_op = 'UPDATE' and new.status is distinct from old.status then
          if new.status = 'DISPATCHED' then new.dispatched_at := now();
          elsif new.status = 'COMPLETED' then new.completed_at := now();
          elsif new.status = 'PENDING' then new.dispatched_at := null;
          elsif new.status = 'CANCELLED' then new.cancelled_at := now();
          end if;
          new.updated_at := now();
        end if;
        if new.job_status = 'in_progress' and new.actual_start is null then new.actual_start := clock_timestamp(); end if;
        -- The change's place in the tenant's feed: held under the clock row's lock until commit.
        insert into job_sync_clock as c (organization_id, last_sequence, last_at)
             values (new.organization_id, 1, clock_timestamp())
        on conflict (organization_id) do update
              set last_sequence = c.last_sequence + 1,
                  last_at = greatest(clock_timestamp(), c.last_at + interval '1 microsecond')
          returning last_sequence, last_at into v_sequence, v_at;
        new.sync_sequence := v_sequence;
        new.job_updated_at := v_at;
        return new;
      end
    $$`);

    this.addSql(`create table time_entries (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      work_order_id uuid not null,
      technician_id uuid not null,
      started_at timestamptz not null,
      ended_at timestamptz not null,
      notes text null check (length(notes) <= 2000),
      created_by_user_id uuid not null,
      created_at timestamptz not null default now(),
      check (ended_at > started_at and ended_at - started_at <= interval '16 hours'),
      foreign key (organization_id, work_order_id) references work_orders (organization_id, id),
      foreign key (organization_id, technician_id) references users (organization_id, id),
      foreign key (organization_id, created_by_user_id) references users (organization_id, id),
      constraint time_entries_no_overlap exclude using gist (organization_id with =, technician_id with =, tstzrange(started_at, ended_at) with &&)
    )`);
    this.addSql(`create index time_entries_by_job on time_entries (organization_id, work_order_id, started_at)`);
    for (const sql of tenantTableSql('time_entries', APPEND_ONLY)) this.addSql(sql);

    this.addSql(`create table material_draws (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      work_order_id uuid not null,
      sku_code text not null,
      quantity numeric not null check (quantity > 0),
      unit text not null,
      van_id text null check (length(van_id) between 1 and 64),
      drawn_by_user_id uuid not null,
      created_at timestamptz not null default now(),
      foreign key (organization_id, work_order_id) references work_orders (organization_id, id),
      foreign key (organization_id, drawn_by_user_id) references users (organization_id, id)
    )`);
    this.addSql(`create index material_draws_by_job on material_draws (organization_id, work_order_id, created_at)`);
    for (const sql of tenantTableSql('material_draws', APPEND_ONLY)) this.addSql(sql);

    this.addSql(`create table change_orders (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      work_order_id uuid not null,
      quote_id uuid not null,
      sequence integer not null check (sequence > 0),
      status text not null check (status in ('submitted', 'approved', 'rejected')),
      reason text not null check (length(reason) between 10 and 500),
      request jsonb not null,
      calculation jsonb not null,
      labour_hours numeric not null,
      material_cost_cents bigint not null,
      direct_cost_cents bigint not null,
      sell_cents bigint not null,
      previous_value_cents bigint null,
      applied_margin numeric not null,
      floor_engaged boolean not null,
      raised_by_user_id uuid not null,
      created_at timestamptz not null default now(),
      decided_at timestamptz null,
      decided_by_user_id uuid null,
      approved_by jsonb null,
      rejection_reason text null check (length(rejection_reason) between 1 and 500),
      unique (organization_id, work_order_id, sequence),
      unique (organization_id, id),
      foreign key (organization_id, work_order_id) references work_orders (organization_id, id),
      foreign key (organization_id, quote_id) references quotes (organization_id, id),
      foreign key (organization_id, raised_by_user_id) references users (organization_id, id),
      foreign key (organization_id, decided_by_user_id) references users (organization_id, id)
    )`);
    for (const sql of tenantTableSql('change_orders', 'select, insert, update')) this.addSql(sql);
    // D12: a change order's invoice is one more payments record of its quote, keyed by the change
    // order (local_id): the store is unique per (tenant, provider, entity, local id). A quote's own
    // records have local_id = quote_id, so for them nothing changes.
    this.addSql(`do $$ declare c text; begin
      select conname into c from pg_constraint where conrelid = 'sync_records'::regclass and contype = 'u'
         and pg_get_constraintdef(oid) = 'UNIQUE (organization_id, provider, entity_type, quote_id)';
      if c is not null then execute format('alter table sync_records drop constraint %I', c); end if;
    end $$`);
    this.addSql(`create unique index sync_records_by_local_id on sync_records (organization_id, provider, entity_type, local_id)`);
    this.addSql(`grant select on change_orders to ${WORKER_ROLE}`);

    // D11: dispatch history stays reconstructable: every change of a job, who and when.
    this.addSql(`create table job_history (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      work_order_id uuid not null,
      sequence bigint generated always as identity,
      kind text not null check (kind in ('created', 'status', 'crew', 'time_entry', 'material_draw', 'change_order')),
      from_status text null,
      to_status text null,
      detail jsonb not null default '{}',
      changed_by_user_id uuid not null,
      changed_at timestamptz not null default clock_timestamp(),
      foreign key (organization_id, work_order_id) references work_orders (organization_id, id),
      foreign key (organization_id, changed_by_user_id) references users (organization_id, id)
    )`);
    this.addSql(`create index job_history_by_job on job_history (organization_id, work_order_id, sequence)`);
    for (const sql of tenantTableSql('job_history', APPEND_ONLY)) this.addSql(sql);

    // Existing work orders become jobs: their status projected back, a site from each address, a
    // crew from each assignee (the crew that technician leads, or a crew of one), a history entry.
    this.addSql(`update work_orders set job_status = case status when 'PENDING' then 'scheduled' when 'DISPATCHED' then 'dispatched' when 'COMPLETED' then 'complete' else 'cancelled' end`);
    this.addSql(`insert into sites (organization_id, name, region, address_key)
      select distinct on (organization_id, lower(btrim(site_address))) organization_id, btrim(site_address), 'CA-ON', lower(btrim(site_address))
        from work_orders where site_address is not null and btrim(site_address) <> ''
      on conflict do nothing`);
    this.addSql(`update work_orders w set site_id = s.id from sites s where s.organization_id = w.organization_id and s.address_key = lower(btrim(w.site_address))`);
    this.addSql(`insert into crews (organization_id, name, foreman_user_id)
      select distinct w.organization_id, u.full_name, w.assigned_technician_id
        from work_orders w join users u on u.id = w.assigned_technician_id`);
    this.addSql(`insert into crew_members (organization_id, crew_id, user_id) select organization_id, id, foreman_user_id from crews`);
    this.addSql(`update work_orders w set crew_id = c.id from crews c where c.organization_id = w.organization_id and c.foreman_user_id = w.assigned_technician_id`);
    this.addSql(`insert into job_history (organization_id, work_order_id, kind, to_status, changed_by_user_id, changed_at, detail)
      select organization_id, id, 'created', job_status, created_by_user_id, created_at, '{"migrated": true}'::jsonb from work_orders`);
    // Feed positions for the migrated rows in creation order, then the trigger for every later write.
    this.addSql(`insert into job_sync_clock (organization_id, last_sequence, last_at)
      select organization_id, count(*), max(updated_at) from work_orders group by organization_id`);
    this.addSql(`update work_orders w set sync_sequence = n.rn, job_updated_at = w.updated_at
      from (select id, row_number() over (partition by organization_id order by updated_at, id) as rn from work_orders) n where n.id = w.id`);
    this.addSql(`create trigger work_orders_job_sync before insert or update on work_orders for each row execute function work_orders_job_sync()`);
    this.addSql(`create index work_orders_feed on work_orders (organization_id, job_updated_at, id)`);
  }
}
