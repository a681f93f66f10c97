import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, tenantTableSql } from './rls';

/**
 * Foundation: the application role, the tenant setting, organizations, users, and the shared
 * rate-limit counters. The application role owns nothing and cannot bypass row-level security;
 * the migrating role (the database owner) keeps ownership of every object.
 */
export class Migration20261121000000Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create extension if not exists pgcrypto`);
    this.addSql(`do $$ begin
      if not exists (select 1 from pg_roles where rolname = '${APP_ROLE}') then
        create role ${APP_ROLE} nologin nosuperuser nocreatedb nocreaterole noinherit nobypassrls;
      end if;
    end $$`);
    this.addSql(`alter role ${APP_ROLE} nosuperuser nocreatedb nocreaterole nobypassrls`);
    this.addSql(`grant usage on schema public to ${APP_ROLE}`);

    this.addSql(`create function app_current_organization() returns uuid language sql stable as
      $$ select nullif(current_setting('app.organization_id', true), '')::uuid $$`);

    this.addSql(`create table organizations (
      id uuid primary key default gen_random_uuid(),
      created_at timestamptz not null default now(),
      name text not null check (length(name) between 1 and 200),
      subdomain text not null unique check (subdomain ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
      quote_validity_days integer not null default 30 check (quote_validity_days > 0)
    )`);
    // A tenant sees only its own organization row.
    this.addSql(`alter table organizations enable row level security`);
    this.addSql(`create policy tenant_isolation on organizations using (id = app_current_organization())`);
    this.addSql(`grant select on organizations to ${APP_ROLE}`);
    // Login must turn a workspace name into a tenant before any tenant is selected; this is the
    // one narrow door for that, and it answers nothing but the id.
    this.addSql(`create function resolve_workspace(p_subdomain text) returns uuid
      language sql stable security definer set search_path = public as
      $$ select id from organizations where subdomain = p_subdomain $$`);
    this.addSql(`revoke all on function resolve_workspace(text) from public`);
    this.addSql(`grant execute on function resolve_workspace(text) to ${APP_ROLE}`);

    this.addSql(`create table users (
      id uuid primary key default gen_random_uuid(),
      created_at timestamptz not null default now(),
      organization_id uuid not null references organizations(id),
      email text not null check (length(email) between 3 and 320),
      full_name text not null,
      role text not null check (role in ('ADMIN', 'SALES', 'TECHNICIAN')),
      password_hash text not null,
      active boolean not null default true,
      last_login_at timestamptz null
    )`);
    this.addSql(`create unique index users_org_email_unique on users (organization_id, lower(email))`);
    for (const sql of tenantTableSql('users')) this.addSql(sql);

    // Counters of rate-limiter-flexible's PostgreSQL store (its own schema), shared by every
    // API process so that limits hold across instances. Not tenant data.
    this.addSql(`create table rate_limits (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint
    )`);
    this.addSql(`grant select, insert, update, delete on rate_limits to ${APP_ROLE}`);
  }
}
