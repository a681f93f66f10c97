import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The `integration_connections` table: each tenant's OAuth connection per provider. Tokens arrive
 * and leave here sealed (ciphertext and key id); sealing and opening them is the connection
 * store's (infra/integrations/connection-store.ts). Every function but `refreshTargetRows`
 * runs inside the connection's tenant transaction (db/tenant-scope.ts).
 */

export const CONNECTION_STATUSES = ['DISCONNECTED', 'CONNECTED', 'EXPIRED', 'ERROR'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** What may be shown about a connection: no ciphertext, only expiry times (2.3). */
export interface ConnectionRow<Provider extends string> {
  provider: Provider;
  status: ConnectionStatus;
  external_account_id: string | null;
  instance_url: string | null;
  scopes: string[];
  connected_at: Date | null;
  last_error: string | null;
  access_token_expires_at: Date | null;
  refresh_token_expires_at: Date | null;
  /** The last successful sync of the provider: a leg written, or a scheduled sync run finished (D18). */
  last_sync_at: Date | null;
}

export function listConnections<Provider extends string>(em: EntityManager): Promise<ConnectionRow<Provider>[]> {
  return em.execute<ConnectionRow<Provider>[]>(
    `select c.provider, c.status, c.external_account_id, c.instance_url, c.scopes, c.connected_at, c.last_error,
            c.access_token_expires_at, c.refresh_token_expires_at,
            greatest((select max(s.synced_at) from sync_records s where s.provider = c.provider),
                     (select max(r.finished_at) from provider_sync_runs r where r.provider = c.provider and r.error is null)) as last_sync_at
       from integration_connections c`,
  );
}

export interface SealedValue {
  ciphertext: string;
  keyId: string;
}

export interface ConnectedGrantRow {
  provider: string;
  externalAccountId: string;
  instanceUrl: string | null;
  scopes: readonly string[];
  /** Both sealed under the same key. */
  access: SealedValue;
  refresh: SealedValue;
  accessTokenExpiresAt: Date | null;
  refreshTokenExpiresAt: Date | null;
  connectedByUserId: string;
}

/** A completed consent: the connection is CONNECTED with these tokens, whatever it was before. */
export async function storeConnectedGrant(em: EntityManager, grant: ConnectedGrantRow): Promise<void> {
  await em.execute(
    `insert into integration_connections (organization_id, provider, status, external_account_id, instance_url, scopes,
        access_token_ciphertext, refresh_token_ciphertext, encryption_key_id, access_token_expires_at, refresh_token_expires_at,
        tokens_obtained_at, connected_by_user_id, connected_at, disconnected_at, last_error)
     values (app_current_organization(), ?, 'CONNECTED', ?, ?, coalesce(string_to_array(nullif(?, ''), ' '), '{}'), ?, ?, ?, ?, ?, now(), ?, now(), null, null)
     on conflict (organization_id, provider) do update set
        status = 'CONNECTED', external_account_id = excluded.external_account_id, instance_url = excluded.instance_url, scopes = excluded.scopes,
        access_token_ciphertext = excluded.access_token_ciphertext, refresh_token_ciphertext = excluded.refresh_token_ciphertext,
        encryption_key_id = excluded.encryption_key_id, access_token_expires_at = excluded.access_token_expires_at,
        refresh_token_expires_at = excluded.refresh_token_expires_at, tokens_obtained_at = now(),
        connected_by_user_id = excluded.connected_by_user_id, connected_at = now(), disconnected_at = null, last_error = null,
        updated_at = clock_timestamp()`,
    // OAuth scopes are space-delimited tokens by definition (RFC 6749 3.3).
    [
      grant.provider, grant.externalAccountId, grant.instanceUrl, grant.scopes.join(' '), grant.access.ciphertext, grant.refresh.ciphertext, grant.access.keyId,
      grant.accessTokenExpiresAt, grant.refreshTokenExpiresAt, grant.connectedByUserId,
    ],
  );
}

/** A connection's sealed credentials. */
export interface CredentialRow {
  status: ConnectionStatus;
  external_account_id: string | null;
  instance_url: string | null;
  access_token_ciphertext: string | null;
  refresh_token_ciphertext: string | null;
  encryption_key_id: string | null;
  access_token_expires_at: Date | string | null;
}

const CREDENTIAL_COLUMNS = `status, external_account_id, instance_url, access_token_ciphertext, refresh_token_ciphertext, encryption_key_id, access_token_expires_at`;

export async function readCredentials(em: EntityManager, provider: string): Promise<CredentialRow | undefined> {
  const [row] = await em.execute<CredentialRow[]>(`select ${CREDENTIAL_COLUMNS} from integration_connections where provider = ?`, [provider]);
  return row;
}

/** The credentials, the row locked until the transaction ends (one refresher at a time). */
export async function lockCredentials(em: EntityManager, provider: string): Promise<CredentialRow | undefined> {
  const [row] = await em.execute<CredentialRow[]>(`select ${CREDENTIAL_COLUMNS} from integration_connections where provider = ? for update`, [provider]);
  return row;
}

/** 3.3: DISCONNECTED with every credential erased; a second disconnect keeps the first time. */
export async function eraseConnection(em: EntityManager, provider: string): Promise<void> {
  await em.execute(
    `update integration_connections set status = 'DISCONNECTED', access_token_ciphertext = null, refresh_token_ciphertext = null,
        encryption_key_id = null, access_token_expires_at = null, refresh_token_expires_at = null, tokens_obtained_at = null,
        disconnected_at = case when status = 'DISCONNECTED' then disconnected_at else now() end, updated_at = clock_timestamp()
      where provider = ?`,
    [provider],
  );
}

export async function refreshScheduleRow(
  em: EntityManager,
  provider: string,
): Promise<{ status: ConnectionStatus; access_token_expires_at: Date | null; tokens_obtained_at: Date | null } | undefined> {
  const [row] = await em.execute<{ status: ConnectionStatus; access_token_expires_at: Date | null; tokens_obtained_at: Date | null }[]>(
    'select status, access_token_expires_at, tokens_obtained_at from integration_connections where provider = ?',
    [provider],
  );
  return row;
}

/** The provider refused the refresh grant: EXPIRED with the reason, credentials erased. */
export async function markConnectionExpired(em: EntityManager, provider: string, lastError: string): Promise<void> {
  await em.execute(
    `update integration_connections set status = 'EXPIRED', last_error = ?, access_token_ciphertext = null, refresh_token_ciphertext = null,
        encryption_key_id = null, tokens_obtained_at = null, updated_at = clock_timestamp() where provider = ?`,
    [lastError, provider],
  );
}

/** A refresh succeeded: CONNECTED with the new tokens (a refresh token expiry not sent keeps the old one). */
export async function storeRefreshedTokens(
  em: EntityManager,
  provider: string,
  tokens: { access: SealedValue; refresh: SealedValue; accessTokenExpiresAt: Date | null; refreshTokenExpiresAt: Date | null | undefined },
): Promise<void> {
  await em.execute(
    `update integration_connections set status = 'CONNECTED', last_error = null, access_token_ciphertext = ?, refresh_token_ciphertext = ?,
        encryption_key_id = ?, access_token_expires_at = ?, refresh_token_expires_at = coalesce(?, refresh_token_expires_at),
        tokens_obtained_at = now(), updated_at = clock_timestamp()
      where provider = ?`,
    [tokens.access.ciphertext, tokens.refresh.ciphertext, tokens.access.keyId, tokens.accessTokenExpiresAt, tokens.refreshTokenExpiresAt, provider],
  );
}

/** Refreshing kept failing: ERROR with the reason; the credentials stay for a later attempt. */
export async function markConnectionError(em: EntityManager, provider: string, lastError: string): Promise<void> {
  await em.execute(`update integration_connections set status = 'ERROR', last_error = ?, updated_at = clock_timestamp() where provider = ? and status in ('CONNECTED', 'ERROR')`, [
    lastError,
    provider,
  ]);
}

/**
 * Every usable connection of every tenant, as (tenant, provider) only, through the one
 * security-definer door of the migration; no credential is reachable that way.
 */
export function refreshTargetRows<Provider extends string>(em: EntityManager): Promise<{ organization_id: string; provider: Provider }[]> {
  return em.execute<{ organization_id: string; provider: Provider }[]>('select organization_id, provider from integration_refresh_targets()');
}
