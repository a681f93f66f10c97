import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { provideDatabase } from './infra/database';
import { provideTemporal } from './infra/temporal';
import { run } from './infra/processes';
import { runJest } from './infra/jest';
import { ensureStripeMock } from './infra/stripe-mock';
import { projectRoot } from './infra/paths';
import { say, step } from './infra/log';
import { migrate, dropDatabase } from '../db/migrate';
import { seedSandbox } from '../db/seed';
import { checkLayers, checkPromises, CHECKED_FOLDERS } from './lint/checks';
import { ensureChromium } from './infra/chromium';

/**
 * `npm test`: the same set-up as `npm start` (a PostgreSQL and a Temporal server unless
 * DATABASE_URL / TEMPORAL_ADDRESS are set), a fresh database for this run, then the type-check
 * and every Jest project (jest.config.js). Extra arguments go to Jest
 * (`npm test -- test/integration/approval.test.ts`). The tests that need none of this run alone,
 * in seconds, with `npm run test:unit` (scripts/test-unit.ts).
 */
const jestArgs = process.argv.slice(2);
const bin = (name: string) => join(projectRoot, 'node_modules', '.bin', name);

const tscCode = await step('type-check (tsc --noEmit)', () => run(bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']), (code) => (code === 0 ? 'clean' : 'FAILED, see above'));
if (tscCode !== 0) process.exit(tscCode);

// The layer rules and the promise rules (scripts/lint/), before anything slower runs.
for (const [name, check] of [
  ['layer rules (dependency-cruiser)', () => checkLayers({ root: projectRoot, rulesRoot: projectRoot, folders: CHECKED_FOLDERS })],
  ['promise rules (oxlint, type-aware)', () => checkPromises({ root: projectRoot, rulesRoot: projectRoot, paths: CHECKED_FOLDERS })],
] as const) {
  say(`checking the ${name}`);
  const result = await check();
  if (!result.ok) {
    process.stdout.write(result.output);
    say(`the ${name} failed`);
    process.exit(1);
  }
}

ensureChromium();

const databaseName = `shade_test_${Date.now()}_${process.pid}`;
const database = await step('PostgreSQL', () => provideDatabase({ purpose: 'test', databaseName }), (d) => d.description);
let temporal: Awaited<ReturnType<typeof provideTemporal>> | undefined;
let exitCode = 1;
try {
  const appPassword = randomBytes(18).toString('base64url');
  const workerPassword = randomBytes(18).toString('base64url');
  await step(`migrations and seed of ${databaseName}`, async () => {
    await migrate(database.url, { api: appPassword, worker: workerPassword });
    await seedSandbox(database.url);
  });
  temporal = await step('Temporal', () => provideTemporal({ purpose: 'test' }), (t) => t.description);
  // Stripe's own mock: proves our payments requests are ones Stripe's API accepts.
  const stripeMock = await step('stripe-mock', () => ensureStripeMock(), (path) => path);

  say('running the test suite (jest)');
  exitCode = await runJest(jestArgs, {
    DATABASE_URL: database.url,
    DATABASE_APP_PASSWORD: appPassword,
    DATABASE_WORKER_PASSWORD: workerPassword,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    AUTH_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    STRIPE_MOCK_BIN: stripeMock,
    // Processes the tests start serve /metrics on any free port, beside other runs.
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
  });
} finally {
  await temporal?.stop();
  if (!database.embedded) await dropDatabase(database.url).catch((error: unknown) => say(`could not drop ${databaseName}: ${String(error)}`));
  await database.stop();
}
process.exit(exitCode);
