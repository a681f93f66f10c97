import { loadDotEnv } from './infra/dotenv';
import { say } from './infra/log';
import { databasePassword, loadSettings } from '../api/settings';
import { migrate } from '../db/migrate';
import { seedSandbox } from '../db/seed';

/**
 * Migrations (and the D1 sandbox seed unless SEED_SANDBOX=false) against DATABASE_URL, then exit.
 * `npm start` does this itself; containers and operators run it as its own step.
 */
loadDotEnv();
const settings = loadSettings();
say('applying migrations');
await migrate(settings.DATABASE_URL, { api: databasePassword(settings, 'api'), worker: databasePassword(settings, 'worker') });
if (settings.SEED_SANDBOX) {
  say('seeding the sandbox tenants (D1)');
  await seedSandbox(settings.DATABASE_URL);
}
say('database is up to date');
