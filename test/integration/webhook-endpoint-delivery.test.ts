import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { recordEvent } from '../../db/events/outbox';
import { sampleEventData } from '../../scripts/harness/sample-events';
import { checkRecordedEvents } from '../support/recorded-events';
import { inTenant } from '../../db/tenant-scope';
import { EventDispatcher } from '../../infra/events/dispatcher';
import { createLogger } from '../../infra/runtime/logger';
import { ENDPOINT_DELIVERY_PROGRESS, endpointDeliveryWorkflowId, type EndpointDeliveryLimits, type EndpointDeliveryProgress } from '../../infra/temporal/contracts';
import { ENDPOINT_DELIVERY_LIMITS } from '../../workflows/webhook-endpoint-delivery';
import { MAX_DELIVERY_ATTEMPTS } from '../../domain/webhooks/backoff';

/**
 * Deliveries carried by one long-lived workflow per endpoint (docs/webhook-delivery.md).
 * Many events to one endpoint in batches; a dead neighbour whose breaker is open costs the healthy
 * endpoint nothing; retries keep the envelope id and stop at the schedule's limit; continue-as-new
 * carries the breaker and the retry decisions. (A worker killed mid-batch: webhook-worker-crash.)
 */
const KEY = randomBytes(32).toString('base64');
/** Every attempt's window in this suite: a silent receiver times out in 1.5 s. */
const WINDOW_MS = 1500;
let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let tenant: Tenant;
let admin: string;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  owner = ownerPool();
  temporal = await startTemporalHarness();
  await temporal.startWorker({ webhooks: { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true, timeoutMs: WINDOW_MS } });
  api = await startApi({ events: temporal.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  tenant = await createTenant(owner, { admin: 'ADMIN' });
  admin = await api.tokenFor(tenant.users.admin!);
}, 120_000);
afterAll(async () => {
  for (const close of closers) await close();
  await api.close();
  await temporal.close();
  await owner.end();
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await new WebhookReceiver().start();
  closers.push(() => r.close());
  return r;
}
/** A receiver that takes every request and never answers: each attempt times out. */
async function silentReceiver(): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server: Server = createServer(() => {
    requests += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}
const unsubscribe = async (endpointId: string) => {
  expect((await api.request(`/api/v1/webhook-endpoints/${endpointId}`, { method: 'DELETE', token: admin })).status).toBe(204);
};
async function subscribe(url: string): Promise<string> {
  const res = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url, events: ['work_order.dispatched'] } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}
/** `count` events committed as the services record them, each dispatched after its commit. */
async function emit(count: number, dispatcher: EventDispatcher = temporal.dispatcher): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const envelope = await inTenant(temporal.orm.em, tenant.id, (tx) => recordEvent(tx, tenant.id, 'work_order.dispatched', sampleEventData('work_order.dispatched', { work_order_id: randomUUID() })));
    await dispatcher.dispatch(envelope);
    ids.push(envelope.id);
  }
  return ids;
}
const rowsOf = async (endpointId: string) =>
  (await owner.query<{ event_id: string; status: string; attempts: number }>('select event_id, status, attempts from webhook_deliveries where endpoint_id = $1', [endpointId])).rows;
