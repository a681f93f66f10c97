import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, tenantTableSql, WORKER_ROLE } from './rls';

/**
 * The audit log (D22): one row per administrative change, written in the transaction of the
 * change it records. Append-only in the database itself: the API's and the worker's roles may add
 * rows and (the API) read them, never update or delete one; retention (at least 400 days) is the
 * operator's, so nothing here expires rows. `occurred_at` is the clock at the insert (two events
 * of one transaction keep their order), `changes` the field-level before and after.
 */
export class Migration20261127000000AuditLog extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table audit_events (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      occurred_at timestamptz not null default clock_timestamp(),
      actor_type text not null check (actor_type in ('user', 'operator', 'system')),
      actor_id uuid,
      actor_email text,
      action text not null,
      entity_type text not null,
      entity_id text not null,
      changes jsonb not null default '[]'::jsonb check (jsonb_typeof(changes) = 'array'),
      request_id text
    )`);
    this.addSql(`create index audit_events_newest on audit_events (organization_id, occurred_at desc, id desc)`);
    this.addSql(`create index audit_events_entity on audit_events (organization_id, entity_type, entity_id, occurred_at desc, id desc)`);
    this.addSql(`create index audit_events_actor on audit_events (organization_id, actor_id, occurred_at desc, id desc)`);
    for (const sql of tenantTableSql('audit_events', 'select, insert')) this.addSql(sql);
    this.addSql(`grant insert on audit_events to ${WORKER_ROLE}`);
    // Belt and braces: even a grant added later by mistake cannot rewrite history.
    this.addSql(`create function audit_events_append_only() returns trigger language plpgsql as $$
      begin raise exception 'audit_events is append-only' using errcode = '42501'; end $$`);
    this.addSql(`create trigger audit_events_append_only before update or delete or truncate on audit_events
      for each statement execute function audit_events_append_only()`);
    this.addSql(`revoke all on function audit_events_append_only() from public, ${APP_ROLE}, ${WORKER_ROLE}`);
  }
}
