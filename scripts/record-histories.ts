/**
 * Records the event histories that test/unit/workflow-replay.test.ts replays on every run, so a
 * change that breaks determinism fails the suite. Re-record (`npm run record-histories`) only
 * when a workflow change is meant to be incompatible, and then version the workflow (patched())
 * instead if runs may be in flight.
 *
 * Self-contained like `npm test`: its own PostgreSQL (or DATABASE_URL's server) and Temporal,
 * a local payments fake, and a worker in this process.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { provideDatabase } from './infra/database';
import { provideTemporal } from './infra/temporal';
import { projectRoot } from './infra/paths';
import { say } from './infra/log';
import { migrate, dropDatabase } from '../db/migrate';
import { seedSandbox } from '../db/seed';

const database = await provideDatabase({ purpose: 'test', databaseName: `shade_histories_${Date.now()}` });
const temporal = await provideTemporal({ purpose: 'test' });
const appPassword = randomBytes(12).toString('hex');
Object.assign(process.env, {
  DATABASE_URL: database.url,
  DATABASE_APP_PASSWORD: appPassword,
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_NAMESPACE: temporal.namespace,
  AUTH_TOKEN_SECRET: randomBytes(32).toString('base64url'),
  NODE_ENV: 'test',
});
try {
  await migrate(database.url, appPassword);
  await seedSandbox(database.url);
  const { recordApprovalHistories } = await import('../test/support/history-recorder');
  const { recordIntegrationHistories } = await import('../test/support/integration-history-recorder');
  const histories = { ...(await recordApprovalHistories()), ...(await recordIntegrationHistories()) };
  const folder = join(projectRoot, 'test', 'histories');
  mkdirSync(folder, { recursive: true });
  for (const [name, history] of Object.entries(histories)) {
    writeFileSync(join(folder, `${name}.json`), historyToJSON(history) + '\n');
    say(`recorded test/histories/${name}.json`);
  }
} finally {
  await temporal.stop();
  if (!database.embedded) await dropDatabase(database.url);
  await database.stop();
}
