import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { inTenant } from '../../db/tenant-scope';
import { userForAuthentication } from '../../db/users';
import type { Settings } from '../../infra/runtime/settings';
import { badRequest, validationFailed } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import { cursorPosition } from '../http/pagination';
import { pageOf } from '../../db/cursor';
import { SYNC_RECORD_KEYSET, syncRecordPage } from '../../db/sync-records';
import { SYNC_RUN_KEYSET, syncRunPage } from '../../db/provider-sync/provider-sync';
import { CONNECTORS, missingSettings, readinessOf, type ProviderSlug } from '../../infra/integrations/connectors';
import type { IntegrationWorkflows } from '../../infra/temporal/integration-workflows';
import { IntegrationConnections, type ConnectionView } from '../../infra/integrations/connection-store';
import { OAuthNonces, OAuthStates, STATE_TTL_SECONDS } from './oauth-state';
import { OAuthRefusal, providerOfSlug, type OAuthProvider, type OAuthProviderName } from '../../infra/integrations/providers/oauth-provider';
import type { OAuthProviders } from '../../infra/integrations/providers';
import type { CallbackOutcome } from './callback-page';
import type { CallbackQuery, IntegrationEntry, SyncListQuery, SyncRecord, SyncRun, SyncRunListQuery } from './schemas';
import { withDeadline } from '../../infra/runtime/deadline';
import { iso } from '../../domain/timestamps';

export interface IntegrationServiceDeps {
  em: EntityManager;
  settings: Settings;
  providers: OAuthProviders;
  connections: IntegrationConnections;
  /** Starts and wakes the refresh workflow; without it the worker's reconciler starts it later. */
  workflows?: IntegrationWorkflows | undefined;
}

/** A provider call made while a person waits: bounded, whatever the library does. */
const EXCHANGE_TIMEOUT_MS = 20_000;
const REVOKE_TIMEOUT_MS = 5_000;

/** Section 4.5 (except the payments webhook), 3.3 and D9, for the caller's tenant. */
export class IntegrationService {
  private readonly states: OAuthStates;
  private readonly nonces: OAuthNonces;

  constructor(private readonly deps: IntegrationServiceDeps) {
    this.states = new OAuthStates(deps.settings.AUTH_TOKEN_SECRET);
    this.nonces = new OAuthNonces(deps.em);
  }

  /** One entry per provider in registry order, connected or not. */
  async list(caller: Caller): Promise<{ data: IntegrationEntry[] }> {
    const connections = await this.deps.connections.views(caller.organizationId);
    const data = CONNECTORS.map((connector): IntegrationEntry => {
      const provider = providerOfSlug(connector.slug);
      const missing = missingSettings(connector, this.deps.settings);
      const { readiness, summary } = readinessOf(connector, this.deps.settings);
      const connection = provider === 'PAYMENTS' ? null : (connections.get(provider) ?? null);
      return {
        provider,
        slug: connector.slug,
        display_name: connector.display_name,
        configured: missing.length === 0,
        configuration: {
          missing_environment: missing,
          awaiting_tenant_consent: readiness === 'awaiting_tenant_consent' && connection?.status !== 'CONNECTED',
          summary: readiness === 'awaiting_tenant_consent' ? tenantSummary(connection) ?? summary : summary,
        },
        connection,
      };
    });
    return { data };
  }

  /**
   * The sync log, most recent attempts first (a record moves to the front when it is attempted
   * again), keyset-paged on (updated_at, id).
   */
  async syncs(caller: Caller, query: SyncListQuery): Promise<{ data: SyncRecord[]; next: string | null }> {
    const after = query.cursor ? cursorPosition(SYNC_RECORD_KEYSET, query.cursor) : undefined;
    const rows = await inTenant(this.deps.em, caller.organizationId, (tx) =>
      syncRecordPage(tx, { provider: query.provider ? providerOfSlug(query.provider) : undefined, after, limit: query.limit }),
    );
    const { rows: page, next } = pageOf(rows, query.limit, SYNC_RECORD_KEYSET);
    return {
      data: page.map(({ cursor_updated_at: _position, ...row }) => ({
        ...row,
        amount_cents: row.amount_cents === null ? null : Number(row.amount_cents),
        synced_at: row.synced_at === null ? null : new Date(row.synced_at).toISOString(),
      })),
      next,
    };
  }

