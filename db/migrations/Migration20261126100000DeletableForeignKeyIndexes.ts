import { Migration } from '@mikro-orm/migrations';

/**
 * Deleting a webhook endpoint cascades to its deliveries and their attempts, and neither foreign
 * key had an index: PostgreSQL found each delivery's attempts by reading the whole attempts
 * table, once per delivery, so an endpoint with 15,000 deliveries took minutes to delete, holding
 * its row locked against its own delivery workflow (seen in bench:webhooks). Every foreign key
 * whose parent rows an application role can delete, directly or by cascade, now has an index on
 * its columns; test/integration/foreign-key-indexes.test.ts keeps it so.
 */
export class Migration20261126100000DeletableForeignKeyIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index webhook_deliveries_by_endpoint on webhook_deliveries (organization_id, endpoint_id)`);
    this.addSql(`create index webhook_delivery_attempts_by_delivery on webhook_delivery_attempts (organization_id, delivery_id)`);
  }
}
