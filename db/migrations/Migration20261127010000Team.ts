import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, tenantTableSql } from './rls';

/**
 * The team (D20).
 * - `users.invited`: an invited user who has not accepted yet (status `invited`); they cannot
 *   log in (`active` is false) and have no password until they accept (`password_hash` null).
 * - `users.token_version`: written into every access token; a password change or reset raises
 *   it, and the bearer guard refuses a token of an earlier version (read on every request, as the
 *   role already is).
 * - `user_tokens`: single-use invitation and password-reset tokens, stored as the SHA-256 of the
 *   random token (never the token), with their expiry; a newer one voids the older, and one is
 *   consumed by one UPDATE ... WHERE used_at IS NULL.
 * - `user_token_tenant`: accepting an invitation or confirming a reset names no workspace, so
 *   the tenant of a token hash is found through this one narrow door (like resolve_workspace).
 * - `crew_members.joined_at` and a nullable foreman: deactivating a technician hands their
 *   crews to the longest-serving member, or to no one when none is left.
 * - The API now inserts users (invitations).
 */
export class Migration20261127010000Team extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table users add column invited boolean not null default false`);
    this.addSql(`alter table users add column token_version integer not null default 0`);
    this.addSql(`alter table users alter column password_hash drop not null`);
    this.addSql(`alter table users add constraint users_invited_inactive check (not (invited and active))`);
    this.addSql(`grant insert on users to ${APP_ROLE}`);

    this.addSql(`create table user_tokens (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      user_id uuid not null,
      purpose text not null check (purpose in ('invitation', 'password_reset')),
      token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz null,
      voided_at timestamptz null,
      foreign key (organization_id, user_id) references users (organization_id, id)
    )`);
    this.addSql(`create index user_tokens_open on user_tokens (organization_id, user_id, purpose) where used_at is null and voided_at is null`);
    for (const sql of tenantTableSql('user_tokens', 'select, insert, update')) this.addSql(sql);

    this.addSql(`create function user_token_tenant(p_token_hash text) returns uuid
      language sql stable security definer set search_path = public as
      $$ select organization_id from user_tokens where token_hash = p_token_hash $$`);
    this.addSql(`revoke all on function user_token_tenant(text) from public`);
    this.addSql(`grant execute on function user_token_tenant(text) to ${APP_ROLE}`);

    this.addSql(`alter table crew_members add column joined_at timestamptz not null default now()`);
    this.addSql(`alter table crews alter column foreman_user_id drop not null`);
  }
}
