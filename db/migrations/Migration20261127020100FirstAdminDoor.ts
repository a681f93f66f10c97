import { Migration } from '@mikro-orm/migrations';
import { WORKER_ROLE } from './rls';

/**
 * D22: the worker reads no users (least privilege), so provisioning invites a workspace's first
 * ADMIN through one security-definer door instead of a grant on `users`: in the tenant selected,
 * unless it has an ADMIN (or a user with that email), it adds the invited ADMIN (not active, with
 * a password nobody knows) and answers the new id; otherwise the id of the one found.
 */
export class Migration20261127020100FirstAdminDoor extends Migration {
  override async up(): Promise<void> {
    this.addSql(`revoke all on users from ${WORKER_ROLE}`);
    this.addSql(`create function provision_first_admin(p_email text, p_password_hash text) returns table (id uuid, created boolean)
      language plpgsql volatile security definer set search_path = public as $$
        declare
          v_org uuid := app_current_organization();
        begin
          if v_org is null then
            raise exception 'provision_first_admin: no tenant selected';
          end if;
          return query select u.id, false from users u
            where u.organization_id = v_org and (u.role = 'ADMIN' or lower(u.email) = lower(p_email))
            order by u.created_at, u.id limit 1;
          if not found then
            return query insert into users as u (organization_id, email, full_name, role, password_hash, active)
              values (v_org, p_email, p_email, 'ADMIN', p_password_hash, false) returning u.id, true;
          end if;
        end
      $$`);
    this.addSql(`revoke all on function provision_first_admin(text, text) from public`);
    this.addSql(`grant execute on function provision_first_admin(text, text) to ${WORKER_ROLE}`);
  }
}
