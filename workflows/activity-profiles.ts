import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import type { Timing } from '../infra/temporal/contracts';
import type { FailureType } from '../infra/temporal/failure-types';

/** Non-retryable failure types, spelt as infra/temporal/failure-types.ts spells them (checked by the compiler). */
const nonRetryable = (...types: FailureType[]): string[] => types;

/**
 * One timeout and retry profile per kind of call, in one place (as Temporal's saga sample keeps
 * them). Provider refusals are thrown as non-retryable ApplicationFailures of type
 * `ProviderRefused` by the activities; everything else (network errors, timeouts, 5xx, 429) is
 * retried with backoff, and a 429's Retry-After becomes the next retry delay.
 *
 * `retryScale` shortens every interval for tests (durations are configurable rather than
 * skipped: these machines cannot run the time-skipping test server).
 */
const seconds = (s: number, timing: Timing) => Math.max(10, Math.round(s * 1000 * (timing.retryScale ?? 1)));

export function databaseProfile(timing: Timing): ActivityOptions {
  return {
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: seconds(1, timing), backoffCoefficient: 2, maximumInterval: seconds(30, timing), maximumAttempts: 10 },
  };
}

/**
 * A short database step run as a local activity, inside the workflow task that needs it
 * (an approval's plan, a failed leg's sync row), so it costs no activity task round trip through
 * the server. Same timeout and retries as a database activity; like one, it runs at least once
 * and its writes are idempotent upserts of the quote's sync rows.
 */
export function localDatabaseProfile(timing: Timing): LocalActivityOptions {
  const { startToCloseTimeout, retry } = databaseProfile(timing);
  return { startToCloseTimeout: startToCloseTimeout!, retry: retry! };
}

/**
 * A provider leg (payments, accounting, CRM): one whole write, every mutating request carrying an
 * idempotency key (Stripe Idempotency-Key, QuickBooks requestid, Salesforce external id).
 */
export function providerLegProfile(timing: Timing): ActivityOptions {
  return {
    // A worker that dies mid-call is noticed when this runs out; the retry then replays the
    // provider's stored answers by idempotency key.
    startToCloseTimeout: Math.max(2000, seconds(120, timing)),
    retry: {
      initialInterval: seconds(2, timing),
      backoffCoefficient: 2,
      maximumInterval: seconds(60, timing),
      maximumAttempts: 6,
      nonRetryableErrorTypes: nonRetryable('ProviderRefused', 'ProviderNotConfigured'),
    },
  };
}

/**
 * An OAuth token call (refresh): quick, idempotent from our side (the row lock means one refresh
 * at a time per connection). A refused grant is final (`RefreshRefused`: the connection is then
 * EXPIRED); a misconfigured or unreadable connection too. Anything else is retried; once the
 * attempts run out the connection is marked ERROR and the workflow tries again later.
 */
export function oauthProfile(timing: Timing): ActivityOptions {
  return {
    startToCloseTimeout: Math.max(2000, seconds(30, timing)),
    retry: {
      initialInterval: seconds(2, timing),
      backoffCoefficient: 2,
      maximumInterval: seconds(60, timing),
      maximumAttempts: 5,
      nonRetryableErrorTypes: nonRetryable('RefreshRefused', 'ProviderRefused', 'ProviderNotConfigured', 'CredentialsUnreadable'),
    },
  };
}

/** After a refresh has exhausted its attempts (ERROR), how long until the workflow tries again. */
export function refreshRecoveryDelayMs(timing: Timing): number {
  return seconds(300, timing);
}

/**
 * One batch of an endpoint's deliveries. Its requests have their format's window each
 * (8 s core, 10 s field, 300 s events), `rounds` of them at most, after further rounds for up to
 * `drainMs` while everything delivers; the activity heartbeats every
 * second while they are out, so a worker killed mid-batch is noticed in 15 seconds and the retry
 * takes the batch's rows back (at-least-once). Retried only for its own trouble (database,
 * worker), never for the receiver's answers, which the workflow schedules.
 */
export function webhookBatchProfile(timing: Timing, batch: { responseWindowMs: number; rounds: number; drainMs: number }): ActivityOptions {
  return {
    // Its last round may start just before `drainMs` runs out.
    startToCloseTimeout: batch.drainMs + batch.responseWindowMs * Math.max(1, batch.rounds) + 60_000,
    heartbeatTimeout: '15 seconds',
    retry: { initialInterval: seconds(1, timing), backoffCoefficient: 2, maximumInterval: seconds(30, timing) },
  };
}

/**
 * An email (D13: the notice of a disabled endpoint): idempotent per disabling on our side, so a
 * mail server that is down is waited for, backing off to ten minutes, for about a day.
 */
export function mailProfile(timing: Timing): ActivityOptions {
  return {
    startToCloseTimeout: '60 seconds',
    retry: { initialInterval: seconds(5, timing), backoffCoefficient: 2, maximumInterval: seconds(600, timing), maximumAttempts: 150 },
  };
}

/** D19: how long an approval with a failed leg waits for `retryLeg` before it ends as it is. */
export const REPAIR_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * D18: one page of a provider sync (fetch, then apply with its watermark in one transaction). 5xx,
 * 429 (its Retry-After is the next delay) and network trouble are retried; a refusal, a malformed
 * page or a connection that cannot be used ends the run with its error recorded, the watermark
 * where the last applied page left it.
 */
export function providerSyncProfile(timing: Timing): ActivityOptions {
  return {
    startToCloseTimeout: Math.max(2000, seconds(60, timing)),
    retry: {
      initialInterval: seconds(2, timing),
      backoffCoefficient: 2,
      maximumInterval: seconds(60, timing),
      maximumAttempts: 5,
      nonRetryableErrorTypes: nonRetryable('ProviderRefused', 'ProviderMalformed', 'ProviderNotConfigured', 'ProviderNotConnected', 'ConnectionExpired', 'CredentialsUnreadable'),
    },
  };
}

/**
 * D23: the routing activities, on the routing task queue. Loading a day reads the database and
 * the travel-time source: a source that fails or answers garbage is final for the plan (it names
 * the source; never a silent fallback), as is a day that cannot be routed. Solving is CPU alone.
 */
export function routingProfile(timing: Timing, taskQueue: string): ActivityOptions {
  return {
    taskQueue,
    startToCloseTimeout: '2 minutes',
    retry: {
      initialInterval: seconds(1, timing),
      backoffCoefficient: 2,
      maximumInterval: seconds(10, timing),
      maximumAttempts: 3,
      nonRetryableErrorTypes: nonRetryable('TravelTimesUnavailable', 'RouteSolverFailed', 'RoutingRefused'),
    },
  };
}
