/**
 * Issue 5 benchmark (a script, not a test): BENCH_EVENTS (default 1000) real changes (work orders
 * dispatched through the API, each committing a work_order.dispatched event), delivered by the
 * delivery workflows to a fast receiver on loopback. Prints sustained deliveries per second and
 * the median and p95 time from the event's commit (its envelope created_at, stamped inside the
 * committing transaction) to its receipt.
 *
 *   npm run bench:webhooks
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal (or DATABASE_URL /
 * TEMPORAL_ADDRESS), the API and one worker in this process, production timing.
 */
import { randomBytes } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';

const events = Number(process.env.BENCH_EVENTS ?? 1000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const key = randomBytes(32).toString('base64');
// Many clients, as in production: each request from its own address, so the broad limit of 300
// per minute per address does not cut the run short (its counter is still paid every time).
const client = () => ({ 'x-forwarded-for': `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}` });
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

await withSelfContainedStack('bench_hooks', async () => {
  const { startApi } = await import('../test/support/api-harness');
  const { ownerPool, sandboxUser } = await import('../test/support/owner-db');
  const { startTemporalHarness } = await import('../test/support/temporal-harness');
  const { WebhookReceiver } = await import('../test/support/webhook-receiver');
  const { EventDispatcher } = await import('../api/temporal/event-dispatcher');
  const { CredentialCipher } = await import('../api/security/credential-cipher');
  const { createLogger } = await import('../api/logger');

  const owner = ownerPool();
  const receiver = await new WebhookReceiver().start();
  const harness = await startTemporalHarness();
  await harness.startWorker({ webhooks: { cipher: new CredentialCipher(key), allowPrivateNetworks: true }, cacheWorkflows: true });
  const dispatcher = new EventDispatcher(harness.client, harness.orm.em, { taskQueue: harness.taskQueue, logger: createLogger('silent') });
  const api = await startApi({ events: dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: key, OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  try {
    const adminUser = await sandboxUser(owner, 'sandbox', 'admin@sandbox.test');
    const admin = await api.tokenFor(adminUser);
    const endpoint = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['work_order.dispatched'] } });
    if (endpoint.status !== 201) throw new Error(`endpoint answered ${endpoint.status}`);

    const ids: string[] = [];
    await inBatches(Array.from({ length: events }, (_, i) => i), concurrency, async () => {
      const res = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: {}, headers: client() });
      ids.push(((await res.json()) as { id: string }).id);
    });
    const started = Date.now();
    await inBatches(ids, concurrency, async (id) => {
      const res = await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' }, headers: client() });
      if (res.status !== 200) throw new Error(`PATCH answered ${res.status}`);
    });
    await receiver.waitFor(events, 600_000);
    const finished = Math.max(...receiver.received.map((r) => r.at));

    const latencies = receiver.received.map((r) => r.at - Date.parse((JSON.parse(r.body) as { created_at: string }).created_at)).sort((a, b) => a - b);
    const unique = new Set(receiver.received.map((r) => r.headers['x-service-delivery'])).size;
    console.log(`\n${events} events (work orders dispatched through the API, ${concurrency} at a time), one worker, one endpoint on loopback\n`);
    console.log(`delivered                 ${receiver.received.length} (${unique} distinct event ids)`);
    console.log(`deliveries per second     ${(events / ((finished - started) / 1000)).toFixed(1)}  (first PATCH to last receipt)`);
    console.log(`commit -> receipt p50     ${percentile(latencies, 50)} ms`);
    console.log(`commit -> receipt p95     ${percentile(latencies, 95)} ms`);
  } finally {
    await api.close();
    await harness.close();
    await receiver.close();
    await owner.end();
  }
});
