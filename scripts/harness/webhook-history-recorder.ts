import type { temporal } from '@temporalio/proto';
import { randomBytes, randomUUID } from 'node:crypto';
import { startApi } from './api-harness';
import { createTenant, ownerPool } from './owner-db';
import { startTemporalHarness } from './temporal-harness';
import { WebhookReceiver } from './webhook-receiver';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { recordEvent } from '../../db/events/outbox';
import { inTenant } from '../../db/tenant-scope';
import type { OutboxEventName } from '../../db/events/catalogue';
import { WORKFLOW_TYPES, webhookWorkflowId, type ExpireQuotesWorkflow, type RoundTripWorkflow } from '../../activities/temporal/contracts';

type History = temporal.api.history.v1.IHistory;

/**
 * Runs the webhook delivery workflow through its real paths on a loopback receiver (one delivery
 * that fails once and is retried after its durable timer, one refused for good), and the expiry
 * and round-trip workflows once, and returns their histories. Used by scripts/record-histories.ts.
 * The receivers are on 127.0.0.1, allowed by OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK alone (D6: the
 * address guard stays on for every other address). D13's formats add a field delivery retried
 * on its own schedule and an events delivery whose 410 disables its endpoint.
 */
export async function recordWebhookAndScheduleHistories(): Promise<Record<string, History>> {
  const key = randomBytes(32).toString('base64');
  const owner = ownerPool();
  const harness = await startTemporalHarness();
  await harness.startWorker({ webhooks: { cipher: new CredentialCipher(key), allowPrivateNetworks: false, allowLoopback: true } });
  const api = await startApi({ events: harness.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: key, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  const receiver = await new WebhookReceiver().start();
  try {
    const tenant = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    const admin = await api.tokenFor(tenant.users.admin!);
    const endpoint = (await (await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['*'] } })).json()) as { id: string };

    const delivered = async (answers: { status: number }[]) => {
      receiver.script(...answers);
      const created = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { assignedTechnicianId: tenant.users.tech!.id } });
      const workOrderId = ((await created.json()) as { id: string }).id;
      await api.request(`/api/v1/work-orders/${workOrderId}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' } });
      const [row] = (await owner.query(`select event_id from webhook_deliveries where endpoint_id = $1 order by created_at desc limit 1`, [endpoint.id])).rows as { event_id: string }[];
      const handle = harness.client.workflow.getHandle(webhookWorkflowId(row!.event_id, endpoint.id, 0));
      await handle.result();
      return handle.fetchHistory();
    };
    const retried = await delivered([{ status: 503 }, { status: 200 }]);
    const refused = await delivered([{ status: 400 }]);
    // Issue 17: all five attempts fail; the delivery says `failed` in DeliveryStatus (the patched path).
    const exhausted = await delivered(Array.from({ length: 5 }, () => ({ status: 503 })));
    const disabled = await disabledWithNotice();
    const field = await inFormat('field', 'job.status_changed', [{ status: 503 }, { status: 400 }, { status: 200 }]);
    const gone = await inFormat('events', 'quote.created', [{ status: 410 }]);

    /** D13: one event straight into the outbox (as the services record it) to a new endpoint of `format`, dispatched. */
    async function inFormat(format: 'field' | 'events', event: OutboxEventName, answers: { status: number }[]) {
      const other = await createTenant(owner, { admin: 'ADMIN' });
      const token = await api.tokenFor(other.users.admin!);
      const target = await new WebhookReceiver().start();
      try {
        target.script(...answers);
        const created = (await (await api.request('/api/v1/webhook-endpoints', { method: 'POST', token, json: { url: target.url, format, events: [event] } })).json()) as { id: string };
        const envelope = await inTenant(harness.orm.em, other.id, (tx) => recordEvent(tx, other.id, event, { id: randomUUID() }));
        await harness.dispatcher.dispatch(envelope);
        const handle = harness.client.workflow.getHandle(webhookWorkflowId(envelope.id, created.id, 0));
        await handle.result();
        return handle.fetchHistory();
      } finally {
        await target.close();
      }
    }

    /** D13: an attempt that disables its endpoint (72 hours of failures behind it), then the notice activity. */
    async function disabledWithNotice() {
      const failing = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
      const token = await api.tokenFor(failing.users.admin!);
      const down = await new WebhookReceiver().start();
      try {
        down.script(...Array.from({ length: 5 }, () => ({ status: 500 })));
        const created = (await (await api.request('/api/v1/webhook-endpoints', { method: 'POST', token, json: { url: down.url, events: ['*'] } })).json()) as { id: string };
        await owner.query(`update webhook_endpoints set failing_since = now() - interval '73 hours' where id = $1`, [created.id]);
        const order = await api.request('/api/v1/work-orders', { method: 'POST', token, json: { assignedTechnicianId: failing.users.tech!.id } });
        const orderId = ((await order.json()) as { id: string }).id;
        await api.request(`/api/v1/work-orders/${orderId}/status`, { method: 'PATCH', token, json: { status: 'DISPATCHED' } });
        const [row] = (await owner.query(`select event_id from webhook_deliveries where endpoint_id = $1`, [created.id])).rows as { event_id: string }[];
        const handle = harness.client.workflow.getHandle(webhookWorkflowId(row!.event_id, created.id, 0));
        await handle.result();
        return handle.fetchHistory();
      } finally {
        await down.close();
      }
    }

    const expiryId = `record-expiry-${randomUUID()}`;
    await harness.client.workflow.execute<ExpireQuotesWorkflow>(WORKFLOW_TYPES.expireQuotes, { taskQueue: harness.taskQueue, workflowId: expiryId, args: [{}] });
    const roundTripId = `record-round-trip-${randomUUID()}`;
    await harness.client.workflow.execute<RoundTripWorkflow>(WORKFLOW_TYPES.roundTrip, { taskQueue: harness.taskQueue, workflowId: roundTripId, args: [{ sentAt: '2026-11-23T00:00:00.000Z' }] });
    return {
      'webhook-delivery-retried-then-delivered': retried,
      'webhook-delivery-refused': refused,
      'webhook-delivery-exhausted-status': exhausted,
      'webhook-delivery-disabled-notice': disabled,
      'webhook-delivery-field-retried-then-delivered': field,
      'webhook-delivery-events-gone': gone,
      'expire-quotes': await harness.client.workflow.getHandle(expiryId).fetchHistory(),
      'round-trip': await harness.client.workflow.getHandle(roundTripId).fetchHistory(),
    };
  } finally {
    await receiver.close();
    await api.close();
    await harness.close();
    await owner.end();
  }
}
