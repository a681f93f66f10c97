import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, WORKER_ROLE, tenantTableSql } from './rls';

/**
 * D23, what routing needs and what a plan keeps:
 *
 * - `technician_routing`: a technician's skills, weekly hours (null: D23's default week) and time off.
 * - `sites.lat`/`lon`: WGS84 decimal degrees; a site without them cannot be routed.
 * - a job's schedule on its work order: its window (null: the working day), duration (null: from
 *   the estimated hours) and the skills the office adds to those its quote lines require.
 * - `routes`: one crew's day, its stops as the answer shows them, and a `revision` that increases
 *   with every change of that route (the dispatch.updated work reads it).
 * - `route_days`: per tenant and date, the last plan's unassigned jobs and exclusions, and which
 *   source priced its travel.
 *
 * The plan runs as Temporal activities on the routing task queue, in the worker: its role gets
 * exactly what loading a day and applying a plan use.
 */
export class Migration20261127040000RoutingData extends Migration {
  override async up(): Promise<void> {
    const skillCheck = (column: string) => `check (${column} <@ array[]::text[] or array_to_string(${column}, ',') ~ '^[a-z0-9_-]{1,40}(,[a-z0-9_-]{1,40})*$')`;

    this.addSql(`create table technician_routing (
      organization_id uuid not null references organizations(id),
      user_id uuid not null,
      skills text[] not null default '{}' ${skillCheck('skills')},
      weekly jsonb null,
      time_off jsonb not null default '[]',
      updated_at timestamptz not null default now(),
      primary key (organization_id, user_id),
      foreign key (organization_id, user_id) references users (organization_id, id)
    )`);
    for (const sql of tenantTableSql('technician_routing', 'select, insert, update')) this.addSql(sql);

    this.addSql(`alter table sites
      add column lat double precision null check (lat between -90 and 90),
      add column lon double precision null check (lon between -180 and 180),
      add check ((lat is null) = (lon is null))`);
    this.addSql(`grant update (name, lat, lon) on sites to ${APP_ROLE}`);

    this.addSql(`alter table work_orders
      add column window_start time null,
      add column window_end time null,
      add column duration_minutes integer null check (duration_minutes between 1 and 1440),
      add column added_skills text[] not null default '{}' ${skillCheck('added_skills')},
      add check (window_start is null or window_end is null or window_end > window_start)`);

    this.addSql(`create table routes (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      route_date date not null,
      crew_id uuid not null,
      revision integer not null default 1 check (revision > 0),
      shift_start text not null,
      shift_end text not null,
      total_drive_minutes integer not null,
      overtime_minutes integer not null,
      stops jsonb not null default '[]',
      violations jsonb not null default '[]',
      travel_time_source text not null,
      updated_at timestamptz not null default now(),
      unique (organization_id, route_date, crew_id),
      foreign key (organization_id, crew_id) references crews (organization_id, id)
    )`);
    this.addSql(`create index routes_by_crew on routes (organization_id, crew_id)`);
    for (const sql of tenantTableSql('routes', 'select, insert, update, delete')) this.addSql(sql);

    this.addSql(`create table route_days (
      organization_id uuid not null references organizations(id),
      route_date date not null,
      unassigned jsonb not null default '[]',
      exclusions jsonb not null default '[]',
      travel_time_source text not null,
      planned_at timestamptz not null default now(),
      primary key (organization_id, route_date)
    )`);
    for (const sql of tenantTableSql('route_days', 'select, insert, update')) this.addSql(sql);

    // A plan's changes are part of the job's history (D11: dispatch stays reconstructable).
    this.addSql(`do $$ declare c text; begin
      select conname into c from pg_constraint where conrelid = 'job_history'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%kind%';
      if c is not null then execute format('alter table job_history drop constraint %I', c); end if;
    end $$`);
    this.addSql(`alter table job_history add constraint job_history_kind_check
      check (kind in ('created', 'status', 'crew', 'time_entry', 'material_draw', 'change_order', 'route'))`);

    const worker: Record<string, string> = {
      users: 'select',
      crews: 'select',
      crew_members: 'select',
      sites: 'select',
      time_entries: 'select',
      technician_routing: 'select',
      work_orders: 'select, update',
      job_sync_clock: 'select, insert, update',
      job_history: 'select, insert',
      routes: 'select, insert, update, delete',
      route_days: 'select, insert, update',
    };
    for (const [table, privileges] of Object.entries(worker)) this.addSql(`grant ${privileges} on "${table}" to ${WORKER_ROLE}`);
  }
}
