import { Migration } from '@mikro-orm/migrations';
import { WORKER_ROLE } from './rls';

/**
 * D22 with D20: a new workspace's first ADMIN gets a real invitation. Provisioning (the worker,
 * which reads no users) makes that ADMIN not active and with a password nobody knows; this one
 * narrow door then marks them invited (no password at all) and stores their invitation's token
 * hash, voiding any earlier one, in the tenant selected. It acts only on an ADMIN who never
 * signed in and is not active, so it cannot take over an account in use; it answers whom to mail.
 */
export class Migration20261127010100FirstAdminInvitation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function issue_first_admin_invitation(p_email text, p_token_hash text, p_expires_at timestamptz)
      returns table (user_id uuid, email text, full_name text, workspace_name text)
      language plpgsql volatile security definer set search_path = public as $$
        declare
          v_org uuid := app_current_organization();
          v_user users%rowtype;
        begin
          if v_org is null then
            raise exception 'issue_first_admin_invitation: no tenant selected';
          end if;
          select * into v_user from users u
            where u.organization_id = v_org and lower(u.email) = lower(p_email) and u.role = 'ADMIN' and not u.active and u.last_login_at is null
            for update;
          if not found then
            return;
          end if;
          update users set invited = true, password_hash = null where id = v_user.id;
          update user_tokens set voided_at = now() where user_tokens.user_id = v_user.id and purpose = 'invitation' and used_at is null and voided_at is null;
          insert into user_tokens (organization_id, user_id, purpose, token_hash, expires_at) values (v_org, v_user.id, 'invitation', p_token_hash, p_expires_at);
          return query select v_user.id, v_user.email, v_user.full_name, o.name from organizations o where o.id = v_org;
        end
      $$`);
    this.addSql(`revoke all on function issue_first_admin_invitation(text, text, timestamptz) from public`);
    this.addSql(`grant execute on function issue_first_admin_invitation(text, text, timestamptz) to ${WORKER_ROLE}`);
  }
}
