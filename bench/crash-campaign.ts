/**
 * The crash campaign (a script, not a test; docs/crash-campaign.md): CRASH_APPROVALS
 * approvals (default 100) and CRASH_EVENTS webhook events (default 1,000 work-order moves, plus
 * each approval's quote.approved) through the API, while the worker process is SIGKILLed at
 * seeded random moments at least CRASH_WORKER_KILLS times (default 20) and started again, and
 * the API process CRASH_API_KILLS times (default 1). Then it counts, at the providers' fakes and
 * the webhook receiver, the customers, invoices, invoice items and opportunities of each quote
 * and the distinct event ids of each change, and prints duplicates and losses (both must be 0,
 * or it exits 1), the time it took, the kills, and the peak resident memory of the API and the
 * worker (the largest over all their restarts).
 *
 *   npm run bench:crash-campaign
 *   CRASH_SEED=42 npm run bench:crash-campaign     # the same kill moments and order again
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal (or DATABASE_URL /
 * TEMPORAL_ADDRESS); the API and the worker each as its own process, production timing.
 */
import { randomInt } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const seed = number('CRASH_SEED', randomInt(1, 2 ** 31));

const report = await withSelfContainedStack('bench_crash', async () => {
  const { runCrashCampaign } = await import('../scripts/harness/crash-campaign');
  return runCrashCampaign({
    approvals: number('CRASH_APPROVALS', 100),
    events: number('CRASH_EVENTS', 1000),
    workerKills: number('CRASH_WORKER_KILLS', 20),
    apiKills: number('CRASH_API_KILLS', 1),
    seed,
    unitsPerSecond: number('CRASH_UNITS_PER_SECOND', 3),
    concurrency: number('CRASH_CONCURRENCY', 8),
    workerUptimeMs: [number('CRASH_UPTIME_MIN_MS', 1_000), number('CRASH_UPTIME_MAX_MS', 8_000)],
    restartPauseMs: [200, 2_000],
    settleDeadlineMs: number('CRASH_SETTLE_DEADLINE_MS', 900_000),
    log: (line) => console.log(`  ${line}`),
  });
});
console.log(`\ncrash campaign\n`);
for (const line of report.lines) console.log(line);
if (report.census.duplicates > 0 || report.census.losses > 0 || !report.settled) {
  console.log(`\nFAILED: ${report.census.duplicates} duplicates, ${report.census.losses} losses (seed ${seed})`);
  process.exit(1);
}
