import { Migration } from '@mikro-orm/migrations';

/**
 * The deliveries page sends a test event to one endpoint: its delivery is marked `is_test`, so the
 * page and the list say so (the event itself is recorded as already dispatched: it reaches that
 * endpoint alone, never the tenant's other subscribers).
 */
export class Migration20261127000200WebhookTestDeliveries extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table webhook_deliveries add column is_test boolean not null default false`);
  }
}
