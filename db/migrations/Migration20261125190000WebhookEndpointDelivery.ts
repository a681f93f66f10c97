import { Migration } from '@mikro-orm/migrations';

/**
 * One long-lived delivery workflow per endpoint (docs/webhook-delivery.md).
 * - `next_attempt_at`: when a pending delivery is due next; the endpoint's workflow claims due rows
 *   in batches. Null marks a delivery carried by its own per-delivery workflow (the rows pending
 *   before this migration, whose `deliverWebhook` runs go on and finish): the endpoint workflow
 *   never claims those.
 * - `claimed_by`, `claimed_until`: the batch that holds a row (a lease). The retry of a batch
 *   activity (its worker died) takes back the rows of its own token at once; any other batch only
 *   after the lease, so a row is never in two batches while both are alive.
 * - `webhook_endpoints.delivery_idle`: the endpoint's workflow found nothing due and waits; the
 *   dispatcher signals it only then (one signal per idle period, not one per event).
 *   `delivery_seen_at`: when it last reported in, so a workflow that stopped answering is signalled
 *   again (signal-with-start) after a while.
 */
export class Migration20261125190000WebhookEndpointDelivery extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table webhook_deliveries add column next_attempt_at timestamptz null`);
    this.addSql(`alter table webhook_deliveries alter column next_attempt_at set default clock_timestamp()`);
    this.addSql(`alter table webhook_deliveries add column claimed_by text null, add column claimed_until timestamptz null`);
    this.addSql(`create index webhook_deliveries_due on webhook_deliveries (endpoint_id, next_attempt_at) where status = 'pending' and next_attempt_at is not null`);
    this.addSql(`alter table webhook_endpoints add column delivery_idle boolean not null default true, add column delivery_seen_at timestamptz null`);
  }
}