  /** D18: the scheduled sync runs, most recent first, keyset-paged on (started_at, id). */
  async syncRuns(caller: Caller, query: SyncRunListQuery): Promise<{ data: SyncRun[]; next: string | null }> {
    const after = query.cursor ? cursorPosition(SYNC_RUN_KEYSET, query.cursor) : undefined;
    const rows = await inTenant(this.deps.em, caller.organizationId, (tx) =>
      syncRunPage(tx, { provider: query.provider ? providerOfSlug(query.provider) : undefined, after, limit: query.limit }),
    );
    const { rows: page, next } = pageOf(rows, query.limit, SYNC_RUN_KEYSET);
    return {
      data: page.map(({ cursor_started_at: _position, ...row }) => ({ ...row, started_at: iso(row.started_at)!, finished_at: iso(row.finished_at) })),
      next,
    };
  }

  /**
   * The consent URL with a signed, single-use state valid ten minutes (5.9, 8). The state also
   * carries where the consent began, so the callback page links back there: `return_url` when
   * given, else the calling page's origin (`Origin`), each only on this deployment or an origin of
   * CORS_ORIGINS (never an open redirect); with neither, the page links to the API reference.
   */
  async connect(caller: Caller, slug: ProviderSlug, from: { returnUrl?: string | undefined; origin?: string | undefined } = {}): Promise<{ provider: OAuthProviderName; authorize_url: string; expires_in_seconds: number }> {
    const provider = this.oauthProvider(slug);
    const returnTo = this.returnTo(from);
    const nonce = await this.nonces.issue({ organizationId: caller.organizationId, provider: provider.name, userId: caller.userId });
    const state = await this.states.sign({ organizationId: caller.organizationId, provider: provider.name, userId: caller.userId, nonce, returnTo });
    return { provider: provider.name, authorize_url: provider.authorizeUrl(state), expires_in_seconds: STATE_TTL_SECONDS };
  }

  /** The origins a consent may return to: this deployment's and CORS_ORIGINS (the office apps that call the API). */
  private returnTo(from: { returnUrl?: string | undefined; origin?: string | undefined }): string | undefined {
    const { settings } = this.deps;
    const allowed = new Set([new URL(settings.PUBLIC_BASE_URL ?? `http://localhost:${settings.PORT}`).origin, ...settings.CORS_ORIGINS]);
    if (from.returnUrl !== undefined) {
      if (!allowed.has(new URL(from.returnUrl).origin)) {
        throw validationFailed({ 'query.return_url': 'Must be on this deployment or on an origin of CORS_ORIGINS' });
      }
      return from.returnUrl;
    }
    return from.origin !== undefined && allowed.has(from.origin) ? `${from.origin}/` : undefined;
  }

  /**
   * The provider's redirect back. Order: the query's limits, then the state (signature, expiry,
   * provider, single use), then what the provider said (declined or a code), then the exchange.
   * The nonce is spent before the exchange, so a replay racing the first use is refused too.
   */
  async callback(slug: string, query: CallbackQuery, log: Logger, requestId: string | null = null): Promise<CallbackOutcome> {
    let back: string | undefined;
    const outcome = await this.completeConsent(slug, query, log, requestId, (returnTo) => {
      back = returnTo;
    });
    // Once the state is trusted, the page links back to where the consent began.
    return back ? { ...outcome, back } : outcome;
  }

