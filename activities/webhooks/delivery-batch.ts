import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { signingSecrets } from '../../db/webhooks/endpoint-secrets';
import { eventPayloadFor } from '../../domain/versions/versions';
import type { AttemptRecord } from '../../db/webhooks/attempts';
import {
  applyRetryDecisions,
  claimDueDeliveries,
  endpointForBatch,
  markDeliveryIdle,
  missPendingDeliveries,
  nextDueInMs,
  recordBatchAttempts,
  releaseDeliveries,
  type BatchOutcome,
  type ClaimedDelivery,
  type EndpointForBatch,
  type RetryDecision,
} from '../../db/webhooks/batches';
import { clearEndpointFailing, disableGoneEndpoint, GONE_REASON, recordEndpointFailure } from '../../db/webhooks/endpoints';
import { SANDBOX_TENANTS } from '../../db/sandbox';
import type { WebhookFormat } from '../../domain/events/catalogue';
import { deliverOnce, type DeliveryAttemptResult } from './deliver';
import { signPayload } from '../../infra/webhooks/signature';
import { FORMAT_RULES, formatHeaders, renderBody } from '../../domain/webhooks/formats';
import type { CredentialCipher } from '../../db/security/credential-cipher';
import type { Resolver } from '../../infra/webhooks/address-policy';
import { isSuspended } from '../../domain/organizations/suspension';
import { recordAuditEvent } from '../../db/audit/audit-events';

const SANDBOX_SUBDOMAINS: ReadonlySet<string> = new Set(SANDBOX_TENANTS.map((t) => t.subdomain));

/** What sending needs beyond the database (D6, D13). */
export interface WebhookDeliveryDeps {
  em: EntityManager;
  cipher: CredentialCipher | undefined;
  allowPrivateNetworks: boolean;
  /** OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK (development): loopback receivers only. */
  allowLoopback?: boolean | undefined;
  /** Tests inject DNS answers; production resolves for real, at connect time. */
  lookup?: Resolver | undefined;
  /** Overrides every format's response window (tests of the core format). */
  timeoutMs?: number | undefined;
  /** Multiplies each format's response window (tests: an events window of 300 s in 3 s). */
  responseWindowScale?: number | undefined;
  now?: () => Date;
}

/** A batch's failure disabled the endpoint (D6): the workflow then sends the one notice (D13). */
export interface EndpointDisabled {
  endpointId: string;
  /** ISO time; with the endpoint, the key of the notice. */
  disabledAt: string;
}

