import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import type { CredentialCipher } from '../../db/security/credential-cipher';
import { OAuthRefusal, type ConnectedGrant, type OAuthProvider, type OAuthProviderName } from './providers/oauth-provider';

export const CONNECTION_STATUSES = ['DISCONNECTED', 'CONNECTED', 'EXPIRED', 'ERROR'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export interface ConnectionRef {
  organizationId: string;
  provider: OAuthProviderName;
}

/** What may be shown about a connection: no token, no ciphertext, only expiry times (2.3). */
export interface ConnectionView {
  status: ConnectionStatus;
  external_account_id: string | null;
  instance_url: string | null;
  scopes: string[];
  connected_at: string | null;
  last_sync_at: string | null;
  last_error: string | null;
  access_token_expires_at: string | null;
  refresh_token_expires_at: string | null;
}

/** A usable connection's credentials, decrypted, for one activity's provider calls. */
export interface ProviderSession extends ConnectionRef {
  status: 'CONNECTED' | 'ERROR';
  accessToken: string;
  externalAccountId: string;
  instanceUrl: string | null;
  accessTokenExpiresAt: Date | null;
}

export type RefreshOutcome =
  | { outcome: 'refreshed' | 'current'; session: ProviderSession }
  | { outcome: 'expired'; lastError: string }
  | { outcome: 'not_connected'; status: ConnectionStatus | null };

export interface RefreshSchedule {
  status: ConnectionStatus | null;
  accessTokenExpiresAt: Date | null;
  tokensObtainedAt: Date | null;
}

interface CredentialRow {
  status: ConnectionStatus;
  external_account_id: string | null;
  instance_url: string | null;
  access_token_ciphertext: string | null;
  refresh_token_ciphertext: string | null;
  encryption_key_id: string | null;
  access_token_expires_at: Date | string | null;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
const dateOrNull = (value: Date | string | null) => (value === null ? null : new Date(value));
const USABLE = new Set<ConnectionStatus>(['CONNECTED', 'ERROR']);

export class CredentialsUnavailableError extends Error {}

/**
 * integration_connections: each tenant's OAuth connection per provider. Tokens go in and out
 * only through here, encrypted under the credential key with the tenant, provider and field
 * bound in (a ciphertext moved to another row does not decrypt).
 */
export class IntegrationConnections {
  constructor(
    private readonly em: EntityManager,
    private readonly cipher: CredentialCipher | undefined,
  ) {}

  /** The caller's connections, keyed by provider; last_sync_at comes from the sync log. */
  async views(organizationId: string): Promise<Map<OAuthProviderName, ConnectionView>> {
    const rows = await inTenant(this.em, organizationId, (tx) =>
      tx.execute<(Omit<ConnectionView, 'connected_at' | 'last_sync_at' | 'access_token_expires_at' | 'refresh_token_expires_at'> & {
        provider: OAuthProviderName;
        connected_at: Date | null;
        last_sync_at: Date | null;
        access_token_expires_at: Date | null;
        refresh_token_expires_at: Date | null;
      })[]>(
        `select c.provider, c.status, c.external_account_id, c.instance_url, c.scopes, c.connected_at, c.last_error,
                c.access_token_expires_at, c.refresh_token_expires_at,
                (select max(s.synced_at) from sync_records s where s.provider = c.provider) as last_sync_at
           from integration_connections c`,
      ),
    );
    return new Map(
      rows.map((row) => [
        row.provider,
        {
          status: row.status,
          external_account_id: row.external_account_id,
          instance_url: row.instance_url,
          scopes: row.scopes ?? [],
          connected_at: iso(row.connected_at),
          last_sync_at: iso(row.last_sync_at),
          last_error: row.last_error,
          access_token_expires_at: iso(row.access_token_expires_at),
          refresh_token_expires_at: iso(row.refresh_token_expires_at),
        },
      ]),
    );
  }

  /** A completed consent: the connection is CONNECTED with these tokens, whatever it was before. */
  async storeGrant(ref: ConnectionRef & { userId: string }, grant: ConnectedGrant): Promise<void> {
    const cipher = this.requireCipher();
    const access = cipher.encrypt(grant.accessToken, context(ref, 'access_token'));
    const refresh = cipher.encrypt(grant.refreshToken, context(ref, 'refresh_token'));
    await inTenant(this.em, ref.organizationId, (tx) =>
      tx.execute(
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
        [ref.provider, grant.externalAccountId, grant.instanceUrl, grant.scopes.join(' '), access.ciphertext, refresh.ciphertext, access.keyId, grant.accessTokenExpiresAt, grant.refreshTokenExpiresAt, ref.userId],
      ),
    );
  }

  /**
   * 3.3: any connection becomes DISCONNECTED with its credentials erased; sync rows are kept.
   * Idempotent. Answers the refresh token it erased (if it could still be read) so the caller
   * can revoke it at the provider.
   */
  async disconnect(ref: ConnectionRef): Promise<{ refreshToken: string | undefined }> {
    return inTenant(this.em, ref.organizationId, async (tx) => {
      const [row] = await tx.execute<CredentialRow[]>(`select ${CREDENTIAL_COLUMNS} from integration_connections where provider = ? for update`, [ref.provider]);
      if (!row) return { refreshToken: undefined };
      let refreshToken: string | undefined;
      try {
        refreshToken = row.refresh_token_ciphertext && row.encryption_key_id && this.cipher
          ? this.cipher.decrypt({ ciphertext: row.refresh_token_ciphertext, keyId: row.encryption_key_id }, context(ref, 'refresh_token'))
          : undefined;
      } catch {
        // An unreadable credential is erased all the same; there is just nothing to revoke.
        refreshToken = undefined;
      }
      await tx.execute(
        `update integration_connections set status = 'DISCONNECTED', access_token_ciphertext = null, refresh_token_ciphertext = null,
            encryption_key_id = null, access_token_expires_at = null, refresh_token_expires_at = null, tokens_obtained_at = null,
            disconnected_at = case when status = 'DISCONNECTED' then disconnected_at else now() end, updated_at = clock_timestamp()
          where provider = ?`,
        [ref.provider],
      );
      return { refreshToken };
    });
  }

  /** When the refresh workflow should next act (no credential leaves the database). */
  async schedule(ref: ConnectionRef): Promise<RefreshSchedule> {
    const [row] = await inTenant(this.em, ref.organizationId, (tx) =>
      tx.execute<{ status: ConnectionStatus; access_token_expires_at: Date | null; tokens_obtained_at: Date | null }[]>(
        'select status, access_token_expires_at, tokens_obtained_at from integration_connections where provider = ?',
        [ref.provider],
      ),
    );
    return { status: row?.status ?? null, accessTokenExpiresAt: dateOrNull(row?.access_token_expires_at ?? null), tokensObtainedAt: dateOrNull(row?.tokens_obtained_at ?? null) };
  }

  /** The decrypted credentials of a usable (CONNECTED or ERROR) connection, else undefined. */
  async session(ref: ConnectionRef): Promise<ProviderSession | undefined> {
    const [row] = await inTenant(this.em, ref.organizationId, (tx) =>
      tx.execute<CredentialRow[]>(`select ${CREDENTIAL_COLUMNS} from integration_connections where provider = ?`, [ref.provider]),
    );
    return row && USABLE.has(row.status) ? this.sessionOf(ref, row) : undefined;
  }

  /**
   * Refreshes under a row lock, so that two refreshers (the workflow, an activity that met a
   * 401) never present the same rotating refresh token twice: the second waits, then finds the
   * tokens already changed. The rotated refresh token is written in the same transaction that
   * read the old one. With `unlessChangedFrom`, a refresh happens only if the stored access
   * token is still that one (someone else may have refreshed meanwhile).
   *
   * invalid_grant (revoked, expired or already-used refresh token) makes the connection EXPIRED
   * with last_error and erases its credentials. Other failures are thrown and change nothing.
   */
  async refresh(ref: ConnectionRef, provider: OAuthProvider, options: { unlessChangedFrom?: string } = {}): Promise<RefreshOutcome> {
    const cipher = this.requireCipher();
    return inTenant(this.em, ref.organizationId, async (tx) => {
      const [row] = await tx.execute<CredentialRow[]>(`select ${CREDENTIAL_COLUMNS} from integration_connections where provider = ? for update`, [ref.provider]);
      if (!row || !USABLE.has(row.status)) return { outcome: 'not_connected', status: row?.status ?? null };
      const current = this.sessionOf(ref, row);
      if (options.unlessChangedFrom !== undefined && current.accessToken !== options.unlessChangedFrom) return { outcome: 'current', session: current };
      const refreshToken = cipher.decrypt({ ciphertext: row.refresh_token_ciphertext!, keyId: row.encryption_key_id! }, context(ref, 'refresh_token'));

      let grant;
      try {
        grant = await provider.refresh(refreshToken);
      } catch (error) {
        if (error instanceof OAuthRefusal && error.grantInvalid) {
          await tx.execute(
            `update integration_connections set status = 'EXPIRED', last_error = ?, access_token_ciphertext = null, refresh_token_ciphertext = null,
                encryption_key_id = null, tokens_obtained_at = null, updated_at = clock_timestamp() where provider = ?`,
            [error.message.slice(0, 2000), ref.provider],
          );
          return { outcome: 'expired', lastError: error.message };
        }
        throw error;
      }
      // Both values are written under the current key, so a key rotation completes itself.
      const access = cipher.encrypt(grant.accessToken, context(ref, 'access_token'));
      const refresh = cipher.encrypt(grant.refreshToken ?? refreshToken, context(ref, 'refresh_token'));
      await tx.execute(
        `update integration_connections set status = 'CONNECTED', last_error = null, access_token_ciphertext = ?, refresh_token_ciphertext = ?,
            encryption_key_id = ?, access_token_expires_at = ?, refresh_token_expires_at = coalesce(?, refresh_token_expires_at),
            tokens_obtained_at = now(), updated_at = clock_timestamp()
          where provider = ?`,
        [access.ciphertext, refresh.ciphertext, access.keyId, grant.accessTokenExpiresAt, grant.refreshTokenExpiresAt, ref.provider],
      );
      return {
        outcome: 'refreshed',
        session: { ...current, status: 'CONNECTED', accessToken: grant.accessToken, accessTokenExpiresAt: grant.accessTokenExpiresAt },
      };
    });
  }

  /** Refreshing kept failing: ERROR with the reason; the credentials stay for a later attempt. */
  async markError(ref: ConnectionRef, lastError: string): Promise<void> {
    await inTenant(this.em, ref.organizationId, (tx) =>
      tx.execute(`update integration_connections set status = 'ERROR', last_error = ?, updated_at = clock_timestamp() where provider = ? and status in ('CONNECTED', 'ERROR')`, [
        lastError.slice(0, 2000),
        ref.provider,
      ]),
    );
  }

  private sessionOf(ref: ConnectionRef, row: CredentialRow): ProviderSession {
    const cipher = this.requireCipher();
    return {
      ...ref,
      status: row.status as ProviderSession['status'],
      accessToken: cipher.decrypt({ ciphertext: row.access_token_ciphertext!, keyId: row.encryption_key_id! }, context(ref, 'access_token')),
      externalAccountId: row.external_account_id ?? '',
      instanceUrl: row.instance_url,
      accessTokenExpiresAt: dateOrNull(row.access_token_expires_at),
    };
  }

  private requireCipher(): CredentialCipher {
    if (!this.cipher) throw new CredentialsUnavailableError('CREDENTIAL_ENCRYPTION_KEY is not set');
    return this.cipher;
  }
}

const CREDENTIAL_COLUMNS = `status, external_account_id, instance_url, access_token_ciphertext, refresh_token_ciphertext, encryption_key_id, access_token_expires_at`;

/** Associated data of each sealed value: which tenant, provider and field it belongs to. */
const context = (ref: ConnectionRef, field: 'access_token' | 'refresh_token') => `integration_connections/${ref.organizationId}/${ref.provider}/${field}`;

/**
 * Every usable connection of every tenant, as (tenant, provider) only: the worker's start-up
 * reconciliation of refresh workflows. Goes through the one security-definer door of the
 * migration; no credential is reachable that way.
 */
export async function refreshTargets(em: EntityManager): Promise<{ organizationId: string; provider: OAuthProviderName }[]> {
  const rows = await em.fork().execute<{ organization_id: string; provider: OAuthProviderName }[]>('select organization_id, provider from integration_refresh_targets()');
  return rows.map((row) => ({ organizationId: row.organization_id, provider: row.provider }));
}