  private async completeConsent(slug: string, query: CallbackQuery, log: Logger, requestId: string | null, trusted: (returnTo: string | undefined) => void): Promise<CallbackOutcome> {
    const name = slug === 'accounting' || slug === 'crm' ? providerOfSlug(slug) as OAuthProviderName : undefined;
    if (!name) return { kind: 'bad_request', reason: 'There is no consent to complete for this provider.' };
    const display = displayName(slug as ProviderSlug);
    if (!query.state) return { kind: 'bad_request', reason: 'The link carries no state.' };
    const check = await this.states.verify(query.state, name);
    if (!check.ok) {
      return { kind: 'bad_request', reason: check.problem === 'expired' ? 'The link has expired (it is valid ten minutes).' : 'The link is not valid: its state was altered or belongs elsewhere.' };
    }
    trusted(check.claims.returnTo);
    if (!(await this.nonces.consume(check.claims))) return { kind: 'bad_request', reason: 'The link has already been used.' };
    // Section 5.3: who started the consent must still be an active ADMIN when it completes.
    const starter = await inTenant(this.deps.em, check.claims.organizationId, (tx) => userForAuthentication(tx, check.claims.userId));
    if (!starter?.active || starter.role !== 'ADMIN') return { kind: 'bad_request', reason: 'The person who started this connection may no longer connect integrations.' };

    if (query.error) {
      if (query.error === 'access_denied') return { kind: 'declined', providerName: display };
      log.warn({ provider: name, provider_error: query.error }, 'provider sent the consent back with an error');
      return { kind: 'provider_refused', providerName: display, reason: `${display} answered ${query.error}.` };
    }
    if (!query.code) return { kind: 'bad_request', reason: 'The link carries no authorization code.' };
    if (name === 'ACCOUNTING' && !query.realmId) return { kind: 'bad_request', reason: 'The link does not say which company was chosen (realmId).' };
    const provider = this.deps.providers[name];
    if (!provider) return { kind: 'bad_request', reason: `${display} is no longer configured on this platform.` };

    let grant;
    try {
      grant = await withDeadline(provider.exchangeCode({ code: query.code, realmId: query.realmId }), EXCHANGE_TIMEOUT_MS, 'the code exchange');
    } catch (error) {
      // The provider's code only: never the code, a token or the state.
      log.warn({ provider: name, provider_error: error instanceof OAuthRefusal ? error.code : 'unavailable' }, 'code exchange failed');
      return { kind: 'provider_refused', providerName: display, reason: `${display} did not accept the authorization code.` };
    }
    const ref = { organizationId: check.claims.organizationId, provider: name };
    await this.deps.connections.storeGrant({ ...ref, userId: check.claims.userId }, grant, {
      actor: { type: 'user', id: check.claims.userId, email: starter.email },
      action: 'integration.connected',
      entityType: 'integration',
      entityId: slug,
      changes: [
        { field: 'status', before: null, after: 'CONNECTED' },
        { field: 'external_account_id', before: null, after: grant.externalAccountId },
      ],
      requestId,
    });
    await this.wake(ref, 'connected', log);
    log.info({ provider: name, organization_id: ref.organizationId, external_account_id: grant.externalAccountId }, 'integration connected');
    return { kind: 'connected', providerName: display, accountId: grant.externalAccountId };
  }

  /** 3.3: DISCONNECTED, credentials erased, sync rows kept; idempotent; ends the refresh workflow. */
  async disconnect(caller: Caller, slug: ProviderSlug, log: Logger, requestId: string | null = null): Promise<{ provider: OAuthProviderName; status: 'DISCONNECTED' }> {
    if (slug === 'payments') throw paymentsRefusal();
    const ref = { organizationId: caller.organizationId, provider: providerOfSlug(slug) as OAuthProviderName };
    const { refreshToken } = await this.deps.connections.disconnect(ref, {
      actor: { type: 'user', id: caller.userId, email: caller.email },
      action: 'integration.disconnected',
      entityType: 'integration',
      entityId: slug,
      requestId,
    });
    await this.wake(ref, 'disconnected', log);
    const provider = this.deps.providers[ref.provider];
    if (refreshToken && provider) {
      // Best effort: our copy is already erased; the provider forgets the grant too if it answers.
      await withDeadline(provider.revoke(refreshToken), REVOKE_TIMEOUT_MS, 'revocation').catch((error: unknown) =>
        log.warn({ provider: ref.provider, err: error instanceof Error ? error.message : String(error) }, 'could not revoke the grant at the provider'),
      );
    }
    return { provider: ref.provider, status: 'DISCONNECTED' };
  }

  private oauthProvider(slug: ProviderSlug): OAuthProvider {
    if (slug === 'payments') throw paymentsRefusal();
    const provider = this.deps.providers[providerOfSlug(slug) as OAuthProviderName];
    if (!provider) throw badRequest(`${displayName(slug)} is not configured on this platform: its client credentials or the credential-encryption key are missing.`);
    return provider;
  }

  private async wake(ref: { organizationId: string; provider: OAuthProviderName }, reason: 'connected' | 'disconnected', log: Logger): Promise<void> {
    try {
      await this.deps.workflows?.connectionChanged(ref, reason);
    } catch (error) {
      // The connection is stored either way; the worker's reconciler starts what is missing.
      log.warn({ err: error, provider: ref.provider }, 'could not reach the token refresh workflow');
    }
  }
}

const paymentsRefusal = () => badRequest('Payments run through the platform’s own account; there is no workspace consent to give or take back.');
const displayName = (slug: ProviderSlug) => CONNECTORS.find((c) => c.slug === slug)?.display_name ?? slug;

function tenantSummary(connection: ConnectionView | null): string | undefined {
  switch (connection?.status) {
    case 'CONNECTED':
      return 'Connected: approved quotes sync to this workspace’s account.';
    case 'EXPIRED':
      return 'The connection expired or was revoked at the provider; connect again to resume syncing.';
    case 'ERROR':
      return 'Refreshing the connection keeps failing; it is retried, or connect again.';
    default:
      return undefined;
  }
}
