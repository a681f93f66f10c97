/**
 * Issue 4 benchmark (a script, not a test): the time from the approve response to the invoice
 * finalised at the payments provider (a local fake), over BENCH_APPROVALS approvals (default 60),
 * beside the round trip of an empty workflow on the same Temporal server in the same run.
 *
 *   npm run bench:approval
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal development server (or
 * DATABASE_URL / TEMPORAL_ADDRESS), the API and a worker in this process, production retry timing.
 */
import { randomUUID } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';

const approvals = Number(process.env.BENCH_APPROVALS ?? 60);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const median = (sorted: number[]) => percentile(sorted, 50);

await withSelfContainedStack('bench_approval', async () => {
  const { startApi } = await import('../test/support/api-harness');
  const { ownerPool, sandboxUser } = await import('../test/support/owner-db');
  const { twoWindows } = await import('../test/support/quote-requests');
  const { startTemporalHarness } = await import('../test/support/temporal-harness');
  const { StripeFake } = await import('../scripts/sandboxes/stripe-fake');
  const { createStripeClient } = await import('../activities/payments/stripe-client');
  const { EventDispatcher } = await import('../api/temporal/event-dispatcher');
  const { createLogger } = await import('../api/logger');

  const owner = ownerPool();
  const fake = new StripeFake();
  const { url, close } = await fake.start();
  const harness = await startTemporalHarness();
  const payments = createStripeClient({ secretKey: 'sk_test_benchApproval01', baseUrl: url });
  await harness.startWorker({ payments, cacheWorkflows: true });
  // Production timing (no retry scaling), as a deployment would start the workflow.
  const events = new EventDispatcher(harness.client, harness.orm.em, { taskQueue: harness.taskQueue, logger: createLogger('silent') });
  const api = await startApi({ events, payments, env: { PAYMENTS_SECRET_KEY: 'sk_test_benchApproval01' } });
  try {
    const token = await api.tokenFor(await sandboxUser(owner, 'sandbox', 'sales@sandbox.test'));
    const finalisedAt = async (quoteId: string): Promise<number> => {
      for (;;) {
        const hit = fake.requests.all().find((r) => r.idempotencyKey === `quote-${quoteId}-finalize` && r.status === 200);
        if (hit) return hit.at;
        await new Promise((r) => setTimeout(r, 1));
      }
    };

    // Warm-up: bundle caches, JIT, connection pools.
    for (let i = 0; i < 3; i++) await harness.client.workflow.execute('roundTrip', { taskQueue: harness.taskQueue, workflowId: `bench-warm-${randomUUID()}`, args: [{ sentAt: '' }] });

    const approvalsMs: number[] = [];
    for (let i = 0; i < approvals; i++) {
      const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true }) });
      const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
      const res = await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token });
      const answeredAt = Date.now();
      if (res.status !== 200) throw new Error(`approve answered ${res.status}`);
      approvalsMs.push((await finalisedAt(quoteId)) - answeredAt);
    }

    const roundTripsMs: number[] = [];
    for (let i = 0; i < approvals; i++) {
      const started = performance.now();
      await harness.client.workflow.execute('roundTrip', { taskQueue: harness.taskQueue, workflowId: `bench-round-trip-${randomUUID()}`, args: [{ sentAt: '' }] });
      roundTripsMs.push(performance.now() - started);
    }

    approvalsMs.sort((a, b) => a - b);
    roundTripsMs.sort((a, b) => a - b);
    const row = (name: string, values: number[]) => `${name.padEnd(46)}${median(values).toFixed(1).padStart(10)}${percentile(values, 95).toFixed(1).padStart(10)}`;
    console.log(`\n${approvals} runs each, sequential, one worker, Temporal at ${process.env.TEMPORAL_ADDRESS}\n`);
    console.log(`${''.padEnd(46)}${'p50 ms'.padStart(10)}${'p95 ms'.padStart(10)}`);
    console.log(row('approve response -> invoice finalised at fake', approvalsMs));
    console.log(row('empty workflow round trip', roundTripsMs));
    console.log(`${'ratio'.padEnd(46)}${(median(approvalsMs) / median(roundTripsMs)).toFixed(1).padStart(10)}${(percentile(approvalsMs, 95) / percentile(roundTripsMs, 95)).toFixed(1).padStart(10)}`);
  } finally {
    await api.close();
    await harness.close();
    await close();
    await owner.end();
  }
});
