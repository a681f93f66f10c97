import { randomBytes } from 'node:crypto';
import { provideDatabase } from './database';
import { provideTemporal } from './temporal';
import { migrate, dropDatabase } from '../../db/migrate';
import { seedSandbox } from '../../db/seed';

/**
 * For scripts that run the real thing end to end (benchmarks, history recording): the same
 * set-up as `npm test` — a fresh, migrated and seeded database on the embedded PostgreSQL (or
 * DATABASE_URL's server) and a Temporal development server (or TEMPORAL_ADDRESS) — with the
 * settings in process.env, torn down afterwards.
 */
export async function withSelfContainedStack<T>(name: string, work: () => Promise<T>): Promise<T> {
  const database = await provideDatabase({ purpose: 'test', databaseName: `shade_${name}_${Date.now()}` });
  const temporal = await provideTemporal({ purpose: 'test' });
  const appPassword = randomBytes(12).toString('hex');
  const workerPassword = randomBytes(12).toString('hex');
  Object.assign(process.env, {
    DATABASE_URL: database.url,
    DATABASE_APP_PASSWORD: appPassword,
    DATABASE_WORKER_PASSWORD: workerPassword,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    AUTH_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    NODE_ENV: 'test',
  });
  try {
    await migrate(database.url, { api: appPassword, worker: workerPassword });
    await seedSandbox(database.url);
    return await work();
  } finally {
    await temporal.stop();
    if (!database.embedded) await dropDatabase(database.url);
    await database.stop();
  }
}
