/**
 * Issue 5 benchmark, with D13's formats (a script, not a test). For each delivery format in one
 * run, BENCH_EVENTS (default 1000) real changes delivered by the delivery workflows to a fast
 * receiver on loopback: `core` from work orders dispatched through the API (work_order.dispatched),
 * `field` and `events` from quotes persisted through the API (quote.created), each format alone
 * on its own endpoint in turn. Prints, per format, sustained deliveries per second and the median
 * and p95 time from the event's commit (its envelope's created_at, stamped inside the committing
 * transaction; occurred_at and createdAt in the other formats) to its receipt, then the same
 * latencies for BENCH_PACED_EVENTS paced below capacity.
 *
 *   npm run bench:webhooks
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal (or DATABASE_URL /
 * TEMPORAL_ADDRESS), the API in this process, and the worker as its own process (worker/main.ts,
 * as deployed), production timing. The receiver is on 127.0.0.1, allowed by
 * OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK alone.
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
// These are only X-Forwarded-For values of the API's requests; nothing connects to them.
const client = () => ({ 'x-forwarded-for': `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}` });
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

type Format = 'core' | 'field' | 'events';
/** When the event was committed, as each format's envelope says it. */
const committedAt: Record<Format, (body: Record<string, unknown>) => string> = {
  core: (b) => b.created_at as string,
  field: (b) => b.occurred_at as string,
  events: (b) => b.createdAt as string,
};
/** The event id each format carries (a header, or the envelope's `id` for events). */
const eventIdOf: Record<Format, (r: { headers: Record<string, unknown>; body: string }) => unknown> = {
  core: (r) => r.headers['x-service-delivery'],
  field: (r) => r.headers['x-service-event-id'],
  events: (r) => (JSON.parse(r.body) as { id: string }).id,
};

await withSelfContainedStack('bench_hooks', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { ownerPool, sandboxUser } = await import('../scripts/harness/owner-db');
  const { twoWindows } = await import('../scripts/harness/quote-requests');
  const { Client, Connection } = await import('@temporalio/client');
  const { spawn } = await import('node:child_process');
  const { createOrm } = await import('../db/orm');
  const { appDatabaseUrl } = await import('../db/database-urls');
  const { WebhookReceiver } = await import('../scripts/harness/webhook-receiver');
  const { EventDispatcher } = await import('../activities/events/dispatcher');
  const { createLogger } = await import('../activities/runtime/logger');

  const owner = ownerPool();
  const taskQueue = `bench-webhooks-${Date.now()}`;
  const worker = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, CREDENTIAL_ENCRYPTION_KEY: key, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const orm = await createOrm({ url: appDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_APP_PASSWORD!), poolMax: 10 });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporalClient = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  const dispatcher = new EventDispatcher(temporalClient, orm.em, { taskQueue, logger: createLogger('silent') });
  const api = await startApi({ events: dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: key, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  const receivers: InstanceType<typeof WebhookReceiver>[] = [];
  try {
    const adminUser = await sandboxUser(owner, 'sandbox', 'admin@sandbox.test');
    const admin = await api.tokenFor(adminUser);

    /** One change of the kind the format's endpoint is subscribed to, through the API. */
    const prepare = async (format: Format): Promise<string | null> => {
      if (format !== 'core') return null;
      const res = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: {}, headers: client() });
      return ((await res.json()) as { id: string }).id;
    };
    const change = async (format: Format, workOrderId: string | null) => {
      const res =
        format === 'core'
          ? await api.request(`/api/v1/work-orders/${workOrderId}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' }, headers: client() })
          : await api.request('/api/v1/quotes/calculate', { method: 'POST', token: admin, json: twoWindows({ persist: true }), headers: client() });
      if (res.status !== 200) throw new Error(`${format} change answered ${res.status}`);
    };

    const lines: string[] = [];
    for (const format of ['core', 'field', 'events'] as const) {
      const receiver = await new WebhookReceiver().start();
      receivers.push(receiver);
      const json = format === 'core' ? { url: receiver.url, events: ['work_order.dispatched'] } : { url: receiver.url, format, events: ['quote.created'] };
      const endpoint = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json });
      if (endpoint.status !== 201) throw new Error(`endpoint answered ${endpoint.status}`);
      const endpointId = ((await endpoint.json()) as { id: string }).id;

      const prepared: (string | null)[] = [];
      await inBatches(Array.from({ length: events }, (_, i) => i), concurrency, async () => {
        prepared.push(await prepare(format));
      });
      const started = Date.now();
      await inBatches(prepared, concurrency, (id) => change(format, id));
      await receiver.waitFor(events, 600_000);
      const finished = Math.max(...receiver.received.map((r) => r.at));
      const latencyOf = (r: { at: number; body: string }) => r.at - Date.parse(committedAt[format](JSON.parse(r.body) as Record<string, unknown>));
      const saturated = receiver.received.slice(0, events);
      const latencies = saturated.map(latencyOf).sort((a, b) => a - b);
      const unique = new Set(saturated.map(eventIdOf[format])).size;

      // Phase two: a steady pace below capacity.
      const pacedPrepared: (string | null)[] = [];
      for (let i = 0; i < pacedEvents; i++) pacedPrepared.push(await prepare(format));
      const pacedStart = Date.now();
      await Promise.all(
        pacedPrepared.map(async (id, i) => {
          await new Promise((r) => setTimeout(r, pacedStart + (i * 1000) / pacedRate - Date.now()));
          await change(format, id);
        }),
      );
      await receiver.waitFor(events + pacedEvents, 600_000);
      const paced = receiver.received.slice(events).map(latencyOf).sort((a, b) => a - b);
      // The next format runs alone.
      await api.request(`/api/v1/webhook-endpoints/${endpointId}`, { method: 'DELETE', token: admin });

      lines.push(
        `${format.padEnd(7)} ${String(saturated.length).padStart(6)} ${String(unique).padStart(8)} ${(events / ((finished - started) / 1000)).toFixed(1).padStart(10)} ` +
          `${String(percentile(latencies, 50)).padStart(8)} ${String(percentile(latencies, 95)).padStart(8)}   ${String(percentile(paced, 50)).padStart(8)} ${String(percentile(paced, 95)).padStart(8)}`,
      );
    }
    console.log(`\n${events} events per format (core: work orders dispatched; field and events: quotes persisted; through the API, ${concurrency} at a time),`);
    console.log(`one worker process, one endpoint on loopback per format, each format alone; then ${pacedEvents} more paced at ${pacedRate}/s (below capacity)\n`);
    console.log('                                   saturated (commit -> receipt)   paced (commit -> receipt)');
    console.log('format  deliv. distinct  per second   p50 ms   p95 ms     p50 ms   p95 ms');
    for (const line of lines) console.log(line);
    console.log('\n(per second: first change to last receipt; saturated p95 includes the backlog)');
  } finally {
    await api.close();
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker.once('exit', resolve));
    await connection.close();
    await orm.close(true);
    for (const receiver of receivers) await receiver.close();
    await owner.end();
  }
});
