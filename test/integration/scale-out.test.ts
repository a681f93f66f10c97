import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OwnDatabase } from '../support/own-database';
import { ENTITY_WORKFLOWS, runScaleOut } from '../../scripts/harness/scale-out';

/**
 * Scale-out (scripts/harness/scale-out.ts): two API processes and two worker processes against
 * the suite's one PostgreSQL and one Temporal. On a database of its own, so the workers' outbox
 * relays see only this run.
 */
const own = new OwnDatabase('scale');
const database = own.url;

beforeAll(async () => {
  await own.create();
}, 120_000);
afterAll(async () => {
  await own.drop();
});

describe('two APIs and two workers on one PostgreSQL and one Temporal', () => {
  it('share the broad limit and the plan bucket, make one quote per idempotency key, and lose or duplicate nothing when one API and one worker die mid-run', async () => {
    const seed = Number(process.env.SCALE_SEED ?? Date.now() % 2 ** 31);
    const progress: string[] = [];
    const report = await runScaleOut({
      databaseUrl: database,
      seed,
      approvals: 4,
      workOrders: 12,
      changeOrders: 3,
      concurrency: 4,
      // Workflows the APIs start time out a lost leg after 12 s rather than production's 120 s.
      retryScale: 0.1,
      settleDeadlineMs: 120_000,
      // Four processes start at once on two cores, two of them bundling their workflows.
      readyTimeoutMs: 240_000,
      log: (line) => progress.push(line),
    });
    // What happened, shown when a check fails (or SCALE_REPORT=1): SCALE_SEED=<seed> runs the same order again.
    const failed = !report.settled || report.census.duplicates + report.census.losses > 0;
    if (failed || process.env.SCALE_REPORT) console.error(`seed ${seed}\n${progress.join('\n')}\n${report.lines.join('\n')}`);

    // One broad limit (300 a minute per address) and one plan bucket, whichever API answers:
    // both admitted some, and together exactly what one limit allows.
    expect(report.broad.admittedPerApi.reduce((a, b) => a + b)).toBe(300);
    expect(report.plan.admittedPerApi.reduce((a, b) => a + b)).toBe(report.plan.allowed);
    for (const share of [report.broad, report.plan]) for (const admitted of share.admittedPerApi) expect(admitted).toBeGreaterThan(0);

    // One key sent to both APIs at once: one quote id in both answers, one quote in the database.
    for (const key of report.sameKey) {
      expect(new Set(key.ids).size).toBe(1);
      expect(key.quotesOfCustomer).toBe(1);
    }
    // Under fire each /v1/quotes key went twice at once: every such customer has one quote.
    expect(report.quotesPerV1Customer).toEqual([1, 1, 1]);

    expect({ settled: report.settled, duplicates: report.census.duplicates, losses: report.census.losses }).toEqual({ settled: true, duplicates: 0, losses: 0 });
    expect(report.kills).toEqual({ api: 1, worker: 1 });
    // Both APIs answered, the killed one too (before its kill).
    for (const answered of report.answeredPerApi) expect(answered).toBeGreaterThan(0);
    const found = Object.fromEntries(report.census.rows.map((r) => [r.what, [r.expected, r.found]]));
    expect(found).toMatchObject({
      'payments customers': [6, 6],
      'payments invoices': [6, 6],
      'accounting customers': [6, 6],
      'accounting invoices': [6, 6],
      'CRM opportunities': [6, 6],
      'payments change-order invoices': [4, 4],
      'event ids quote.approved': [6, 6],
      'event ids work_order.dispatched': [12, 12],
      'event ids work_order.completed': [12, 12],
    });
    // Every workflow finished: the approvals' and the change orders' completed, none failed; only
    // the per-endpoint delivery and token-refresh workflows run on, as they do for their lifetime.
    expect(report.workflows.quoteApproval).toEqual({ COMPLETED: 6 });
    expect(report.workflows.changeOrderInvoice).toEqual({ COMPLETED: 4 });
    for (const [type, statuses] of Object.entries(report.workflows)) {
      const settledStates = ENTITY_WORKFLOWS.has(type) ? ['COMPLETED', 'RUNNING'] : ['COMPLETED'];
      expect({ type, unsettled: Object.keys(statuses).filter((s) => !settledStates.includes(s)) }).toEqual({ type, unsettled: [] });
    }
  }, 600_000);
});
