import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, tenantTableSql } from './rls';

/**
 * Approval fan-out (sections 3.1, 3.4; D7): the SyncRecord store, processed payments-webhook
 * events, the payments customer of each of our customers, and the relay's door into the outbox.
 */
export class Migration20261121030000Approval extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table sync_records (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      provider text not null check (provider in ('PAYMENTS', 'ACCOUNTING', 'CRM')),
      entity_type text not null,
      quote_id uuid not null,
      local_id text not null,
      external_id text null,
      status text not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED', 'SKIPPED')),
      attempts integer not null default 0 check (attempts >= 0),
      amount_cents bigint null,
      last_error text null,
      synced_at timestamptz null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default clock_timestamp(),
      foreign key (organization_id, quote_id) references quotes (organization_id, id),
      unique (organization_id, provider, entity_type, quote_id)
    )`);
    this.addSql(`create index sync_records_recent on sync_records (organization_id, updated_at desc, id desc)`);
    for (const sql of tenantTableSql('sync_records')) this.addSql(sql);

    // The payments provider's customer for each of ours, so a returning customer is resolved,
    // not created again (idempotency keys alone expire after a day at the provider).
    this.addSql(`alter table customers add column payments_customer_id text null`);

    // Platform-level (not tenant data): which payments-provider events were already handled.
    this.addSql(`create table payments_webhook_events (
      event_id text primary key,
      event_type text not null,
      handled boolean not null,
      received_at timestamptz not null default now()
    )`);
    this.addSql(`grant select, insert on payments_webhook_events to ${APP_ROLE}`);

    // The relay leases undispatched outbox rows across tenants and marks them dispatched once
    // their workflows are started. These two functions are its only door: the application role
    // still cannot update or delete outbox rows itself.
    this.addSql(`alter table outbox_events add column dispatched_at timestamptz null, add column lease_until timestamptz null`);
    this.addSql(`create index outbox_events_pending on outbox_events (sequence) where dispatched_at is null`);
    this.addSql(`create function outbox_lease(p_limit integer, p_lease_seconds integer)
      returns table (id uuid, organization_id uuid, event text, envelope jsonb)
      language sql volatile security definer set search_path = public as $$
        update outbox_events o set lease_until = clock_timestamp() + make_interval(secs => p_lease_seconds)
         where o.id in (
           select x.id from outbox_events x
            where x.dispatched_at is null and (x.lease_until is null or x.lease_until < clock_timestamp())
            order by x.sequence limit p_limit for update skip locked)
        returning o.id, o.organization_id, o.event, o.envelope
      $$`);
    this.addSql(`create function outbox_mark_dispatched(p_ids uuid[]) returns void
      language sql volatile security definer set search_path = public as $$
        update outbox_events set dispatched_at = clock_timestamp(), lease_until = null where id = any(p_ids) and dispatched_at is null
      $$`);
    for (const fn of ['outbox_lease(integer, integer)', 'outbox_mark_dispatched(uuid[])']) {
      this.addSql(`revoke all on function ${fn} from public`);
      this.addSql(`grant execute on function ${fn} to ${APP_ROLE}`);
    }
  }
}
