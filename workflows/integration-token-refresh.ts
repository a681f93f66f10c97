import { ActivityFailure, ApplicationFailure, condition, continueAsNew, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ConnectionChange, ConnectionChangedSignal, TokenRefreshWorkflow } from '../infra/temporal/contracts';
import type { FailureType } from '../infra/temporal/failure-types';
import { databaseProfile, oauthProfile, refreshRecoveryDelayMs } from './activity-profiles';

/** The contract's signal (its name is part of ConnectionChangedSignal's type). */
const connectionChanged: ConnectionChangedSignal = defineSignal<[ConnectionChange], 'connectionChanged'>('connectionChanged');

const DEFAULT_ROUNDS_PER_RUN = 50;

/**
 * Keeps one tenant's provider connection usable: refreshes its access token ahead of expiry (the
 * activity writes rotated refresh tokens in the transaction that read the old one), for as long
 * as the connection is CONNECTED or ERROR. Ends when it is DISCONNECTED (the signal wakes it) or
 * EXPIRED (the provider refused the refresh token). Exhausted retries mark it ERROR and it tries
 * again later. Continues as new every few dozen rounds so its history stays small.
 */
export const integrationTokenRefresh: TokenRefreshWorkflow = async function integrationTokenRefresh(input) {
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
      if (failureType(error) === ('RefreshRefused' satisfies FailureType)) continue;
      await db.markConnectionError({ ...ref, lastError: failureMessage(error) });
      await condition(() => changed, refreshRecoveryDelayMs(timing));
    }
  }
  return continueAsNew<TokenRefreshWorkflow>(input);
};

function failureType(error: unknown): string | undefined {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause.type ?? undefined : undefined;
}

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
