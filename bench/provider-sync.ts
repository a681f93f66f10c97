/**
 * D18 benchmark (a script, not a test): one scheduled payments sync run catching up
 * BENCH_SYNC_EVENTS missed `invoice.paid` events (default 150) at the payments fake, in pages of
 * 100, and a run with nothing new (the cost of an idle tenant every PROVIDER_SYNC_INTERVAL).
 *
 *   npm run bench:provider-sync
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal development server (or
 * DATABASE_URL / TEMPORAL_ADDRESS), the API and a worker in this process, production retry timing.
 */
import { randomUUID } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { printPeakMemory } from '../scripts/infra/peak-memory';
import { WORKFLOW_TYPES, type ProviderSyncWorkflow } from '../infra/temporal/contracts';

const events = Number(process.env.BENCH_SYNC_EVENTS ?? 150);
const KEY = 'sk_test_benchProviderSync1';

await withSelfContainedStack('bench_provider_sync', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { ownerPool, sandboxUser } = await import('../scripts/harness/owner-db');
  const { twoWindows } = await import('../scripts/harness/quote-requests');
  const { startTemporalHarness } = await import('../scripts/harness/temporal-harness');
  const { StripeFake } = await import('../scripts/sandboxes/stripe-fake');
  const { createStripeClient } = await import('../infra/payments/stripe-client');
  const { EventDispatcher } = await import('../infra/events/dispatcher');
  const { createLogger } = await import('../infra/runtime/logger');

  const owner = ownerPool();
  const fake = new StripeFake({ apiKeys: [KEY] });
  const { url, close } = await fake.start();
  const harness = await startTemporalHarness();
  const payments = createStripeClient({ secretKey: KEY, baseUrl: url });
  await harness.startWorker({ payments, cacheWorkflows: true });
  const dispatcher = new EventDispatcher(harness.client, harness.orm.em, { taskQueue: harness.taskQueue, logger: createLogger('silent') });
  const api = await startApi({ events: dispatcher, payments, env: { PAYMENTS_SECRET_KEY: KEY } });
  try {
    const sales = await sandboxUser(owner, 'sandbox', 'sales@sandbox.test');
    const token = await api.tokenFor(sales);
    const run = async () => {
      const started = performance.now();
      const result = await harness.client.workflow.execute<ProviderSyncWorkflow>(WORKFLOW_TYPES.providerSync, {
        taskQueue: harness.taskQueue,
        workflowId: `provider-sync-${sales.organizationId}-payments-bench-${randomUUID()}`,
        args: [{ organizationId: sales.organizationId, provider: 'PAYMENTS' }],
      });
      if (result.error) throw new Error(`the sync run failed: ${result.error}`);
      return { ms: performance.now() - started, ...result };
    };
    await run(); // the baseline watermark

    process.stderr.write(`approving and paying ${events} quotes at the fake (no webhook endpoint: every payment is missed) ...\n`);
    const invoices: string[] = [];
    for (let i = 0; i < events; i++) {
      const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true }) });
      const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
      if ((await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token })).status !== 200) throw new Error('approve failed');
      await harness.client.workflow.getHandle(`quote-approval-${quoteId}`).result();
      invoices.push((await owner.query(`select external_id from sync_records where quote_id = $1 and provider = 'PAYMENTS'`, [quoteId])).rows[0].external_id);
    }
    for (const invoice of invoices) fake.payInvoiceAsCustomer(KEY, invoice);

    const catchUp = await run();
    const idle = await run();
    if (catchUp.applied !== events) throw new Error(`applied ${catchUp.applied} of ${events}`);
    console.log(`\npayments sync, one worker, Temporal at ${process.env.TEMPORAL_ADDRESS}\n`);
    console.log(`catch-up run: ${catchUp.seen} events read, ${catchUp.applied} applied in ${catchUp.ms.toFixed(0)} ms (${((catchUp.applied / catchUp.ms) * 1000).toFixed(0)} events/s, pages of 100)`);
    console.log(`idle run (nothing new): ${idle.ms.toFixed(0)} ms`);
    printPeakMemory([{ role: 'API + worker + fakes (one process)', pid: process.pid }]);
  } finally {
    await api.close();
    await harness.close();
    await close();
    await owner.end();
  }
});
