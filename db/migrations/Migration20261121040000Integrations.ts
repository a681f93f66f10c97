import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, tenantTableSql } from './rls';

/**
 * Integrations (section 4.5, 3.3; D7, D9): each tenant's OAuth connection per provider, with its
 * tokens encrypted (api/security/credential-cipher.ts), and the single-use nonces of the signed
 * OAuth `state`. Sync rows stay in sync_records.
 */
export class Migration20261121040000Integrations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table integration_connections (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      provider text not null check (provider in ('ACCOUNTING', 'CRM')),
      status text not null check (status in ('DISCONNECTED', 'CONNECTED', 'EXPIRED', 'ERROR')),
      external_account_id text null check (length(external_account_id) <= 200),
      instance_url text null check (length(instance_url) <= 2000),
      scopes text[] not null default '{}',
      access_token_ciphertext text null,
      refresh_token_ciphertext text null,
      encryption_key_id text null,
      access_token_expires_at timestamptz null,
      refresh_token_expires_at timestamptz null,
      tokens_obtained_at timestamptz null,
      connected_by_user_id uuid null,
      connected_at timestamptz null,
      disconnected_at timestamptz null,
      last_error text null check (length(last_error) <= 2000),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default clock_timestamp(),
      unique (organization_id, provider),
      foreign key (organization_id, connected_by_user_id) references users (organization_id, id),
      -- Credentials exist exactly while the connection may still be used: CONNECTED, or ERROR
      -- (a refresh kept failing but may yet succeed). Disconnecting or expiring erases them.
      constraint integration_connections_credentials check (
        (status in ('CONNECTED', 'ERROR')) = (access_token_ciphertext is not null and refresh_token_ciphertext is not null and encryption_key_id is not null)
      )
    )`);
    // Connections are never deleted (3.3: a disconnected one keeps its row and its sync rows).
    for (const sql of tenantTableSql('integration_connections', 'select, insert, update')) this.addSql(sql);

    // The nonce named by a signed OAuth state; consumed once by the callback.
    this.addSql(`create table integration_oauth_states (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations(id),
      provider text not null check (provider in ('ACCOUNTING', 'CRM')),
      user_id uuid not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      consumed_at timestamptz null,
      foreign key (organization_id, user_id) references users (organization_id, id)
    )`);
    this.addSql(`create index integration_oauth_states_expiry on integration_oauth_states (organization_id, expires_at)`);
    for (const sql of tenantTableSql('integration_oauth_states')) this.addSql(sql);

    // The worker makes sure every usable connection has its refresh workflow (a start the API
    // could not make, Temporal being down, is made up for). This door answers only which
    // (tenant, provider) pairs: never a token, never another column.
    this.addSql(`create function integration_refresh_targets()
      returns table (organization_id uuid, provider text)
      language sql stable security definer set search_path = public as $$
        select c.organization_id, c.provider from integration_connections c where c.status in ('CONNECTED', 'ERROR')
      $$`);
    this.addSql(`revoke all on function integration_refresh_targets() from public`);
    this.addSql(`grant execute on function integration_refresh_targets() to ${APP_ROLE}`);
  }
}
