import { patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { WebhookDeliveryWorkflow } from '../infra/temporal/contracts';
import type { WebhookFormat } from '../domain/webhooks/formats';
import { databaseProfile, longWebhookAttemptProfile, mailProfile, webhookAttemptProfile } from './activity-profiles';
import { nextAttempt } from '../domain/webhooks/backoff';
import { nextAttemptFor } from '../domain/webhooks/schedules';

/** D13's formats: histories recorded before them replay the core schedule they ran. */
export const WEBHOOK_FORMATS_PATCH = 'webhook-delivery-formats';

/**
 * Section 6.3: one delivery of one event to one endpoint, id `webhook-<eventId>-<endpointId>-<series>`.
 * This workflow alone decides what follows an attempt: at most five, and after a retryable failure
 * a wait of 2^n seconds with jitter (a durable timer, so a worker restart does not lose the
 * schedule). Each attempt is one activity that POSTs, logs and keeps the endpoint's failure clock,
 * and reports what happened; it is retried only for its own database trouble, never for HTTP.
 *
 * D13: a `field` or `events` endpoint's delivery follows its format's 24-hour schedule
 * (webhook-schedules.ts) with durable timers, so a worker restart in the middle loses nothing;
 * the attempt reports the endpoint's format, and the failure clock is shortened by the same
 * `retryScale` as the waits.
 */
export const deliverWebhook: WebhookDeliveryWorkflow = async function deliverWebhook(input) {
  const timing = input.timing ?? {};
  const formats = patched(WEBHOOK_FORMATS_PATCH);
  // An events attempt may wait 300 seconds for its answer: its activity has the room for it.
  const attempts = proxyActivities<Activities>(formats && input.format === 'events' ? longWebhookAttemptProfile(timing) : webhookAttemptProfile(timing));
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const mail = proxyActivities<Activities>(mailProfile(timing));
  const ref = { organizationId: input.organizationId, deliveryId: input.deliveryId };
  let format: WebhookFormat = 'core';
  for (let attempt = 1; ; attempt++) {
    const report = await attempts.attemptWebhookDelivery(formats ? { ...ref, attempt, clockScale: timing.retryScale ?? 1 } : { ...ref, attempt });
    if (formats && report.format) format = report.format;
    // D13: this attempt disabled the endpoint; its technical contact gets the one email about it.
    // A mail server down for longer than the mail profile's day of retries loses the email, not
    // the delivery: the failure stays in this workflow's history and the delivery goes on.
    if ('disabled' in report && report.disabled) {
      await mail.sendEndpointDisabledNotice({ organizationId: input.organizationId, ...report.disabled }).catch(() => undefined);
    }
    switch (report.outcome) {
      case 'delivered':
      case 'already_delivered':
        return { status: 'delivered' };
      case 'endpoint_deleted':
        return { status: 'failed' };
      case 'endpoint_disabled':
        // Kept as missed: re-enabling the endpoint replays it (D6).
        await db.finishWebhookDelivery({ ...ref, status: 'missed', error: 'endpoint disabled' });
        return { status: 'missed' };
      case 'permanent_failure':
        await db.finishWebhookDelivery({ ...ref, status: 'failed' });
        return { status: 'failed' };
      case 'retryable_failure':
        break;
    }
    if (!formats) {
      const next = nextAttempt(attempt);
      if (!next.retry) {
        await db.finishWebhookDelivery({ ...ref, status: 'failed' });
        return { status: 'failed' };
      }
      await sleep(Math.max(1, Math.round(next.delayMs * (timing.retryScale ?? 1))));
      continue;
    }
    const next = nextAttemptFor(format, attempt);
    if (!next.retry) {
      await db.finishWebhookDelivery({ ...ref, status: 'failed' });
      return { status: 'failed' };
    }
    // Rounded up for the long schedules: a shortened clock never ends their 24 hours early.
    const scaled = next.delayMs * (timing.retryScale ?? 1);
    await sleep(Math.max(1, format === 'core' ? Math.round(scaled) : Math.ceil(scaled)));
  }
};
