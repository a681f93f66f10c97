import { recordAuditEvent } from '../../db/audit/audit-events';
import type { AuditEntry } from '../../domain/audit/audit-entry';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import type { CredentialCipher } from '../../db/security/credential-cipher';
import {
  eraseConnection,
  listConnections,
  lockCredentials,
  markConnectionError,
  markConnectionExpired,
  readCredentials,
  refreshScheduleRow,
  refreshTargetRows,
  storeConnectedGrant,
  storeRefreshedTokens,
  type ConnectionStatus,
  type CredentialRow,
} from '../../db/integrations/connections';
import { OAuthRefusal, type ConnectedGrant, type OAuthProvider, type OAuthProviderName } from './providers/oauth-provider';
import { iso } from '../../domain/timestamps';


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
    const rows = await inTenant(this.em, organizationId, (tx) => listConnections<OAuthProviderName>(tx));
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
  /** Stores the grant and, in the same transaction, the audit event of the connection (D22: never a token). */
  async storeGrant(ref: ConnectionRef & { userId: string }, grant: ConnectedGrant, audit?: AuditEntry): Promise<void> {
    const cipher = this.requireCipher();
    const access = cipher.encrypt(grant.accessToken, context(ref, 'access_token'));
    const refresh = cipher.encrypt(grant.refreshToken, context(ref, 'refresh_token'));
    await inTenant(this.em, ref.organizationId, async (tx) => {
      await storeConnectedGrant(tx, {
        provider: ref.provider,
        externalAccountId: grant.externalAccountId,
        instanceUrl: grant.instanceUrl,
        scopes: grant.scopes,
        access,
        refresh,
        accessTokenExpiresAt: grant.accessTokenExpiresAt,
        refreshTokenExpiresAt: grant.refreshTokenExpiresAt,
        connectedByUserId: ref.userId,
      });
      if (audit) await recordAuditEvent(tx, ref.organizationId, audit);
    });
  }

  /**
   * 3.3: any connection becomes DISCONNECTED with its credentials erased; sync rows are kept.
   * Idempotent. Answers the refresh token it erased (if it could still be read) so the caller
   * can revoke it at the provider.
   */
  async disconnect(ref: ConnectionRef, audit?: Omit<AuditEntry, 'changes'>): Promise<{ refreshToken: string | undefined }> {
    return inTenant(this.em, ref.organizationId, async (tx) => {
      const row = await lockCredentials(tx, ref.provider);
      if (!row) return { refreshToken: undefined };
      if (audit && row.status !== 'DISCONNECTED') await recordAuditEvent(tx, ref.organizationId, { ...audit, changes: [{ field: 'status', before: row.status, after: 'DISCONNECTED' }] });
      let refreshToken: string | undefined;
      try {
        refreshToken = row.refresh_token_ciphertext && row.encryption_key_id && this.cipher
          ? this.cipher.decrypt({ ciphertext: row.refresh_token_ciphertext, keyId: row.encryption_key_id }, context(ref, 'refresh_token'))
          : undefined;
      } catch {
        // An unreadable credential is erased all the same; there is just nothing to revoke.
        refreshToken = undefined;
      }
      await eraseConnection(tx, ref.provider);
      return { refreshToken };
    });
  }

  /** When the refresh workflow should next act (no credential leaves the database). */
  async schedule(ref: ConnectionRef): Promise<RefreshSchedule> {
    const row = await inTenant(this.em, ref.organizationId, (tx) => refreshScheduleRow(tx, ref.provider));
    return { status: row?.status ?? null, accessTokenExpiresAt: dateOrNull(row?.access_token_expires_at ?? null), tokensObtainedAt: dateOrNull(row?.tokens_obtained_at ?? null) };
  }

  /** The decrypted credentials of a usable (CONNECTED or ERROR) connection, else undefined. */
  async session(ref: ConnectionRef): Promise<ProviderSession | undefined> {
    const row = await inTenant(this.em, ref.organizationId, (tx) => readCredentials(tx, ref.provider));
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
      const row = await lockCredentials(tx, ref.provider);
      if (!row || !USABLE.has(row.status)) return { outcome: 'not_connected', status: row?.status ?? null };
      const current = this.sessionOf(ref, row);
      if (options.unlessChangedFrom !== undefined && current.accessToken !== options.unlessChangedFrom) return { outcome: 'current', session: current };
      const refreshToken = cipher.decrypt({ ciphertext: row.refresh_token_ciphertext!, keyId: row.encryption_key_id! }, context(ref, 'refresh_token'));

      let grant;
      try {
        grant = await provider.refresh(refreshToken);
      } catch (error) {
        if (error instanceof OAuthRefusal && error.grantInvalid) {
          await markConnectionExpired(tx, ref.provider, error.message.slice(0, 2000));
          return { outcome: 'expired', lastError: error.message };
        }
        throw error;
      }
      // Both values are written under the current key, so a key rotation completes itself.
      const access = cipher.encrypt(grant.accessToken, context(ref, 'access_token'));
      const refresh = cipher.encrypt(grant.refreshToken ?? refreshToken, context(ref, 'refresh_token'));
      await storeRefreshedTokens(tx, ref.provider, { access, refresh, accessTokenExpiresAt: grant.accessTokenExpiresAt, refreshTokenExpiresAt: grant.refreshTokenExpiresAt });
      return {
        outcome: 'refreshed',
        session: { ...current, status: 'CONNECTED', accessToken: grant.accessToken, accessTokenExpiresAt: grant.accessTokenExpiresAt },
      };
    });
  }

  /** Refreshing kept failing: ERROR with the reason; the credentials stay for a later attempt. */
  async markError(ref: ConnectionRef, lastError: string): Promise<void> {
    await inTenant(this.em, ref.organizationId, (tx) => markConnectionError(tx, ref.provider, lastError.slice(0, 2000)));
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

/** Associated data of each sealed value: which tenant, provider and field it belongs to. */
const context = (ref: ConnectionRef, field: 'access_token' | 'refresh_token') => `integration_connections/${ref.organizationId}/${ref.provider}/${field}`;

/**
 * Every usable connection of every tenant, as (tenant, provider) only: the worker's start-up
 * reconciliation of refresh workflows. Goes through the one security-definer door of the
 * migration; no credential is reachable that way.
 */
export async function refreshTargets(em: EntityManager): Promise<{ organizationId: string; provider: OAuthProviderName }[]> {
  const rows = await refreshTargetRows<OAuthProviderName>(em.fork());
  return rows.map((row) => ({ organizationId: row.organization_id, provider: row.provider }));
}