async function allSettled(endpointId: string, count: number, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await rowsOf(endpointId);
    if (rows.length === count && rows.every((r) => r.status !== 'pending')) return rows;
    if (Date.now() > deadline) throw new Error(`${rows.filter((r) => r.status === 'pending').length} of ${rows.length} deliveries still pending`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const progressOf = (endpointId: string) => temporal.client.workflow.getHandle(endpointDeliveryWorkflowId(endpointId)).query<EndpointDeliveryProgress>(ENDPOINT_DELIVERY_PROGRESS);
const dispatcherWith = (limits: Partial<EndpointDeliveryLimits>) =>
  new EventDispatcher(temporal.client, temporal.orm.em, { taskQueue: temporal.taskQueue, timing: TEST_TIMING, logger: createLogger('silent'), endpointLimits: limits });

describe('one workflow per endpoint', () => {
  it('delivers many events to one endpoint in batches: each once, signed, logged, in far fewer turns than deliveries', async () => {
    const r = await receiver();
    const endpointId = await subscribe(r.url);
    const count = ENDPOINT_DELIVERY_LIMITS.batchSize + 50;
    // Committed together first, so that they queue up and the batches fill.
    const envelopes = await inTenant(temporal.orm.em, tenant.id, async (tx) => {
      const made = [];
      for (let i = 0; i < count; i++) made.push(await recordEvent(tx, tenant.id, 'work_order.dispatched', sampleEventData('work_order.dispatched', { work_order_id: randomUUID() })));
      return made;
    });
    await Promise.all(envelopes.map((e) => temporal.dispatcher.dispatch(e)));
    const rows = await allSettled(endpointId, count);
    expect(rows.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
    const ids = r.received.map((got) => got.headers['x-service-delivery']);
    expect(new Set(ids).size).toBe(count);
    expect(ids.sort()).toEqual(envelopes.map((e) => e.id).sort());
    expect(r.received.every((got) => /^t=\d+,v1=[0-9a-f]{64}$/.test(got.headers['x-service-signature'] as string))).toBe(true);
    const { rows: attempts } = await owner.query('select count(*)::int as n from webhook_delivery_attempts where endpoint_id = $1', [endpointId]);
    expect(attempts[0].n).toBe(count);
    // The workflow hears of them when its batch activity returns (after its last round and a short linger).
    let progress = await progressOf(endpointId);
    for (let i = 0; i < 200 && progress.delivered < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      progress = await progressOf(endpointId);
    }
    expect(progress.delivered).toBe(count);
    // One workflow, a handful of batches: not a workflow (nor a turn) per delivery.
    expect(progress.batches).toBeLessThan(count / 5);
    expect(progress.breaker.state).toBe('closed');
    await unsubscribe(endpointId);
  });

  it('a batch of events dispatched at once (the relay\'s way) reaches every subscribed endpoint, and every event is marked dispatched', async () => {
    const [a, b] = [await receiver(), await receiver()];
    const [aId, bId] = [await subscribe(a.url), await subscribe(b.url)];
    const envelopes = await inTenant(temporal.orm.em, tenant.id, async (tx) => {
      const made = [];
      for (let i = 0; i < 20; i++) made.push(await recordEvent(tx, tenant.id, 'work_order.dispatched', sampleEventData('work_order.dispatched', { work_order_id: randomUUID() })));
      return made;
    });
    await temporal.dispatcher.dispatchMany(envelopes);
    const { rows: undispatched } = await owner.query('select count(*)::int as n from outbox_events where id = any($1::uuid[]) and dispatched_at is null', [envelopes.map((e) => e.id)]);
    expect(undispatched[0].n).toBe(0);
    for (const [r, endpointId] of [[a, aId], [b, bId]] as const) {
      expect((await allSettled(endpointId, 20)).every((row) => row.status === 'delivered')).toBe(true);
      expect(new Set(r.received.map((got) => got.headers['x-service-delivery']))).toEqual(new Set(envelopes.map((e) => e.id)));
      await unsubscribe(endpointId);
    }
  });

  it('retries keep the same envelope id, and stop at the schedule\'s limit (5 for core)', async () => {
    const r = (await receiver()).script(...Array.from({ length: MAX_DELIVERY_ATTEMPTS }, () => ({ status: 503 })));
    const endpointId = await subscribe(r.url);
    const [eventId] = await emit(1);
    const [row] = await allSettled(endpointId, 1);
    // Failed is terminal: no attempt follows it, and each attempt was recorded after the
    // receiver answered it, so the receiver's count is final.
    expect(row).toMatchObject({ status: 'failed', attempts: MAX_DELIVERY_ATTEMPTS });
    expect(r.received).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(new Set(r.received.map((got) => got.headers['x-service-delivery']))).toEqual(new Set([eventId]));
    const { rows: log } = await owner.query('select attempt, outcome, response_status from webhook_delivery_attempts where endpoint_id = $1 order by attempt', [endpointId]);
    expect(log.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(log.every((a: { outcome: string; response_status: number }) => a.outcome === 'retryable_failure' && a.response_status === 503)).toBe(true);
    await unsubscribe(endpointId);
  });

  it('an endpoint whose receiver never answers opens its breaker, and the healthy endpoint beside it is not delayed', async () => {
    const dead = await silentReceiver();
    const healthy = await receiver();
    const deadId = await subscribe(dead.url);
    const healthyId = await subscribe(healthy.url);
    const first = await emit(30);
    await healthy.waitFor(30, 20_000);
    // The dead endpoint's first batch times out on its first round; the breaker opens.
    const deadline = Date.now() + 20_000;
    while ((await progressOf(deadId)).breaker.state === 'closed') {
      if (Date.now() > deadline) throw new Error('the breaker did not open');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // While it is open (or probing), each new event reaches the healthy receiver at once.
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const before = healthy.received.length;
      const sent = Date.now();
      await emit(1);
      await healthy.waitFor(before + 1, 10_000);
      latencies.push(Date.now() - sent);
    }
    expect(Math.max(...latencies)).toBeLessThan(WINDOW_MS);
    // The dead receiver saw at most one round of the endpoint's concurrency and the probes since.
    expect(dead.requests()).toBeLessThanOrEqual(ENDPOINT_DELIVERY_LIMITS.concurrency + 10);
    const deadRows = await rowsOf(deadId);
    expect(deadRows).toHaveLength(first.length + 10);
    // Held, not spent: most of its deliveries have not been attempted at all, and none is lost.
    expect(deadRows.filter((row) => row.attempts === 0).length).toBeGreaterThan(first.length - ENDPOINT_DELIVERY_LIMITS.concurrency);
    expect(deadRows.every((row) => row.status === 'pending')).toBe(true);
    await unsubscribe(deadId);
    await unsubscribe(healthyId);
  }, 90_000);

  it('continues as new after every batch and still delivers every retry: the decisions and the breaker are carried', async () => {
    const dispatcher = dispatcherWith({ batchesPerRun: 1 });
    // Two failures, then success for everything: two deliveries need a second attempt.
    const r = (await receiver()).script({ status: 503 }, { status: 503 });
    const endpointId = await subscribe(r.url);
    const ids = await emit(4, dispatcher);
    const rows = await allSettled(endpointId, 4);
    expect(rows.every((row) => row.status === 'delivered')).toBe(true);
    expect(rows.map((row) => row.attempts).sort()).toEqual([1, 1, 2, 2]);
    expect(new Set(r.received.map((got) => got.headers['x-service-delivery']))).toEqual(new Set(ids));
    const handle = temporal.client.workflow.getHandle(endpointDeliveryWorkflowId(endpointId));
    const history = await handle.fetchHistory();
    // The current run was continued from an earlier one.
    expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
  }, 60_000);
});

describe('every event these tests recorded has the published shape', () => {
  it('parses with its data schema, and as each format sends it with the envelope the OpenAPI document publishes', async () => {
    const checked = await checkRecordedEvents(owner, [tenant.id]);
    expect(checked.length).toBeGreaterThan(0);
    expect(checked.filter((c) => c.problems.length > 0)).toEqual([]);
  });
});
