import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MockActivityEnvironment } from '@temporalio/testing';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { sampleEventData } from '../../scripts/harness/sample-events';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { recordEvent } from '../../db/events/outbox';
import { createDeliveriesForEvents } from '../../db/webhooks/deliveries';
import { inTenant } from '../../db/tenant-scope';
import { createWebhookActivities } from '../../activities/webhooks';
import type { BatchInput, BatchReport } from '../../activities/webhooks/delivery-batch';
import { workerOrm } from '../support/worker-db';

/**
 * The batch activity alone (activities/webhooks/delivery-batch.ts), as the worker builds it and
 * runs it, with Temporal's activity context mocked (MockActivityEnvironment: its heartbeats are
 * events here) and no Temporal server: the database as the worker's role and a loopback receiver
 * are real. The endpoint workflow that decides between batches is tested in
 * webhook-endpoint-delivery.test.ts; here, what one batch does with the deliveries it finds.
 */
const KEY = randomBytes(32).toString('base64');
let owner: pg.Pool;
let api: ApiHarness;
let orm: MikroORM;
let tenant: Tenant;
let admin: string;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi({ env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  orm = await workerOrm();
  tenant = await createTenant(owner, { admin: 'ADMIN' });
  admin = await api.tokenFor(tenant.users.admin!);
}, 60_000);
afterAll(async () => {
  for (const r of receivers) await r.close();
  await orm.close(true);
  await api.close();
  await owner.end();
});

/** A loopback receiver and an endpoint of this tenant subscribed to it. */
async function endpointAt(): Promise<{ endpointId: string; receiver: WebhookReceiver }> {
  const receiver = await new WebhookReceiver().start();
  receivers.push(receiver);
  const res = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['work_order.dispatched'] } });
  expect(res.status).toBe(201);
  return { endpointId: ((await res.json()) as { id: string }).id, receiver };
}

/** `count` events committed and their delivery rows written, as the dispatcher writes them, without waking any workflow. */
async function due(count: number): Promise<void> {
  const envelopes = await inTenant(orm.em, tenant.id, async (tx) => {
    const made = [];
    for (let i = 0; i < count; i++) made.push(await recordEvent(tx, tenant.id, 'work_order.dispatched', sampleEventData('work_order.dispatched', { work_order_id: randomUUID() })));
    return made;
  });
  await createDeliveriesForEvents(orm.em, tenant.id, envelopes);
}

/** The worker's batch activity, run in a mocked activity context; `heartbeats` counts what it reported. */
async function batch(input: Omit<BatchInput, 'organizationId' | 'token'>): Promise<{ report: BatchReport; heartbeats: number }> {
  const env = new MockActivityEnvironment({ activityType: 'deliverWebhookBatch' });
  let heartbeats = 0;
  env.on('heartbeat', () => {
    heartbeats += 1;
  });
  const activities = createWebhookActivities({ em: orm.em, webhooks: { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true } });
  const report = await env.run<[BatchInput], BatchReport, typeof activities.deliverWebhookBatch>(activities.deliverWebhookBatch, { organizationId: tenant.id, token: randomUUID(), ...input });
  return { report, heartbeats };
}

const rows = async (endpointId: string) =>
  (await owner.query<{ id: string; status: string; attempts: number }>('select id, status, attempts from webhook_deliveries where endpoint_id = $1 order by created_at, id', [endpointId])).rows;

describe('one batch of an endpoint, alone', () => {
  it('drains: round after round while everything delivers, then marks the endpoint idle', async () => {
    const { endpointId, receiver } = await endpointAt();
    await due(7);
    const { report } = await batch({ endpointId, claim: 3, concurrency: 3, stopAfterFailures: 3, decisions: [], drainMs: 60_000, lingerMs: 0 });
    expect(report).toMatchObject({ endpoint: 'enabled', format: 'core', delivered: 7, failed: 0, retry: [], moreDue: false, idle: true, nextDueInMs: null });
    expect(report.attempts).toEqual({ delivered: 7, retryable_failure: 0, permanent_failure: 0 });
    expect(receiver.received).toHaveLength(7);
    expect((await rows(endpointId)).map((r) => [r.status, r.attempts])).toEqual(Array.from({ length: 7 }, () => ['delivered', 1]));
  });

  it('without a drain, one round: the rest stays due for the next batch', async () => {
    const { endpointId, receiver } = await endpointAt();
    await due(5);
    const { report } = await batch({ endpointId, claim: 2, concurrency: 2, stopAfterFailures: 2, decisions: [], drainMs: 0 });
    expect(report).toMatchObject({ delivered: 2, moreDue: true, idle: false });
    expect(receiver.received).toHaveLength(2);
    expect((await rows(endpointId)).filter((r) => r.status === 'pending')).toHaveLength(3);
  });

  it('a retryable failure ends the drain and goes back to the workflow; nothing is rescheduled here', async () => {
    const { endpointId, receiver } = await endpointAt();
    receiver.script({ status: 200 }, { status: 503 });
    await due(4);
    const { report } = await batch({ endpointId, claim: 2, concurrency: 1, stopAfterFailures: 5, decisions: [], drainMs: 60_000, lingerMs: 0 });
    expect(receiver.received).toHaveLength(2);
    expect(report).toMatchObject({ delivered: 1, failed: 0, moreDue: true });
    expect(report.attempts).toEqual({ delivered: 1, retryable_failure: 1, permanent_failure: 0 });
    expect(report.retry).toEqual([{ deliveryId: expect.any(String), attempt: 1 }]);
    const after = await rows(endpointId);
    expect(after.find((r) => r.id === report.retry[0]!.deliveryId)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(after.filter((r) => r.status === 'pending')).toHaveLength(3);
  });

  it("the breaker's budget stops new requests after failures in a row; the next batch records the workflow's decisions first", async () => {
    const { endpointId, receiver } = await endpointAt();
    receiver.script({ status: 503 }, { status: 503 }); // then 200s
    await due(5);
    const first = await batch({ endpointId, claim: 5, concurrency: 1, stopAfterFailures: 2, decisions: [], drainMs: 60_000, lingerMs: 0 });
    expect(receiver.received).toHaveLength(2);
    expect(first.report).toMatchObject({ delivered: 0, moreDue: true });
    expect(first.report.retry).toHaveLength(2);

    // The workflow's schedule gave up on both (exhausted); the three released rows are due again.
    const decisions = first.report.retry.map((r) => ({ ...r, exhausted: true as const }));
    const second = await batch({ endpointId, claim: 5, concurrency: 1, stopAfterFailures: 2, decisions, drainMs: 60_000, lingerMs: 0 });
    expect(second.report.failedIds.sort()).toEqual(first.report.retry.map((r) => r.deliveryId).sort());
    expect(second.report).toMatchObject({ failed: 2, delivered: 3, retry: [], idle: true });
    expect(receiver.received).toHaveLength(5);
    expect((await rows(endpointId)).map((r) => r.status).sort()).toEqual(['delivered', 'delivered', 'delivered', 'failed', 'failed']);
  });

  it('heartbeats while its requests are out, so a worker that dies mid-batch is noticed', async () => {
    const { endpointId, receiver } = await endpointAt();
    receiver.script({ status: 200, afterMs: 2_500 });
    await due(1);
    const { report, heartbeats } = await batch({ endpointId, claim: 1, concurrency: 1, stopAfterFailures: 1, decisions: [] });
    expect(report.delivered).toBe(1);
    // One a second while the request waits for its answer.
    expect(heartbeats).toBeGreaterThanOrEqual(2);
  });
});