/** One batch of one endpoint (docs/webhook-delivery.md). */
export interface BatchInput {
  organizationId: string;
  endpointId: string;
  /** The batch's claim token: the same for every retry of this batch activity. */
  token: string;
  /** How many due deliveries to claim (0: only record the decisions). */
  claim: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Retryable failures in a row that stop the batch from starting more (the breaker's remaining budget). */
  stopAfterFailures: number;
  /** The schedule's decisions on the previous batch's retryable failures, recorded first. */
  decisions: RetryDecision[];
  /** Tests shorten the failure clock as they shorten the waits. */
  clockScale?: number;
  /** How long to go on with further rounds while every attempt delivers and work is due (0: one round). */
  drainMs?: number;
  /** Within that, how long to keep looking for new work after a round before going idle. */
  lingerMs?: number;
}

export interface BatchReport {
  endpoint: 'enabled' | 'disabled' | 'deleted';
  format: WebhookFormat | null;
  /** Attempts made, by outcome (the worker's metrics count them). */
  attempts: Record<DeliveryAttemptResult['outcome'], number>;
  /** Deliveries that ended: delivered, failed (not retryable, or the schedule's attempts used up), missed (endpoint disabled). */
  delivered: number;
  failed: number;
  missed: number;
  /** The deliveries that ended failed in this batch (logged one by one). */
  failedIds: string[];
  /** Retryable failures awaiting the workflow's schedule decision. */
  retry: { deliveryId: string; attempt: number }[];
  timedOut: number;
  /** This batch disabled the endpoint (410, or its failure clock): the workflow sends the one notice. */
  disabled?: EndpointDisabled;
  /** The batch was full: more may be due now. */
  moreDue: boolean;
  /** Nothing was due: the endpoint is marked idle, so the next event's dispatcher signals. */
  idle: boolean;
  /** When the next pending delivery falls due, in ms from now; null when none is pending. */
  nextDueInMs: number | null;
  /** D22: the endpoint's workspace is suspended: nothing was claimed or attempted; look again after `nextDueInMs`. */
  held?: boolean;
}

/**
 * D22: how often an endpoint of a suspended workspace looks again whether it was resumed (resuming
 * also wakes its workflows at once: scripts/ops/tenant-commands.ts).
 */
export const SUSPENDED_RECHECK_MS = 60_000;

export type BatchDeps = WebhookDeliveryDeps & { heartbeat?: () => void };

const noAttempts = (): BatchReport['attempts'] => ({ delivered: 0, retryable_failure: 0, permanent_failure: 0 });

/**
 * One batch: record the previous batch's retry decisions, claim up to `claim` due deliveries,
 * POST them `concurrency` at a time (each signed per format through the connect-time address
 * guard, as one attempt always was), then record every attempt and the endpoint's failure clock
 * in one transaction; then, while all goes well, the next round (`drainMs`). A retryable failure
 * is not rescheduled here: the workflow decides from the format's schedule and hands the decision
 * to the next batch.
 */
export async function deliverWebhookBatch(deps: BatchDeps, input: BatchInput): Promise<BatchReport> {
  const inOrg = <T>(work: (tx: EntityManager) => Promise<T>) => inTenant(deps.em, input.organizationId, work);
  const report: BatchReport = { endpoint: 'enabled', format: null, attempts: noAttempts(), delivered: 0, failed: 0, missed: 0, failedIds: [], retry: [], timedOut: 0, moreDue: false, idle: false, nextDueInMs: null };

  if (input.decisions.length > 0) report.failedIds.push(...(await inOrg((tx) => applyRetryDecisions(tx, input.decisions))));
  report.failed = report.failedIds.length;
  // The endpoint and its due deliveries in one transaction (a disabled one's become missed).
  const claimRound = (tx: EntityManager) => claimDue(tx, input);
  let round = await inOrg(claimRound);
  const endpoint = round.endpoint;
  if (!endpoint) return { ...report, endpoint: 'deleted' };
  report.format = endpoint.format;
  if (endpoint.status !== 'enabled') return { ...report, endpoint: 'disabled', missed: round.missed, idle: true };
  // Held, not failed: no attempt is made or spent, the failure clock and the breaker hear nothing.
  if (round.held) return { ...report, held: true, idle: true, nextDueInMs: SUSPENDED_RECHECK_MS };
  if (input.claim <= 0) return { ...report, nextDueInMs: round.dueInMs };
  if (round.claimed.length === 0) return { ...report, idle: true, nextDueInMs: round.dueInMs };

  // Round after round while every attempt delivers and work is due, for up to `drainMs`: a busy
  // endpoint's next deliveries go out as soon as the last are recorded, without a trip through
  // the workflow. Any retryable failure (the schedule and the breaker are the workflow's), a
  // disabling or the end of the time returns to the workflow.
  const started = Date.now();
  for (;;) {
    const full = round.claimed.length >= input.claim;
    // Each round signs and sends with the endpoint as its own claim read it: a secret rotated, an
    // overlap ended or an address changed during a long drain applies from the next round on.
    const stoppedEarly = await deliverRound(deps, input, round.endpoint ?? endpoint, round.claimed, report, inOrg);
    report.moreDue = full || stoppedEarly;
    if (report.disabled || report.retry.length > 0 || stoppedEarly || Date.now() - started >= (input.drainMs ?? 0)) break;
    // A busy endpoint's next event is usually moments away: look again for a little while
    // (`lingerMs`) before going idle, which would cost a wake-up's round trip through Temporal.
    round = await inOrg((tx) => claimDue(tx, input, { markIdle: false }));
    const lingerUntil = Date.now() + (input.lingerMs ?? 0);
    while (round.endpoint?.status === 'enabled' && round.claimed.length === 0 && Date.now() < lingerUntil) {
      await new Promise((resolve) => setTimeout(resolve, LINGER_POLL_MS));
      round = await inOrg((tx) => claimDue(tx, input, { markIdle: false }));
    }
    if (round.endpoint?.status === 'enabled' && round.claimed.length === 0) round = await inOrg(claimRound);
    if (!round.endpoint || round.endpoint.status !== 'enabled' || round.held) {
      report.missed += round.missed;
      report.moreDue = true; // the next batch finds out what became of the endpoint
      break;
    }
    if (round.claimed.length === 0) {
      Object.assign(report, { moreDue: false, idle: true, nextDueInMs: round.dueInMs });
      break;
    }
  }
  if (!report.moreDue && !report.idle) report.nextDueInMs = await inOrg((tx) => nextDueInMs(tx, input.endpointId));
  return report;
}

interface ClaimRound {
  endpoint: EndpointForBatch | undefined;
  claimed: ClaimedDelivery[];
  missed: number;
  dueInMs: number | null;
  /** D22: the workspace is suspended; nothing was claimed. */
  held?: boolean;
}

/** How often a lingering batch looks for new work. */
const LINGER_POLL_MS = 10;

/** The endpoint and its due deliveries, in the caller's transaction; with nothing due, the endpoint is marked idle (unless `markIdle` is false). */
async function claimDue(tx: EntityManager, input: BatchInput, options: { markIdle: boolean } = { markIdle: true }): Promise<ClaimRound> {
  const found = await endpointForBatch(tx, input.endpointId);
  if (!found) return { endpoint: undefined, claimed: [], missed: 0, dueInMs: null };
  // Kept as missed: re-enabling the endpoint replays them (D6); until then nothing is due.
  if (found.status !== 'enabled') {
    await markDeliveryIdle(tx, input.endpointId);
    return { endpoint: found, claimed: [], missed: await missPendingDeliveries(tx, input.endpointId), dueInMs: null };
  }
  // D22: a suspended workspace's deliveries stay pending as they are, and go out after resume.
  if (isSuspended({ suspendedAt: found.suspended_at })) return { endpoint: found, claimed: [], missed: 0, dueInMs: null, held: true };
  if (input.claim <= 0) return { endpoint: found, claimed: [], missed: 0, dueInMs: await nextDueInMs(tx, input.endpointId) };
  // Replays go out one after another, at most one round's worth per claim (the lease counts rounds).
  const claim = { endpointId: input.endpointId, token: input.token, limit: input.claim, replayLimit: Math.ceil(input.claim / Math.max(1, input.concurrency)), leaseSeconds: leaseSeconds(found.format, input) };
  let rows = await claimDueDeliveries(tx, claim);
  if (rows.length > 0 || !options.markIdle) return { endpoint: found, claimed: rows, missed: 0, dueInMs: null };
  // Idle first, then one more look (a new statement: it sees every row committed before it). A
  // delivery committed after that look finds the endpoint idle (its flip waits for this
  // transaction's lock on the endpoint row), and its dispatcher signals (batches.ts, markDeliveryIdle).
  await markDeliveryIdle(tx, input.endpointId);
  rows = await claimDueDeliveries(tx, claim);
  if (rows.length > 0) await markDeliveryIdle(tx, input.endpointId, false);
  return { endpoint: found, claimed: rows, missed: 0, dueInMs: rows.length > 0 ? null : await nextDueInMs(tx, input.endpointId) };
}

/**
 * Sends one round's claimed deliveries and records them (attempts, rows, failure clock) in one
 * transaction, adding to `report`. True when the breaker's budget stopped it before all were sent
 * (the rest are released, due again).
 */
async function deliverRound(
  deps: BatchDeps,
  input: BatchInput,
  endpoint: EndpointForBatch,
  claimed: readonly ClaimedDelivery[],
  report: BatchReport,
  inOrg: <T>(work: (tx: EntityManager) => Promise<T>) => Promise<T>,
): Promise<boolean> {
  const now = deps.now ?? (() => new Date());
  const sent = await sendConcurrently(deps, endpoint, claimed, input);
  const attempted = new Set(sent.map((s) => s.delivery.id));
  const unattempted = claimed.filter((c) => !attempted.has(c.id)).map((c) => c.id);

  const records: (AttemptRecord & { ending: BatchOutcome['ending'] })[] = [];
  for (const { delivery, result, body } of sent) {
    report.attempts[result.outcome] += 1;
    if (result.error?.startsWith('timeout')) report.timedOut += 1;
    const ending: BatchOutcome['ending'] = result.outcome === 'delivered' ? 'delivered' : result.outcome === 'permanent_failure' ? 'failed' : 'retry';
    if (ending === 'delivered') report.delivered += 1;
    else if (ending === 'failed') {
      report.failed += 1;
      report.failedIds.push(delivery.id);
    } else report.retry.push({ deliveryId: delivery.id, attempt: delivery.attempt });
    records.push({
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      eventId: delivery.event_id,
      event: delivery.event,
      attempt: delivery.attempt,
      outcome: result.outcome,
      responseStatus: result.status,
      error: result.error ?? (result.status !== null && result.outcome !== 'delivered' ? `HTTP ${result.status}` : null),
      durationMs: Math.round(result.durationMs),
      responseExcerpt: result.responseExcerpt,
      requestHeaders: result.requestHeaders ?? null,
      requestBody: result.requestHeaders ? body : null,
      responseHeaders: result.responseHeaders ?? null,
      ending,
    });
  }
  const disabledAt = await inOrg(async (tx) => {
    await recordBatchAttempts(tx, input.token, records);
    await releaseDeliveries(tx, input.token, unattempted);
    const disabled = await keepFailureClock(tx, endpoint, sent, input.clockScale ?? 1, now());
    // D22: a change to an endpoint is audited, this one by the system, in the transaction that made it.
    if (disabled) await recordAuditEvent(tx, input.organizationId, {
      actor: { type: 'system', id: null, email: null },
      action: 'webhook_endpoint.updated',
      entityType: 'webhook_endpoint',
      entityId: endpoint.id,
      changes: [
        { field: 'status', before: 'enabled', after: 'disabled' },
        { field: 'disabled_reason', before: null, after: disabled.reason },
      ],
      requestId: null,
    });
    return disabled?.at;
  });
  if (disabledAt) report.disabled = { endpointId: endpoint.id, disabledAt: disabledAt.toISOString() };
  return unattempted.length > 0;
}

/** The endpoint's failure clock, as each attempt kept it (D6, D13): the batch's last word wins. Returns when and why this disabled it. */
async function keepFailureClock(tx: EntityManager, endpoint: EndpointForBatch, sent: readonly Sent[], clockScale: number, at: Date): Promise<{ at: Date; reason: string } | undefined> {
  if (sent.length === 0) return undefined;
  if (sent.some((s) => s.result.status === 410)) {
    const gone = await disableGoneEndpoint(tx, endpoint.id, at);
    return gone ? { at: gone, reason: GONE_REASON } : undefined;
  }
  const lastDelivered = lastIndexWhere(sent, (s) => s.result.outcome === 'delivered');
  if (lastDelivered >= 0) await clearEndpointFailing(tx, endpoint.id);
  if (lastDelivered === sent.length - 1) return undefined;
  const rules = FORMAT_RULES[endpoint.format];
  const failed = await recordEndpointFailure(tx, endpoint.id, at, new Date(at.getTime() - rules.disableAfterFailingMs * clockScale), rules.disabledReason);
  return failed ? { at: failed, reason: rules.disabledReason } : undefined;
}

/** The lease of a claim: every round of the batch's window, plus room to record (a dead batch's rows wait this long for another). */
function leaseSeconds(format: WebhookFormat, input: BatchInput): number {
  const rounds = Math.ceil(input.claim / Math.max(1, input.concurrency));
  return Math.ceil((FORMAT_RULES[format].responseWindowMs * rounds) / 1000) + 60;
}

function lastIndexWhere<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}

