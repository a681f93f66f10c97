import { condition, continueAsNew, defineQuery, defineSignal, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type {
  BreakerState,
  DeliveriesDueSignal,
  EndpointDeliveryLimits,
  EndpointDeliveryProgress,
  EndpointDeliveryProgressQuery,
  EndpointDeliveryWorkflow,
  RetryDecision,
} from '../infra/temporal/contracts';
import { FORMAT_RULES, type WebhookFormat } from '../domain/webhooks/formats';
import { mailProfile, webhookBatchProfile } from './activity-profiles';
import { batchAllowance, batchEvent, breakerAfter, coolDownLeftMs, initialBreaker } from './webhook-breaker';
import { nextAttemptFor } from '../domain/webhooks/schedules';

export const deliveriesDue = defineSignal<[]>('deliveriesDue' satisfies DeliveriesDueSignal['name']);
export const endpointDeliveryProgress = defineQuery<EndpointDeliveryProgress>('endpointDeliveryProgress' satisfies EndpointDeliveryProgressQuery['name']);

/** Production limits; tests lower some of them (input.limits). */
export const ENDPOINT_DELIVERY_LIMITS: EndpointDeliveryLimits = {
  batchSize: 100,
  concurrency: 16,
  batchesPerRun: 500,
  drainMs: 10_000,
  lingerMs: 250,
  failuresToOpen: 5,
  coolDownMs: 30_000,
  maxCoolDownMs: 300_000,
  idleCheckMs: 300_000,
};

/**
 * Every delivery of one endpoint (docs/webhook-delivery.md), id
 * `webhook-endpoint-<endpointId>`, started and woken by the dispatcher with signal-with-start.
 *
 * Each turn runs one batch activity: it records the schedule's decisions on the previous batch's
 * retryable failures, claims the due deliveries (oldest first), POSTs them concurrently within
 * the endpoint's limit and records every attempt. This workflow alone decides what follows a
 * retryable failure (section 6.3 rule 5 for `core`, D13's 24-hour tables for `field` and
 * `events`: domain/webhooks/schedules.ts) with its deterministic random: the next attempt's time
 * goes into the delivery row, and the workflow sleeps with a durable timer until the earliest one,
 * a wake-up signal, or its breaker's cool-down. After `batchesPerRun` turns it continues as new,
 * carrying the breaker and the decisions not yet recorded. Each batch's timeout is sized by its
 * format's response window, read from the one table of formats (FORMAT_RULES).
 */
export const deliverEndpointWebhooks: EndpointDeliveryWorkflow = async function deliverEndpointWebhooks(input) {
  const limits: EndpointDeliveryLimits = { ...ENDPOINT_DELIVERY_LIMITS, ...input.limits };
  const timing = input.timing ?? {};
  const scale = timing.retryScale ?? 1;
  const breakerLimits = { ...limits, coolDownMs: Math.max(1, Math.round(limits.coolDownMs * scale)), maxCoolDownMs: Math.max(1, Math.round(limits.maxCoolDownMs * scale)) };
  const mail = proxyActivities<Activities>(mailProfile(timing));
  let format: WebhookFormat = input.format;
  let breaker: BreakerState = input.carried?.breaker ?? initialBreaker(breakerLimits);
  let decisions: RetryDecision[] = input.carried?.decisions ?? [];
  let woken = false;
  let delivered = 0;
  let turn = 0;
  setHandler(deliveriesDue, () => {
    woken = true;
  });
  setHandler(endpointDeliveryProgress, () => ({ breaker, batches: turn, delivered }));

  for (; turn < limits.batchesPerRun; turn++) {
    const cooling = coolDownLeftMs(breaker, Date.now());
    if (cooling !== null && cooling > 0 && decisions.length === 0) {
      // Open: nothing is sent until the cool-down is over; wake-ups do not shorten it.
      await sleep(cooling);
      continue;
    }
    if (cooling === 0) breaker = breakerAfter(breaker, 'cooled_down', { failures: 0, now: Date.now(), limits: breakerLimits });

    const allowance = batchAllowance(breaker, limits);
    const batches = proxyActivities<Activities>(
      webhookBatchProfile(timing, { responseWindowMs: FORMAT_RULES[format].responseWindowMs, rounds: Math.ceil(allowance.claim / limits.concurrency), drainMs: limits.drainMs }),
    );
    const report = await batches.deliverWebhookBatch({
      organizationId: input.organizationId,
      endpointId: input.endpointId,
      token: `${workflowInfo().runId}:${turn}`,
      claim: allowance.claim,
      concurrency: limits.concurrency,
      stopAfterFailures: allowance.stopAfterFailures,
      drainMs: breaker.state === 'closed' ? limits.drainMs : 0,
      lingerMs: limits.lingerMs,
      decisions,
      clockScale: scale,
    });
    decisions = [];
    if (report.endpoint === 'deleted') return { ended: 'endpoint_deleted' };
    if (report.format) format = report.format;
    delivered += report.delivered;
    // D13: this batch disabled the endpoint; its technical contact gets the one email about it. A
    // mail server down for longer than the mail profile's day loses the email, not the deliveries.
    if (report.disabled) await mail.sendEndpointDisabledNotice({ organizationId: input.organizationId, ...report.disabled }).catch(() => undefined);

    for (const failure of report.retry) {
      const next = nextAttemptFor(format, failure.attempt);
      if (!next.retry) {
        decisions.push({ deliveryId: failure.deliveryId, attempt: failure.attempt, exhausted: true });
        continue;
      }
      // Rounded up for the long schedules: a shortened clock never ends their 24 hours early.
      const scaled = next.delayMs * scale;
      decisions.push({ deliveryId: failure.deliveryId, attempt: failure.attempt, delayMs: Math.max(1, format === 'core' ? Math.round(scaled) : Math.ceil(scaled)) });
    }
    const event = batchEvent({ delivered: report.attempts.delivered, retryableFailures: report.attempts.retryable_failure });
    if (event) breaker = breakerAfter(breaker, event, { failures: report.attempts.retryable_failure, now: Date.now(), limits: breakerLimits });

    // Decisions are recorded by the very next batch, before anything else is claimed.
    if (decisions.length > 0) continue;
    // The top of the loop waits out an open breaker's cool-down.
    if (breaker.state === 'open') continue;
    // Only a batch that found nothing due marked the endpoint idle (so that the next event's
    // dispatcher signals): until then, look again at once.
    if (!report.idle) continue;

    // Nothing due now: wait for the earliest retry, a wake-up (the endpoint is marked idle, so the
    // next event's dispatcher signals), or the periodic look that bounds a lost wake-up.
    const waitMs = Math.min(report.nextDueInMs ?? limits.idleCheckMs, limits.idleCheckMs);
    if (waitMs > 0) await condition(() => woken, waitMs);
    woken = false;
  }
  await continueAsNew<EndpointDeliveryWorkflow>({ ...input, format, carried: { breaker, decisions } });
  return { ended: 'endpoint_deleted' }; // not reached: continueAsNew throws
};
