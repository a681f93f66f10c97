import { Migration } from '@mikro-orm/migrations';
import { WORKER_ROLE } from './rls';

/**
 * D13, the formats part:
 * - an endpoint's `format` (`core`, `field`, `events`), fixed at registration (the PATCH of D6
 *   does not accept it), and the version an `events` endpoint pins
 *   at registration (D16), answered as its envelope's `apiVersion`;
 * - the worker records `invoice.generated` when the payments leg finalises an invoice (D13), in
 *   the transaction that records the leg's success: it may insert into the outbox.
 */
export class Migration20261124120000WebhookFormats extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table webhook_endpoints add column format text not null default 'core' check (format in ('core', 'field', 'events'))`);
    this.addSql(`alter table webhook_endpoints add column if not exists api_version text null check (api_version is null or api_version ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')`);
    this.addSql(`grant insert on outbox_events to ${WORKER_ROLE}`);
  }
}
