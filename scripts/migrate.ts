import { loadDotEnv } from './infra/dotenv';
import { say, step } from './infra/log';
import { databasePassword, loadSettings } from '../infra/runtime/settings';
import { migrate } from '../db/migrate';
import { seedSandbox } from '../db/seed';

/**
 * Migrations (and the D1 sandbox seed unless SEED_SANDBOX=false) against DATABASE_URL, then exit.
 * `npm start` does this itself; containers and operators run it as its own step.
 */
loadDotEnv();
const settings = loadSettings();
await step('migrations', () => migrate(settings.DATABASE_URL, { api: databasePassword(settings, 'api'), worker: databasePassword(settings, 'worker') }));
if (settings.SEED_SANDBOX) await step('sandbox tenants (D1 seed)', () => seedSandbox(settings.DATABASE_URL));
say('database is up to date');
