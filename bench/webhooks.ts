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
 * TEMPORAL_ADDRESS), the API in this process, and the worker as its own process (worker/main.ts,
 * as deployed), production timing.
 */
import { randomBytes } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';

const events = Number(process.env.BENCH_EVENTS ?? 1000);
/** The second phase paces events below capacity, to see latency without a backlog. */
const pacedRate = Number(process.env.BENCH_PACED_RATE ?? 20);
const pacedEvents = Number(process.env.BENCH_PACED_EVENTS ?? 200);
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
  const { startApi } = await import('../scripts/harness/api-harness');
  const { ownerPool, sandboxUser } = await import('../scripts/harness/owner-db');
  const { Client, Connection } = await import('@temporalio/client');
  const { spawn } = await import('node:child_process');
  const { createOrm } = await import('../db/orm');
  const { appDatabaseUrl } = await import('../db/database-urls');
  const { WebhookReceiver } = await import('../scripts/harness/webhook-receiver');
  const { EventDispatcher } = await import('../activities/events/dispatcher');
  const { createLogger } = await import('../activities/runtime/logger');

  const owner = ownerPool();
  const receiver = await new WebhookReceiver().start();
  const taskQueue = `bench-webhooks-${Date.now()}`;
  const worker = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, CREDENTIAL_ENCRYPTION_KEY: key, OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const orm = await createOrm({ url: appDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_APP_PASSWORD!), poolMax: 10 });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporalClient = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  const dispatcher = new EventDispatcher(temporalClient, orm.em, { taskQueue, logger: createLogger('silent') });
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

    const latencyOf = (r: { at: number; body: string }) => r.at - Date.parse((JSON.parse(r.body) as { created_at: string }).created_at);
    const latencies = receiver.received.slice(0, events).map(latencyOf).sort((a, b) => a - b);
    const saturated = receiver.received.slice(0, events);
    const unique = new Set(saturated.map((r) => r.headers['x-service-delivery'])).size;

    // Phase two: a steady pace below capacity.
    const pacedIds: string[] = [];
    for (let i = 0; i < pacedEvents; i++) {
      const res = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: {}, headers: client() });
      pacedIds.push(((await res.json()) as { id: string }).id);
    }
    const pacedStart = Date.now();
    await Promise.all(
      pacedIds.map(async (id, i) => {
        await new Promise((r) => setTimeout(r, pacedStart + (i * 1000) / pacedRate - Date.now()));
        await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' }, headers: client() });
      }),
    );
    await receiver.waitFor(events + pacedEvents, 600_000);
    const paced = receiver.received.slice(events).map(latencyOf).sort((a, b) => a - b);
    console.log(`\n${events} events (work orders dispatched through the API, ${concurrency} at a time), one worker process, one endpoint on loopback\n`);
    console.log(`delivered                 ${saturated.length} (${unique} distinct event ids)`);
    console.log(`deliveries per second     ${(events / ((finished - started) / 1000)).toFixed(1)}  (first PATCH to last receipt)`);
    console.log(`commit -> receipt p50     ${percentile(latencies, 50)} ms`);
    console.log(`commit -> receipt p95     ${percentile(latencies, 95)} ms  (saturated: includes the backlog)`);
    console.log(`\n${pacedEvents} more events paced at ${pacedRate}/s (below capacity)`);
    console.log(`commit -> receipt p50     ${percentile(paced, 50)} ms`);
    console.log(`commit -> receipt p95     ${percentile(paced, 95)} ms`);
  } finally {
    await api.close();
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker.once('exit', resolve));
    await connection.close();
    await orm.close(true);
    await receiver.close();
    await owner.end();
  }
});
