import { Migration } from '@mikro-orm/migrations';
import { WEBHOOK_ENDPOINTS_PER_TENANT, WEBHOOK_ENDPOINT_LIMIT_CONSTRAINT } from '../limits';

/**
 * A bounded number of webhook endpoints per tenant, as a rule of the data. Inserts of
 * one tenant take a transaction lock of that tenant first, so concurrent registrations are
 * counted one after the other and cannot pass the limit together.
 */
export class Migration20261122010000WebhookEndpointLimit extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function webhook_endpoints_within_limit() returns trigger language plpgsql as $$
      begin
        perform pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || new.organization_id::text, 0));
        if (select count(*) from webhook_endpoints where organization_id = new.organization_id) >= ${WEBHOOK_ENDPOINTS_PER_TENANT} then
          raise exception 'a workspace may have at most ${WEBHOOK_ENDPOINTS_PER_TENANT} webhook endpoints'
            using errcode = 'check_violation', constraint = '${WEBHOOK_ENDPOINT_LIMIT_CONSTRAINT}';
        end if;
        return new;
      end
    $$`);
    this.addSql(`create trigger webhook_endpoints_limit before insert on webhook_endpoints for each row execute function webhook_endpoints_within_limit()`);
  }
}
