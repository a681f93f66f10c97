import { ActivityFailure, ApplicationFailure, condition, continueAsNew, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { databaseProfile, oauthProfile, refreshRecoveryDelayMs, type Timing } from './activity-profiles';

export type RefreshedProvider = 'ACCOUNTING' | 'CRM';

export interface TokenRefreshInput {
  organizationId: string;
  provider: RefreshedProvider;
  timing?: Timing;
  /** Rounds (plan, wait, refresh) per run before continuing as new; tests lower it. */
  roundsPerRun?: number;
}

export interface ConnectionChange {
  reason: 'connected' | 'disconnected';
}

/**
 * Sent when the connection changes (consent completed, disconnected). It only wakes the
 * workflow: the database says what the connection now is, so a lost or late signal is harmless.
 */
export const connectionChanged = defineSignal<[ConnectionChange]>('connectionChanged');

/** One per connection, a business key: `integration-refresh-<organizationId>-<provider>`. */
export const integrationRefreshWorkflowId = (ref: { organizationId: string; provider: RefreshedProvider }) =>
  `integration-refresh-${ref.organizationId}-${ref.provider.toLowerCase()}`;

const DEFAULT_ROUNDS_PER_RUN = 50;

/**
 * Keeps one tenant's provider connection usable: refreshes its access token ahead of expiry (the
 * activity writes rotated refresh tokens in the transaction that read the old one), for as long
 * as the connection is CONNECTED or ERROR. Ends when it is DISCONNECTED (the signal wakes it) or
 * EXPIRED (the provider refused the refresh token). Exhausted retries mark it ERROR and it tries
 * again later. Continues as new every few dozen rounds so its history stays small.
 */
export async function integrationTokenRefresh(input: TokenRefreshInput): Promise<{ ended: 'DISCONNECTED' | 'EXPIRED' | 'MISSING' }> {
  const timing = input.timing ?? {};
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const oauth = proxyActivities<Activities>(oauthProfile(timing));
  const ref = { organizationId: input.organizationId, provider: input.provider };
  let changed = false;
  setHandler(connectionChanged, () => {
    changed = true;
  });

  for (let round = 0; round < (input.roundsPerRun ?? DEFAULT_ROUNDS_PER_RUN); round++) {
    changed = false;
    const plan = await db.planTokenRefresh(ref);
    if (plan.action === 'end') {
      // A change that landed while we looked (say, connected again) deserves another look.
      if (changed) continue;
      return { ended: plan.status };
    }
    const wait = Date.parse(plan.refreshAt) - Date.now();
    if (wait > 0 && (await condition(() => changed, wait))) continue;
    try {
      await oauth.refreshConnectionToken(ref);
    } catch (error) {
      // Refused: the activity made the connection EXPIRED; the next plan ends the run.
      if (failureType(error) === 'RefreshRefused') continue;
      await db.markConnectionError({ ...ref, lastError: failureMessage(error) });
      await condition(() => changed, refreshRecoveryDelayMs(timing));
    }
  }
  return continueAsNew<typeof integrationTokenRefresh>(input);
}

function failureType(error: unknown): string | undefined {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause.type ?? undefined : undefined;
}

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
