import { Migration } from '@mikro-orm/migrations';
import { WORKER_ROLE } from './rls';

/**
 * The worker's per-tenant metrics carry the tenant's subdomain beside its id (an operator reads
 * `sandbox`, not a uuid): every tenant's id and subdomain through one more security-definer door
 * of the worker's, names only, as `operations_metrics()` answers counts only. A label bounded by
 * the tenant count, as `organization_id` is.
 */
export class Migration20261128180200TenantSubdomainsDoor extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function tenant_subdomains() returns table (organization_id uuid, subdomain text)
      language sql stable security definer set search_path = public as $$ select id, subdomain from organizations $$`);
    this.addSql(`revoke all on function tenant_subdomains() from public`);
    this.addSql(`grant execute on function tenant_subdomains() to ${WORKER_ROLE}`);
  }
}
