import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, APPEND_ONLY, tenantTableSql } from './rls';

/**
 * Outbound webhooks (section 6, D6): endpoints with their encrypted signing secrets (and the
 * previous one during a rotation's overlap), one delivery per (event, endpoint, series), and the
 * append-only log of every attempt. Events keep the exact bytes they are delivered with.
 */
export class Migration20261121050000Webhooks extends Migration {
  override async up(): Promise<void> {
    // The envelope as the text every delivery sends, fixed when the event is recorded (jsonb
    // would re-order keys).
    this.addSql(`alter table outbox_events add column payload text null`);

    // The relay now leaves an event alone for a moment after its commit: the committing process
    // starts its workflows itself at once, and the relay only picks up what that fast path missed.
    this.addSql(`drop function outbox_lease(integer, integer)`);
    this.addSql(`create function outbox_lease(p_limit integer, p_lease_seconds integer, p_min_age_seconds integer)
      returns table (id uuid, organization_id uuid, event text, envelope jsonb)
      language sql volatile security definer set search_path = public as $$
        update outbox_events o set lease_until = clock_timestamp() + make_interval(secs => p_lease_seconds)
         where o.id in (
           select x.id from outbox_events x
            where x.dispatched_at is null and (x.lease_until is null or x.lease_until < clock_timestamp())
              and x.created_at < clock_timestamp() - make_interval(secs => p_min_age_seconds)
            order by x.sequence limit p_limit for update skip locked)
        returning o.id, o.organization_id, o.event, o.envelope
      $$`);
    this.addSql(`revoke all on function outbox_lease(integer, integer, integer) from public`);
    this.addSql(`grant execute on function outbox_lease(integer, integer, integer) to ${APP_ROLE}`);

    this.addSql(`create table webhook_endpoints (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      url text not null check (length(url) <= 2000),
      events text[] not null check (cardinality(events) > 0),
      description text null check (length(description) <= 500),
      status text not null check (status in ('enabled', 'disabled')),
      disabled_reason text null,
      secret_ciphertext text not null,
      secret_key_id text not null,
      previous_secret_ciphertext text null,
      previous_secret_key_id text null,
      previous_secret_expires_at timestamptz null,
      failing_since timestamptz null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organization_id, id)
    )`);
    for (const sql of tenantTableSql('webhook_endpoints')) this.addSql(sql);

    this.addSql(`create table webhook_deliveries (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      endpoint_id uuid not null,
      event_id uuid not null,
      event text not null,
      series integer not null default 0,
      status text not null check (status in ('pending', 'delivered', 'failed', 'missed')),
      attempts integer not null default 0,
      last_error text null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default clock_timestamp(),
      delivered_at timestamptz null,
      foreign key (organization_id, endpoint_id) references webhook_endpoints (organization_id, id) on delete cascade,
      unique (event_id, endpoint_id, series),
      unique (organization_id, id)
    )`);
    this.addSql(`create index webhook_deliveries_missed on webhook_deliveries (organization_id, endpoint_id) where status = 'missed'`);
    for (const sql of tenantTableSql('webhook_deliveries')) this.addSql(sql);

    this.addSql(`create table webhook_delivery_attempts (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      delivery_id uuid not null,
      endpoint_id uuid not null,
      event_id uuid not null,
      event text not null,
      attempt integer not null check (attempt >= 1),
      outcome text not null check (outcome in ('delivered', 'retryable_failure', 'permanent_failure')),
      response_status integer null,
      error text null,
      duration_ms integer not null,
      response_excerpt text null,
      attempted_at timestamptz not null default clock_timestamp(),
      foreign key (organization_id, delivery_id) references webhook_deliveries (organization_id, id) on delete cascade
    )`);
    this.addSql(`create index webhook_attempts_by_endpoint on webhook_delivery_attempts (organization_id, endpoint_id, attempted_at desc)`);
    // Append-only for the application, but removable with its endpoint (cascade runs as owner).
    for (const sql of tenantTableSql('webhook_delivery_attempts', APPEND_ONLY)) this.addSql(sql);
  }
}
