/**
 * Approval benchmark (a script, not a test): the time from the approve response to the
 * invoice finalised at the payments provider (a local fake), over BENCH_APPROVALS approvals
 * (default 60), beside the round trip of an empty workflow on the same Temporal server and the
 * same worker in the same run. The target: approve-to-invoice p50 at most 2.5 times the
 * empty round trip's p50 (printed as PASS or FAIL), and the peak resident memory of the API and
 * the worker processes.
 *
 *   npm run bench:approval
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal development server (or
 * DATABASE_URL / TEMPORAL_ADDRESS), the API in this process and the worker as its own process
 * (worker/main.ts, as deployed, its workflow cache on), production retry timing.
 *
 * Then throughput: BENCH_PARALLEL_APPROVALS (default 300) approvals, BENCH_PARALLEL (16) in flight,
 * from the first request to the last approval workflow ended, in approvals per second.
 * `npm run bench:approval -- --workers 2` runs two worker processes on the task queue instead of
 * one (docs/operations.md, scaling out, has both figures).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { WORKFLOW_TYPES, approvalWorkflowId, type RoundTripWorkflow } from '../infra/temporal/contracts';
import { printPeakMemory } from '../scripts/infra/peak-memory';

const approvals = Number(process.env.BENCH_APPROVALS ?? 60);
/** Approve-to-invoice p50 over the empty round trip's p50. */
const TARGET_RATIO = 2.5;
const KEY = 'sk_test_benchApproval01';
const parallelApprovals = Number(process.env.BENCH_PARALLEL_APPROVALS ?? 300);
const parallel = Number(process.env.BENCH_PARALLEL ?? 16);
/** `--workers N`: worker processes polling the task queue (default 1). */
const workerCount = process.argv.includes('--workers') ? Number(process.argv[process.argv.indexOf('--workers') + 1]) : 1;
if (!Number.isInteger(workerCount) || workerCount < 1) throw new Error('--workers takes a whole number of worker processes, at least 1');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const median = (sorted: number[]) => percentile(sorted, 50);

