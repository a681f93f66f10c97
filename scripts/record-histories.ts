/**
 * Records the event histories that test/unit/workflow-replay.test.ts replays on every run, so a
 * change that breaks determinism fails the suite. A change that would take running workflows
 * down another path is versioned with patched() and keeps the old files; once no run of the old
 * shape is open, the patch is retired and the files re-recorded (docs/workflow-versioning.md).
 * Names given as arguments record only those histories (a new path of a workflow gets its own
 * file; the others stay as they were recorded).
 *
 * Self-contained like `npm test`: its own PostgreSQL (or DATABASE_URL's server) and Temporal,
 * a local payments fake, and a worker in this process.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { withSelfContainedStack } from './infra/self-contained';
import { projectRoot } from './infra/paths';
import { say } from './infra/log';

await withSelfContainedStack('histories', async () => {
  const { recordApprovalHistories } = await import('./harness/history-recorder');
  const { recordIntegrationHistories } = await import('./harness/integration-history-recorder');
  const { recordWebhookAndScheduleHistories } = await import('./harness/webhook-history-recorder');
  const { recordRouteHistories } = await import('./harness/route-history-recorder');
  const { recordPricebookHistories } = await import('./harness/pricebook-history-recorder');
  const { recordTenantHistories } = await import('./harness/tenant-history-recorder');
  const histories = { ...(await recordApprovalHistories()), ...(await recordIntegrationHistories()), ...(await recordWebhookAndScheduleHistories()), ...(await recordPricebookHistories()), ...(await recordTenantHistories()), ...(await recordRouteHistories()) };
  const folder = join(projectRoot, 'test', 'histories');
  mkdirSync(folder, { recursive: true });
  // `npm run record-histories -- <name> ...` writes only those (a new path), leaving the others as recorded.
  const only = new Set(process.argv.slice(2));
  for (const [name, history] of Object.entries(histories)) {
    if (only.size > 0 && !only.has(name)) continue;
    writeFileSync(join(folder, `${name}.json`), historyToJSON(history) + '\n');
    say(`recorded test/histories/${name}.json`);
  }
});
