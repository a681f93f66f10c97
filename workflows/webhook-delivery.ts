import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { databaseProfile, webhookAttemptProfile, type Timing } from './activity-profiles';
import { nextAttempt } from './webhook-backoff';

export interface WebhookDeliveryInput {
  organizationId: string;
  deliveryId: string;
  timing?: Timing;
}

/**
 * Section 6.3: one delivery of one event to one endpoint, id `webhook-<eventId>-<endpointId>-<series>`.
 * At most five attempts; after a retryable failure it waits 2^n seconds with jitter (the timer is
 * durable, so a worker restart does not lose the schedule). Each attempt is one activity that
 * POSTs, logs and updates the endpoint's failure clock; the activity itself is not retried for
 * HTTP failures, only for its own database trouble.
 */
export async function deliverWebhook(input: WebhookDeliveryInput): Promise<{ status: 'delivered' | 'failed' | 'missed' }> {
  const timing = input.timing ?? {};
  const attempts = proxyActivities<Activities>(webhookAttemptProfile(timing));
  const db = proxyActivities<Activities>(databaseProfile(timing));
  for (let attempt = 1; ; attempt++) {
    const result = await attempts.attemptWebhookDelivery({ organizationId: input.organizationId, deliveryId: input.deliveryId, attempt });
    if (result.finished) return { status: result.finished };
    const next = nextAttempt(attempt);
    if (!next.retry) {
      await db.finishWebhookDelivery({ organizationId: input.organizationId, deliveryId: input.deliveryId, status: 'failed' });
      return { status: 'failed' };
    }
    await sleep(Math.max(1, Math.round(next.delayMs * (timing.retryScale ?? 1))));
  }
}