await withSelfContainedStack('bench_approval', async () => {
  const { spawn } = await import('node:child_process');
  const { Client, Connection } = await import('@temporalio/client');
  const { startApi } = await import('../scripts/harness/api-harness');
  const { ownerPool, sandboxUser } = await import('../scripts/harness/owner-db');
  const { twoWindows } = await import('../scripts/harness/quote-requests');
  const { StripeFake } = await import('../scripts/sandboxes/stripe-fake');
  const { createStripeClient } = await import('../infra/payments/stripe-client');
  const { EventDispatcher } = await import('../infra/events/dispatcher');
  const { createLogger } = await import('../infra/runtime/logger');
  const { createOrm } = await import('../db/orm');
  const { appDatabaseUrl } = await import('../db/database-urls');

  const owner = ownerPool();
  const fake = new StripeFake({ apiKeys: [KEY] });
  const { url, close } = await fake.start();
  const taskQueue = `bench-approval-${Date.now()}`;
  // The workers as deployed: processes of their own, the payments client pointed at the fake.
  const workers = Array.from({ length: workerCount }, () =>
    spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
      env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, PAYMENTS_SECRET_KEY: KEY, PAYMENTS_API_BASE_URL: url, WORKER_METRICS_PORT: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const orm = await createOrm({ url: appDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_APP_PASSWORD!), poolMax: 10 });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  // Production timing (no retry scaling), as a deployment would start the workflow.
  const events = new EventDispatcher(client, orm.em, { taskQueue, logger: createLogger('silent') });
  const api = await startApi({ events, payments: createStripeClient({ secretKey: KEY, baseUrl: url }), env: { PAYMENTS_SECRET_KEY: KEY } });
  const roundTrip = () => client.workflow.execute<RoundTripWorkflow>(WORKFLOW_TYPES.roundTrip, { taskQueue, workflowId: `bench-round-trip-${randomUUID()}`, args: [{ sentAt: '' }] });
  try {
    const token = await api.tokenFor(await sandboxUser(owner, 'sandbox', 'sales@sandbox.test'));
    const finalisedAt = async (quoteId: string): Promise<number> => {
      for (;;) {
        const hit = fake.requests.all().find((r) => r.idempotencyKey === `quote-${quoteId}-finalize` && r.status === 200);
        if (hit) return hit.at;
        await new Promise((r) => setTimeout(r, 1));
      }
    };
    /** One approval, measured to the finalize request; returns once its workflow has ended, so nothing of it overlaps the next measurement. */
    const approve = async (): Promise<number> => {
      const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true }) });
      const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
      const res = await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token });
      const answeredAt = Date.now();
      if (res.status !== 200) throw new Error(`approve answered ${res.status}`);
      const elapsed = (await finalisedAt(quoteId)) - answeredAt;
      await client.workflow.getHandle(approvalWorkflowId(quoteId)).result();
      return elapsed;
    };

    // Warm-up (the worker's first poll, bundle caches, JIT, connection pools), both paths.
    for (let i = 0; i < 3; i++) await roundTrip();
    for (let i = 0; i < 3; i++) await approve();

    // Interleaved, so a noisy moment of the machine falls on both series alike.
    const approvalsMs: number[] = [];
    const roundTripsMs: number[] = [];
    for (let i = 0; i < approvals; i++) {
      approvalsMs.push(await approve());
      const started = performance.now();
      await roundTrip();
      roundTripsMs.push(performance.now() - started);
    }

    // Throughput: many approvals at once, each to its workflow's end, spread by Temporal over the workers.
    let next = 0;
    const throughputStarted = performance.now();
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < parallelApprovals) {
          next++;
          // Many clients, each from its own address of the benchmarking range (X-Forwarded-For text
          // only), as scripts/harness/retrying-client.ts does: the broad limit of 300 a minute per
          // address is not what this measures.
          const headers = { 'x-forwarded-for': `198.${randomInt(18, 20)}.${randomInt(0, 256)}.${randomInt(1, 255)}` };
          const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, headers, json: twoWindows({ persist: true }) });
          if (calc.status !== 200) throw new Error(`calculate answered ${calc.status}: ${await calc.text()}`);
          const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
          const res = await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token, headers });
          if (res.status !== 200) throw new Error(`approve answered ${res.status}: ${await res.text()}`);
          await client.workflow.getHandle(approvalWorkflowId(quoteId)).result();
        }
      }),
    );
    const throughputSeconds = (performance.now() - throughputStarted) / 1000;

    approvalsMs.sort((a, b) => a - b);
    roundTripsMs.sort((a, b) => a - b);
    const ratio = median(approvalsMs) / median(roundTripsMs);
    const row = (name: string, values: number[]) => `${name.padEnd(46)}${median(values).toFixed(1).padStart(10)}${percentile(values, 95).toFixed(1).padStart(10)}`;
    console.log(`\n${approvals} runs each, sequential and interleaved, ${workerCount} worker process${workerCount === 1 ? '' : 'es'}, Temporal at ${process.env.TEMPORAL_ADDRESS}\n`);
    console.log(`${''.padEnd(46)}${'p50 ms'.padStart(10)}${'p95 ms'.padStart(10)}`);
    console.log(row('approve response -> invoice finalised at fake', approvalsMs));
    console.log(row('empty workflow round trip (same worker)', roundTripsMs));
    console.log(`${'ratio'.padEnd(46)}${ratio.toFixed(2).padStart(10)}${(percentile(approvalsMs, 95) / percentile(roundTripsMs, 95)).toFixed(2).padStart(10)}`);
    console.log(`\ntarget: p50 ratio at most ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? 'PASS' : 'FAIL'} (${ratio.toFixed(2)})`);
    console.log(`\nthroughput, ${workerCount} worker process${workerCount === 1 ? '' : 'es'}: ${parallelApprovals} approvals, ${parallel} in flight, each to its workflow's end: ${(parallelApprovals / throughputSeconds).toFixed(1)} approvals/s (${throughputSeconds.toFixed(1)} s)`);
    printPeakMemory([
      { role: 'API (with the benchmark client and the payments fake)', pid: process.pid },
      ...workers.map((worker, i) => ({ role: `worker ${i + 1}`, pid: worker.pid! })),
    ]);
  } finally {
    await api.close();
    for (const worker of workers) worker.kill('SIGTERM');
    await Promise.all(workers.map((worker) => new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(undefined)))));
    await connection.close();
    await orm.close(true);
    await close();
    await owner.end();
  }
});
