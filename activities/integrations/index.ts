import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { IntegrationConnections, CredentialsUnavailableError, type ConnectionRef } from '../../infra/integrations/connection-store';
import type { ConnectionStatus } from '../../db/integrations/connections';
import { OAuthRefusal, type OAuthProviders } from '../../infra/integrations/providers';
import { CredentialDecryptionError, type CredentialCipher } from '../../db/security/credential-cipher';
import { ProviderCredentials } from './fresh-token';
import { refreshAt } from '../../domain/integrations/refresh-schedule';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';

export { ProviderCredentials } from './fresh-token';

/** What the integration activities need; the worker builds it from the settings. */
export interface IntegrationDependencies {
  providers: OAuthProviders;
  cipher: CredentialCipher | undefined;
}

export type RefreshPlan = { action: 'end'; status: 'DISCONNECTED' | 'EXPIRED' | 'MISSING' } | { action: 'refresh'; status: ConnectionStatus; refreshAt: string };

/** The token refresh workflow's activities (workflows/integration-token-refresh.ts). */
export function createIntegrationActivities(deps: { em: EntityManager; logger: Logger; integrations: IntegrationDependencies }) {
  const connections = new IntegrationConnections(deps.em, deps.integrations.cipher);
  const providers = deps.integrations.providers;

  return {
    /** Whether the workflow goes on, and when it should refresh next. */
    async planTokenRefresh(ref: ConnectionRef): Promise<RefreshPlan> {
      const schedule = await connections.schedule(ref);
      if (schedule.status === null) return { action: 'end', status: 'MISSING' };
      if (schedule.status === 'DISCONNECTED' || schedule.status === 'EXPIRED') return { action: 'end', status: schedule.status };
      return { action: 'refresh', status: schedule.status, refreshAt: refreshAt(schedule, Date.now()).toISOString() };
    },

    /** One refresh, rotated refresh token stored atomically (IntegrationConnections.refresh). */
    async refreshConnectionToken(ref: ConnectionRef): Promise<{ accessTokenExpiresAt: string | null } | { skipped: ConnectionStatus | null }> {
      const provider = providers[ref.provider];
      if (!provider) throw ApplicationFailure.create({ message: `${ref.provider.toLowerCase()} provider not configured on the platform`, type: FAILURE_TYPES.providerNotConfigured, nonRetryable: true });
      const log = deps.logger.child({ activity: 'refreshConnectionToken', organization_id: ref.organizationId, provider: ref.provider, attempt: Context.current().info.attempt });
      try {
        const result = await connections.refresh(ref, provider);
        switch (result.outcome) {
          case 'refreshed':
          case 'current':
            log.info({ access_token_expires_at: result.session.accessTokenExpiresAt }, 'access token refreshed');
            return { accessTokenExpiresAt: result.session.accessTokenExpiresAt?.toISOString() ?? null };
          case 'expired':
            log.warn({ last_error: result.lastError }, 'refresh refused; connection expired');
            throw ApplicationFailure.create({ message: result.lastError, type: FAILURE_TYPES.refreshRefused, nonRetryable: true });
          case 'not_connected':
            return { skipped: result.status };
        }
      } catch (error) {
        if (error instanceof ApplicationFailure) throw error;
        if (error instanceof OAuthRefusal) throw ApplicationFailure.create({ message: error.message, type: FAILURE_TYPES.providerRefused, nonRetryable: true });
        if (error instanceof CredentialDecryptionError || error instanceof CredentialsUnavailableError) {
          throw ApplicationFailure.create({ message: `stored credentials cannot be read: ${error.message}`, type: FAILURE_TYPES.credentialsUnreadable, nonRetryable: true });
        }
        log.warn({ err: error instanceof Error ? error.message : String(error) }, 'refresh failed; will retry');
        throw error;
      }
    },

    markConnectionError: (input: ConnectionRef & { lastError: string }) => connections.markError(input, input.lastError),
  };
}

