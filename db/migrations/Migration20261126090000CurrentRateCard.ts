import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE } from './rls';

/**
 * A calculate that is not persisted reads only which rate card revision is current, and
 * that read cost four round trips (begin, app_enter_tenant, the select, commit). This function
 * does it as one statement in its own implicit transaction: it selects the tenant exactly as
 * app_enter_tenant does (transaction-locally, stamped), so the select under it still sees only
 * that tenant's rows by row-level security, and the setting ends with the statement.
 * Security invoker: it reads with the caller's role and policies. It refuses to run inside a
 * transaction that has already selected a tenant, where it would switch the tenant for the rest
 * of that transaction.
 */
export class Migration20261126090000CurrentRateCard extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function app_current_rate_card_revision(p_organization_id uuid) returns uuid language plpgsql volatile as $$
      begin
        if app_current_organization() is not null then
          raise exception 'app_current_rate_card_revision selects its own tenant: call it outside a tenant transaction';
        end if;
        perform app_enter_tenant(p_organization_id);
        return (select id from rate_card_revisions order by revision desc limit 1);
      end
    $$`);
    this.addSql(`revoke all on function app_current_rate_card_revision(uuid) from public`);
    this.addSql(`grant execute on function app_current_rate_card_revision(uuid) to ${APP_ROLE}`);
  }
}
