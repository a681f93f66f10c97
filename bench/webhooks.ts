/**
 * Benchmark of outbound webhooks (a script, not a test), one endpoint delivery workflow
 * per endpoint (docs/webhook-delivery.md). Three phases on one stack, each on fresh endpoints:
 *
 * 1. Sustained: BENCH_EVENTS (default 5,000) `work_order.dispatched` events to one `core` endpoint
 *    on a fast loopback receiver. The events are made quickly rather than through 5,000 HTTP
 *    requests: committed in transactions of BENCH_CHUNK (default 100) with the API's own
 *    `recordEvent` (real outbox rows), each chunk then dispatched after its commit as the worker's
 *    outbox relay dispatches a leased batch (EventDispatcher.dispatchMany: the delivery rows of the
 *    chunk in one transaction, then the endpoint's workflow woken, then the events marked
 *    dispatched), BENCH_DISPATCHERS (4) chunks in flight while the next are committed. Delivery goes the whole real way: the worker process's endpoint workflow, its
 *    batch activities, signed POSTs, attempt logs. Prints deliveries per second from the first
 *    commit to the last receipt, and when the last chunk was dispatched (how far the delivery
 *    trails the events).
 * 2. Paced: BENCH_PACED_EVENTS (default 1,000) real work orders dispatched through the API
 *    (PATCH .../status DISPATCHED) at BENCH_PACED_RATE (100) per second; prints the p50 and p95
 *    from the event's commit (its envelope's created_at, stamped inside the committing
 *    transaction) to its receipt.
 * 3. A failing neighbour: a backlog of BENCH_NEIGHBOUR_EVENTS (15,000) events worked off by one endpoint alone, then
 *    by a healthy endpoint beside a second one whose receiver accepts connections and never
 *    answers (every attempt times out after its 8 s), both subscribed to every event: four runs in
 *    the order alone, beside, beside, alone, so the database's growth over the phase weighs on
 *    both kinds alike. The backlog is built with the worker process paused (SIGSTOP, then
 *    SIGCONT), so the figures are the delivery's own rate. Prints each run and the healthy
 *    endpoint's mean rate beside the silent one as a share of its mean rate alone.
 *
 * Before phase 1, BENCH_WARMUP (1,000) events go to a throwaway endpoint, unmeasured.
 *
 * Then PASS/FAIL per delivery target (>= 200/s sustained, paced p50 < 100 ms, the healthy
 * endpoint keeps >= 90 %) and the peak resident memory of this process (the API, its dispatcher
 * and the receivers) and of the worker process.
 *
 *   npm run bench:webhooks
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal development server (or
 * DATABASE_URL / TEMPORAL_ADDRESS), the API in this process, the worker as its own process
 * (worker/main.ts, as deployed), production timing. The receivers are on 127.0.0.1, allowed by
 * OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK alone. The envelope id each receipt carries (the core
 * `X-Service-Delivery` header) is counted to show every event arrived.
 *
 * `npm run bench:webhooks -- --workers 2` runs two worker processes on the task queue instead of
 * one (docs/operations.md, scaling out, has both figures).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { printPeakMemory } from '../scripts/infra/peak-memory';

const events = Number(process.env.BENCH_EVENTS ?? 5000);
/** Phase 3's backlog: long enough (about ten seconds a run) that one pause of a second is not a tenth of the figure. */
const neighbourEvents = Number(process.env.BENCH_NEIGHBOUR_EVENTS ?? 15000);
const chunk = Number(process.env.BENCH_CHUNK ?? 100);
const pacedRate = Number(process.env.BENCH_PACED_RATE ?? 100);
const pacedEvents = Number(process.env.BENCH_PACED_EVENTS ?? 1000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
/** Events delivered first, unmeasured, so that phase 1 does not pay for a cold start that phase 3 would not. */
const warmup = Number(process.env.BENCH_WARMUP ?? 1000);
/** Chunks being dispatched at once while the next are committed. */
const dispatchers = Number(process.env.BENCH_DISPATCHERS ?? 4);
/** `--workers N`: worker processes polling the task queue (default 1). */
const workerCount = process.argv.includes('--workers') ? Number(process.argv[process.argv.indexOf('--workers') + 1]) : 1;
if (!Number.isInteger(workerCount) || workerCount < 1) throw new Error('--workers takes a whole number of worker processes, at least 1');
const TARGET_PER_SECOND = 200;
const TARGET_PACED_P50_MS = 100;
const TARGET_SHARE = 0.9;
const key = randomBytes(32).toString('base64');
// Many clients, as in production: each request from its own address, so the broad limit of 300
// per minute per address does not cut the run short. Only X-Forwarded-For values: nothing connects to them.
const client = () => ({ 'x-forwarded-for': `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}` });
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

async function inParallel<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** A receiver on loopback that accepts every request and never answers (each attempt times out). */
async function silentReceiver(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = createServer(() => {
    requests += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

await withSelfContainedStack('bench_hooks', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { ownerPool, sandboxUser } = await import('../scripts/harness/owner-db');
  const { Client, Connection } = await import('@temporalio/client');
  const { spawn } = await import('node:child_process');
  const { createOrm } = await import('../db/orm');
  const { appDatabaseUrl } = await import('../db/database-urls');
  const { inTenant } = await import('../db/tenant-scope');
  const { recordEvent } = await import('../db/events/outbox');
  const { WebhookReceiver } = await import('../scripts/harness/webhook-receiver');
  const { EventDispatcher } = await import('../infra/events/dispatcher');
  const { createLogger } = await import('../infra/runtime/logger');

  const owner = ownerPool();
  const taskQueue = `bench-webhooks-${Date.now()}`;
  const workers = Array.from({ length: workerCount }, () =>
    spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
      // Each its own free metrics port: several workers on one machine.
      env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, CREDENTIAL_ENCRYPTION_KEY: key, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true', WORKER_METRICS_PORT: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const orm = await createOrm({ url: appDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_APP_PASSWORD!), poolMax: 10 });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporalClient = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  const dispatcher = new EventDispatcher(temporalClient, orm.em, { taskQueue, logger: createLogger('silent') });
  const api = await startApi({ events: dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: key, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  const closers: (() => Promise<void>)[] = [];
  try {
    const adminUser = await sandboxUser(owner, 'sandbox', 'admin@sandbox.test');
    const organizationId = adminUser.organizationId;
    const admin = await api.tokenFor(adminUser);

    const receiver = async () => {
      const r = await new WebhookReceiver().start();
      closers.push(() => r.close());
      return r;
    };
    const subscribe = async (url: string): Promise<string> => {
      const res = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url, events: ['work_order.dispatched'] } });
      if (res.status !== 201) throw new Error(`endpoint answered ${res.status}`);
      return ((await res.json()) as { id: string }).id;
    };
    const unsubscribe = async (id: string) => {
      await api.request(`/api/v1/webhook-endpoints/${id}`, { method: 'DELETE', token: admin });
    };
    const distinct = (received: { headers: Record<string, unknown> }[]) => new Set(received.map((r) => r.headers['x-service-delivery'])).size;

    /** Commits `count` events in chunks and dispatches each after its commit, as the API does; resolves when all are dispatched. */
    const commitAndDispatch = async (count: number) => {
      const inFlight: Promise<void>[] = [];
      for (let done = 0; done < count; done += chunk) {
        const size = Math.min(chunk, count - done);
        const envelopes = await inTenant(orm.em, organizationId, async (tx) => {
          const made = [];
          for (let i = 0; i < size; i++) {
            made.push(
              await recordEvent(tx, organizationId, 'work_order.dispatched', {
                work_order_id: randomUUID(),
                status: 'DISPATCHED',
                quote_id: null,
                assigned_technician_id: null,
                changed_by_user_id: adminUser.id,
                changed_at: new Date().toISOString(),
              }),
            );
          }
          return made;
        });
        // As from several API processes or relay rounds at once: the next chunk is committed while
        // this one is dispatched (a wake-up's signal round trip does not hold back the next commit).
        inFlight.push(dispatcher.dispatchMany(envelopes));
        if (inFlight.length >= dispatchers) await inFlight.shift();
      }
      await Promise.all(inFlight.splice(0));
    };

    /** Phase 1 and 3: deliveries per second to `r`, first commit to its last receipt. */
    const sustained = async (r: InstanceType<typeof WebhookReceiver>) => {
      const started = Date.now();
      await commitAndDispatch(events);
      const dispatchedSeconds = (Date.now() - started) / 1000;
      await r.waitFor(events, 900_000);
      const finished = Math.max(...r.received.map((x) => x.at));
      return { perSecond: events / ((finished - started) / 1000), dispatchedSeconds, seconds: (finished - started) / 1000, distinct: distinct(r.received), received: r.received.length };
    };

    /**
     * Phase 3 and its baseline: how fast the endpoint works off a backlog. The worker process is
     * paused (SIGSTOP) while the events are committed and dispatched, so that the backlog is there
     * in full when it resumes (SIGCONT) and the figure is the delivery's, not the dispatch's (the
     * dispatch of two endpoints' rows costs more than one's, which is not the neighbour slowing
     * delivery). Deliveries per second from the resumption to the last receipt.
     */
    const drain = async (r: InstanceType<typeof WebhookReceiver>) => {
      for (const worker of workers) worker.kill('SIGSTOP');
      try {
        await commitAndDispatch(neighbourEvents);
        // The rows just written are vacuumed and analysed now, while the worker waits, rather than
        // by autovacuum on the second core in the middle of the measured drain: the beside runs
        // write twice the rows, and their maintenance is not the neighbour's cost.
        for (const table of ['webhook_deliveries', 'outbox_events']) await owner.query(`vacuum (analyze) ${table}`);
      } finally {
        for (const worker of workers) worker.kill('SIGCONT');
      }
      const resumed = Date.now();
      await r.waitFor(neighbourEvents, 900_000);
      const finished = Math.max(...r.received.map((x) => x.at));
      return { perSecond: neighbourEvents / ((finished - resumed) / 1000), seconds: (finished - resumed) / 1000, distinct: distinct(r.received), received: r.received.length };
    };

    // ---- warm-up (not measured): the worker's and the API's code paths compiled, pools filled ----
    const warm = await receiver();
    const warmId = await subscribe(warm.url);
    await commitAndDispatch(warmup);
    await warm.waitFor(warmup, 300_000);
    await unsubscribe(warmId);

    // ---- phase 1: sustained, one endpoint ----
    const alone = await receiver();
    const aloneId = await subscribe(alone.url);
    const phase1 = await sustained(alone);
    await unsubscribe(aloneId);

    // ---- phase 2: paced through the API ----
    const pacedReceiver = await receiver();
    const pacedId = await subscribe(pacedReceiver.url);
    const workOrders: string[] = [];
    await inParallel(Array.from({ length: pacedEvents }, (_, i) => i), concurrency, async () => {
      const res = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: {}, headers: client() });
      workOrders.push(((await res.json()) as { id: string }).id);
    });
    const pacedStart = Date.now() + 200;
    await Promise.all(
      workOrders.map(async (id, i) => {
        await new Promise((resolve) => setTimeout(resolve, pacedStart + (i * 1000) / pacedRate - Date.now()));
        const res = await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' }, headers: client() });
        if (res.status !== 200) throw new Error(`dispatch answered ${res.status}`);
      }),
    );
    await pacedReceiver.waitFor(pacedEvents, 600_000);
    const paced = pacedReceiver.received.map((r) => r.at - Date.parse((JSON.parse(r.body) as { created_at: string }).created_at)).sort((a, b) => a - b);
    // Where the paced time goes: the event's commit to its delivery row (the API's fast path after
    // the commit), and that row to the receipt (the worker's claim and POST).
    const split = (await owner.query<{ event_id: string; row_at: Date; committed_at: Date }>(
      `select d.event_id, d.created_at as row_at, o.created_at as committed_at from webhook_deliveries d join outbox_events o on o.id = d.event_id where d.endpoint_id = $1`,
      [pacedId],
    )).rows;
    const receivedAt = new Map(pacedReceiver.received.map((r) => [r.headers['x-service-delivery'] as string, r.at]));
    const toRow = split.map((r) => r.row_at.getTime() - r.committed_at.getTime()).sort((a, b) => a - b);
    const rowToReceipt = split.filter((r) => receivedAt.has(r.event_id)).map((r) => receivedAt.get(r.event_id)! - r.row_at.getTime()).sort((a, b) => a - b);
    await unsubscribe(pacedId);

    // ---- phase 3: the same load with a neighbour that never answers ----
    const dead = await silentReceiver();
    closers.push(dead.close);
    // Alone and beside the silent endpoint in the order alone, beside, beside, alone: the database
    // grows with every run, and in this order both kinds sit at the same mean position, so that
    // growth is not counted as the neighbour's cost. Each beside run subscribes a fresh silent
    // endpoint (its breaker closed, the worst start).
    const drainAlone = async () => {
      const r = await receiver();
      const id = await subscribe(r.url);
      const figures = await drain(r);
      await unsubscribe(id);
      return figures;
    };
    const drainBeside = async () => {
      const r = await receiver();
      const id = await subscribe(r.url);
      const deadId = await subscribe(dead.url);
      const before = dead.requests();
      const figures = await drain(r);
      const rows = (await owner.query<{ status: string; n: number }>('select status, count(*)::int as n from webhook_deliveries where endpoint_id = $1 group by status', [deadId])).rows;
      const requests = dead.requests() - before;
      await unsubscribe(id);
      await unsubscribe(deadId);
      return { ...figures, deadRows: rows, deadRequests: requests };
    };
    const alones = [await drainAlone()];
    const besides = [await drainBeside(), await drainBeside()];
    alones.push(await drainAlone());
    const meanRate = (runs: { perSecond: number }[]) => runs.reduce((sum, r) => sum + r.perSecond, 0) / runs.length;
    const share = meanRate(besides) / meanRate(alones);

    console.log(`\nissue 19: outbound webhooks, one delivery workflow per endpoint (${workerCount} worker process${workerCount === 1 ? '' : 'es'}, production timing)\n`);
    console.log(`1. sustained: ${events} events committed and dispatched in chunks of ${chunk} (${dispatchers} dispatching at once), one core endpoint on loopback`);
    console.log(`   ${phase1.received} receipts, ${phase1.distinct} distinct envelope ids, ${phase1.perSecond.toFixed(1)} deliveries/s   target >= ${TARGET_PER_SECOND}/s: ${verdict(phase1.perSecond >= TARGET_PER_SECOND)}`);
    console.log(`   (all committed and dispatched after ${phase1.dispatchedSeconds.toFixed(1)} s, last receipt after ${phase1.seconds.toFixed(1)} s)`);
    console.log(`2. paced: ${pacedEvents} work orders dispatched through the API at ${pacedRate}/s`);
    console.log(
      `   commit -> receipt p50 ${percentile(paced, 50)} ms, p95 ${percentile(paced, 95)} ms, max ${paced[paced.length - 1]} ms   target p50 < ${TARGET_PACED_P50_MS} ms: ${verdict(percentile(paced, 50) < TARGET_PACED_P50_MS)}`,
    );
    console.log(`   of which commit -> delivery row p50 ${percentile(toRow, 50)} ms (p95 ${percentile(toRow, 95)}), delivery row -> receipt p50 ${percentile(rowToReceipt, 50)} ms (p95 ${percentile(rowToReceipt, 95)})`);
    console.log(`3. a backlog of ${neighbourEvents} events (committed and dispatched with the worker paused), then worked off:`);
    const runLine = (name: string, r: { received: number; distinct: number; perSecond: number; seconds: number }) =>
      console.log(`   ${name}: ${r.received} receipts, ${r.distinct} distinct, ${r.perSecond.toFixed(1)} deliveries/s (${r.seconds.toFixed(1)} s)`);
    runLine('alone, first', alones[0]!);
    besides.forEach((r, i) => runLine(`beside a silent endpoint, ${i + 1}`, r));
    runLine('alone, last', alones[1]!);
    console.log(`   (the silent endpoint's receiver accepts connections and never answers: 8 s timeout on every attempt; both endpoints subscribed to every event)`);
    console.log(
      `   healthy beside the silent one: ${meanRate(besides).toFixed(1)} deliveries/s = ${(share * 100).toFixed(1)} % of alone (${meanRate(alones).toFixed(1)}/s)   target >= ${TARGET_SHARE * 100} %: ${verdict(share >= TARGET_SHARE)}`,
    );
    for (const [i, r] of besides.entries()) {
      console.log(`   silent endpoint ${i + 1}: ${r.deadRequests} requests received; its deliveries were ${r.deadRows.map((row) => `${row.n} ${row.status}`).join(', ')} (held by its open breaker, not spent)`);
    }
    printPeakMemory([
      { role: 'API (this process: the API, its dispatcher and the receivers)', pid: process.pid },
      ...workers.map((worker, i) => ({ role: `worker ${i + 1}`, pid: worker.pid! })),
    ]);
  } finally {
    await api.close();
    for (const worker of workers) worker.kill('SIGTERM');
    await Promise.all(workers.map((worker) => new Promise((resolve) => (worker.exitCode === null && worker.signalCode === null ? worker.once('exit', resolve) : resolve(undefined)))));
    await connection.close();
    await orm.close(true);
    for (const close of closers) await close();
    await owner.end();
  }
});
