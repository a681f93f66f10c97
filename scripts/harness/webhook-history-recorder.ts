import type { temporal } from '@temporalio/proto';
import { randomBytes, randomUUID } from 'node:crypto';
import { startApi } from './api-harness';
import { createTenant, ownerPool } from './owner-db';
import { WebhookReceiver } from './webhook-receiver';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { recordEvent } from '../../db/events/outbox';
import { sampleEventData } from './sample-events';
import { inTenant } from '../../db/tenant-scope';
import { DELIVERIES_DUE, WORKFLOW_TYPES, endpointDeliveryWorkflowId, type ExpireQuotesWorkflow, type RoundTripWorkflow } from '../../infra/temporal/contracts';
import { EventDispatcher } from '../../infra/events/dispatcher';
import { createLogger } from '../../infra/runtime/logger';
import { startTemporalHarness, TEST_TIMING } from './temporal-harness';

type History = temporal.api.history.v1.IHistory;

/**
 * Runs the endpoint delivery workflow through its real paths on a loopback receiver,
 * and the expiry and round-trip workflows once, and returns their histories. Used by
 * scripts/record-histories.ts. The receivers are on 127.0.0.1, allowed by
 * OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK alone (D6: the address guard stays on for every other address).
 */
export async function recordWebhookAndScheduleHistories(): Promise<Record<string, History>> {
  const key = randomBytes(32).toString('base64');
  const owner = ownerPool();
  const harness = await startTemporalHarness();
  await harness.startWorker({ webhooks: { cipher: new CredentialCipher(key), allowPrivateNetworks: false, allowLoopback: true } });
  const api = await startApi({ events: harness.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: key, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  try {
    const endpointRuns = await endpointWorkflowRuns();

    /**
     * One endpoint's workflow through its paths: a batch of two deliveries, one answered 503 and
     * retried after the schedule's wait (decision recorded by the next batch, durable timer), the
     * idle wait woken by the next event's signal, continue-as-new after three turns, and the end
     * once the endpoint is deleted. Returns the first run (ends continued as new) and the last.
     */
    async function endpointWorkflowRuns() {
      const other = await createTenant(owner, { admin: 'ADMIN' });
      const token = await api.tokenFor(other.users.admin!);
      const target = await new WebhookReceiver().start();
      const dispatcher = new EventDispatcher(harness.client, harness.orm.em, { taskQueue: harness.taskQueue, timing: TEST_TIMING, logger: createLogger('silent'), endpointLimits: { batchesPerRun: 3 } });
      try {
        target.script({ status: 503 });
        const created = (await (await api.request('/api/v1/webhook-endpoints', { method: 'POST', token, json: { url: target.url, events: ['work_order.dispatched'] } })).json()) as { id: string };
        const send = async () => {
          const envelope = await inTenant(harness.orm.em, other.id, (tx) => recordEvent(tx, other.id, 'work_order.dispatched', sampleEventData('work_order.dispatched', { work_order_id: randomUUID() })));
          await dispatcher.dispatch(envelope);
        };
        await send();
        await send();
        await target.waitFor(3);
        await send();
        await target.waitFor(4);
        const workflowId = endpointDeliveryWorkflowId(created.id);
        const handle = harness.client.workflow.getHandle(workflowId);
        await api.request(`/api/v1/webhook-endpoints/${created.id}`, { method: 'DELETE', token });
        await handle.signal(DELIVERIES_DUE);
        await handle.result();
        const last = await handle.fetchHistory();
        // Back along the chain of runs (each names the run it continued) to the first.
        let first = last;
        for (;;) {
          const previous = first.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
          if (!previous) break;
          first = await harness.client.workflow.getHandle(workflowId, previous).fetchHistory();
        }
        return { first, last };
      } finally {
        await target.close();
      }
    }

    const expiryId = `record-expiry-${randomUUID()}`;
    await harness.client.workflow.execute<ExpireQuotesWorkflow>(WORKFLOW_TYPES.expireQuotes, { taskQueue: harness.taskQueue, workflowId: expiryId, args: [{}] });
    const roundTripId = `record-round-trip-${randomUUID()}`;
    await harness.client.workflow.execute<RoundTripWorkflow>(WORKFLOW_TYPES.roundTrip, { taskQueue: harness.taskQueue, workflowId: roundTripId, args: [{ sentAt: '2026-11-23T00:00:00.000Z' }] });
    return {
      'webhook-endpoint-retried-continued': endpointRuns.first,
      'webhook-endpoint-deleted': endpointRuns.last,
      'expire-quotes': await harness.client.workflow.getHandle(expiryId).fetchHistory(),
      'round-trip': await harness.client.workflow.getHandle(roundTripId).fetchHistory(),
    };
  } finally {
    await api.close();
    await harness.close();
    await owner.end();
  }
}
