import { ApplicationFailure } from '@temporalio/activity';
import type { ConnectionRef, IntegrationConnections, ProviderSession } from '../../infra/integrations/connection-store';
import type { OAuthProvider, OAuthProviders } from '../../infra/integrations/providers';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';

/** Refresh first when the stored access token lapses this soon anyway. */
const EXPIRY_MARGIN_MS = 60_000;

/**
 * Provider calls from activities always run with a fresh token: a token about to lapse
 * is refreshed first, and a 401 from the provider refreshes once and retries the call once. The
 * refresh goes through the same locked path as the refresh workflow, so the two never race on a
 * rotating refresh token. Business outcomes are non-retryable failures: `ProviderNotConnected`
 * (skip the leg), `ConnectionExpired` (EXPIRED now), `ProviderNotConfigured`.
 */
export class ProviderCredentials {
  constructor(
    private readonly connections: IntegrationConnections,
    private readonly providers: OAuthProviders,
  ) {}

  /** The connection's credentials when it can be used (CONNECTED, or ERROR but still holding tokens). */
  usable(ref: ConnectionRef): Promise<ProviderSession | undefined> {
    return this.connections.session(ref);
  }

  async withFreshToken<T>(connection: ConnectionRef | ProviderSession, call: (session: ProviderSession) => PromiseLike<T>): Promise<T> {
    const provider = this.provider(connection);
    let session = 'accessToken' in connection ? connection : await this.connections.session(connection);
    if (!session) throw notConnected(connection);
    if (session.accessTokenExpiresAt && session.accessTokenExpiresAt.getTime() - Date.now() < EXPIRY_MARGIN_MS) session = await this.refreshed(session, provider);
    try {
      return await call(session);
    } catch (error) {
      if (!provider.isUnauthorized(error)) throw error;
      // Once: a second 401 with a token just issued is the provider's problem, thrown as is.
      return await call(await this.refreshed(session, provider));
    }
  }

  private async refreshed(session: ProviderSession, provider: OAuthProvider): Promise<ProviderSession> {
    const result = await this.connections.refresh(session, provider, { unlessChangedFrom: session.accessToken });
    switch (result.outcome) {
      case 'refreshed':
      case 'current':
        return result.session;
      case 'expired':
        throw ApplicationFailure.create({ message: result.lastError, type: FAILURE_TYPES.connectionExpired, nonRetryable: true });
      case 'not_connected':
        throw notConnected(session);
    }
  }

  private provider(ref: ConnectionRef): OAuthProvider {
    const provider = this.providers[ref.provider];
    if (!provider) throw ApplicationFailure.create({ message: `${ref.provider.toLowerCase()} provider not configured on the platform`, type: FAILURE_TYPES.providerNotConfigured, nonRetryable: true });
    return provider;
  }
}

const notConnected = (ref: ConnectionRef) =>
  ApplicationFailure.create({ message: `${ref.provider.toLowerCase()} provider not connected`, type: FAILURE_TYPES.providerNotConnected, nonRetryable: true });