interface Sent {
  delivery: ClaimedDelivery;
  result: DeliveryAttemptResult;
  body: string;
}

/**
 * POSTs the claimed deliveries, at most `concurrency` at once, in completion order. Replays
 * (series above 0: a replay, what a disabled endpoint missed, a recovery) are sent by one lane,
 * one after another in the order claimed (oldest due first), so a recovery reaches the receiver
 * in the order its events happened; the other lanes send first deliveries. After
 * `stopAfterFailures` retryable failures in a row (nothing delivered in between) no more are
 * started: a dead receiver costs one round of its window, not the whole batch's.
 */
async function sendConcurrently(deps: BatchDeps, endpoint: EndpointForBatch, claimed: readonly ClaimedDelivery[], input: BatchInput): Promise<Sent[]> {
  if (!deps.cipher) throw new Error('webhook secrets cannot be read: no credential encryption key is configured');
  const now = deps.now ?? (() => new Date());
  const rules = FORMAT_RULES[endpoint.format];
  const secrets = signingSecrets(deps.cipher, endpoint, now());
  const context = { apiVersion: endpoint.api_version, livemode: !SANDBOX_SUBDOMAINS.has(endpoint.subdomain) };
  const timeoutMs = deps.timeoutMs ?? Math.max(1, Math.round(rules.responseWindowMs * (deps.responseWindowScale ?? 1)));
  const sent: Sent[] = [];
  let failuresInARow = 0;
  const replays = claimed.filter((delivery) => delivery.series > 0);
  const firsts = claimed.filter((delivery) => delivery.series === 0);
  let nextReplay = 0;
  let nextFirst = 0;
  const beat = deps.heartbeat ? setInterval(deps.heartbeat, 1000) : undefined;
  try {
    const send = async (delivery: ClaimedDelivery) => {
      // D16 (the endpoint's pinned version) and D13 (its format): the same bytes on every attempt.
      const body = renderBody(endpoint.format, eventPayloadFor(endpoint.api_version, delivery.payload), context);
      const signature = signPayload({ secrets, body, timestamp: Math.floor(now().getTime() / 1000) });
      const result = await deliverOnce({
        url: endpoint.url,
        body,
        headers: formatHeaders(endpoint.format, { id: delivery.event_id, event: delivery.event, test: delivery.is_test }, signature),
        allowPrivateNetworks: deps.allowPrivateNetworks,
        allowLoopback: deps.allowLoopback ?? false,
        ...(deps.lookup ? { lookup: deps.lookup } : {}),
        timeoutMs,
      });
      // Field and events retry any answer but a 2xx (and a 410, which disables the endpoint).
      const retryAnswer = rules.retriesEveryFailure && result.outcome === 'permanent_failure' && result.status !== null && result.status !== 410;
      const final: DeliveryAttemptResult = retryAnswer ? { ...result, outcome: 'retryable_failure' } : result;
      if (final.outcome === 'delivered') failuresInARow = 0;
      else if (final.outcome === 'retryable_failure') failuresInARow += 1;
      sent.push({ delivery, result: final, body });
    };
    const firstsLane = async () => {
      while (nextFirst < firsts.length && failuresInARow < input.stopAfterFailures) await send(firsts[nextFirst++]!);
    };
    // The replays' one lane joins the others once its replays are sent.
    const replayLane = async () => {
      while (nextReplay < replays.length && failuresInARow < input.stopAfterFailures) await send(replays[nextReplay++]!);
      await firstsLane();
    };
    const lanes = replays.length > 0
      ? [replayLane, ...Array.from({ length: Math.min(input.concurrency - 1, firsts.length) }, () => firstsLane)]
      : Array.from({ length: Math.max(1, Math.min(input.concurrency, firsts.length)) }, () => firstsLane);
    await Promise.all(lanes.map((lane) => lane()));
  } finally {
    if (beat) clearInterval(beat);
  }
  return sent;
}
