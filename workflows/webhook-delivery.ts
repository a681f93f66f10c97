import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { WebhookDeliveryWorkflow } from '../activities/temporal/contracts';
import { databaseProfile, mailProfile, webhookAttemptProfile } from './activity-profiles';
import { nextAttempt } from './webhook-backoff';

/**
 * Section 6.3: one delivery of one event to one endpoint, id `webhook-<eventId>-<endpointId>-<series>`.
 * This workflow alone decides what follows an attempt: at most five, and after a retryable failure
 * a wait of 2^n seconds with jitter (a durable timer, so a worker restart does not lose the
 * schedule). Each attempt is one activity that POSTs, logs and keeps the endpoint's failure clock,
 * and reports what happened; it is retried only for its own database trouble, never for HTTP.
 */
export const deliverWebhook: WebhookDeliveryWorkflow = async function deliverWebhook(input) {
  const timing = input.timing ?? {};
  const attempts = proxyActivities<Activities>(webhookAttemptProfile(timing));
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const mail = proxyActivities<Activities>(mailProfile(timing));
  const ref = { organizationId: input.organizationId, deliveryId: input.deliveryId };
  for (let attempt = 1; ; attempt++) {
    const report = await attempts.attemptWebhookDelivery({ ...ref, attempt });
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
    const next = nextAttempt(attempt);
    if (!next.retry) {
      await db.finishWebhookDelivery({ ...ref, status: 'failed' });
      return { status: 'failed' };
    }
    await sleep(Math.max(1, Math.round(next.delayMs * (timing.retryScale ?? 1))));
  }
};
