import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE } from './rls';

/**
 * D3's expiry job runs for every tenant; this is how it learns which tenants exist without
 * reading their rows: ids only, through one security-definer door.
 */
export class Migration20261121036000Expiry extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function tenant_ids() returns setof uuid
      language sql stable security definer set search_path = public as $$ select id from organizations order by id $$`);
    this.addSql(`revoke all on function tenant_ids() from public`);
    this.addSql(`grant execute on function tenant_ids() to ${APP_ROLE}`);
  }
}
