import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OwnDatabase } from '../support/own-database';
import { runCrashCampaign } from '../../scripts/harness/crash-campaign';

/**
 * The crash campaign in small (bench/crash-campaign.ts runs the big one). The worker
 * process is SIGKILLed at least three times at seeded random moments and the API process once,
 * while approvals and work-order moves go through the API; counted at the fakes and the
 * receiver, nothing is made twice and nothing is lost. On a database of its own, so the worker's
 * outbox relay sees only this campaign.
 */
const own = new OwnDatabase('campaign');
const database = own.url;

beforeAll(async () => {
  await own.create();
}, 120_000);
afterAll(async () => {
  await own.drop();
});

describe('a small crash campaign', () => {
  it('6 approvals and 40 events through 3 worker kills and 1 API kill: no duplicate, no loss, at the providers and the receiver', async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 2 ** 31);
    const progress: string[] = [];
    const report = await runCrashCampaign({
      approvals: 6,
      events: 40,
      workerKills: 3,
      apiKills: 1,
      seed,
      unitsPerSecond: 1.5,
      concurrency: 4,
      workerUptimeMs: [2_000, 6_000],
      restartPauseMs: [200, 1_000],
      settleDeadlineMs: 150_000,
      databaseUrl: database,
      // Workflows the API starts time out a lost leg after 12 s rather than production's 120 s.
      retryScale: 0.1,
      log: (line) => progress.push(line),
    });
    // What happened, shown when the count fails: CRASH_SEED=<seed> runs the same campaign again.
    if (!report.settled || report.census.duplicates + report.census.losses > 0) console.error(`seed ${seed}\n${progress.join('\n')}\n${report.lines.join('\n')}`);
    expect({ settled: report.settled, duplicates: report.census.duplicates, losses: report.census.losses }).toEqual({ settled: true, duplicates: 0, losses: 0 });
    expect(report.kills.worker).toBeGreaterThanOrEqual(3);
    expect(report.kills.api).toBe(1);
    // Every object and event id was counted: 8 approvals (two clean) of three legs, 40 moves.
    const found = Object.fromEntries(report.census.rows.map((r) => [r.what, [r.expected, r.found]]));
    expect(found).toEqual({
      'payments customers': [8, 8],
      'payments invoices': [8, 8],
      'payments invoice items': [24, 24],
      'accounting customers': [8, 8],
      'accounting invoices': [8, 8],
      'CRM opportunities': [8, 8],
      'event ids quote.approved': [8, 8],
      'event ids work_order.dispatched': [20, 20],
      'event ids work_order.completed': [20, 20],
    });
    expect(report.peakKiB.worker).toBeGreaterThan(0);
    expect(report.peakKiB.api).toBeGreaterThan(0);
  }, 360_000);
});
