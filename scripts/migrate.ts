import { loadDotEnv } from './infra/dotenv';
import { say, step } from './infra/log';
import { databasePassword, loadSettings } from '../infra/runtime/settings';
import { migrate } from '../db/migrate';
import { seedSandbox } from '../db/seed';
import { readFileSync } from 'node:fs';
import { ensureTemporalDatabases, TEMPORAL_ROLE } from '../db/temporal-database';

/**
 * Migrations (and the D1 sandbox seed unless SEED_SANDBOX=false) against DATABASE_URL, then exit.
 * `npm start` does this itself; containers and operators run it as its own step. With
 * TEMPORAL_DATABASE_PASSWORD (or its `_FILE`), also Temporal's own role and databases
 * (docker-compose): this step is the only one that holds the owner's password.
 */
loadDotEnv();
const settings = loadSettings();
await step('migrations', () => migrate(settings.DATABASE_URL, { api: databasePassword(settings, 'api'), worker: databasePassword(settings, 'worker') }));
const temporalPassword = secretOf('TEMPORAL_DATABASE_PASSWORD');
if (temporalPassword) await step(`Temporal's role ${TEMPORAL_ROLE} and databases`, () => ensureTemporalDatabases(settings.DATABASE_URL, temporalPassword));
if (settings.SEED_SANDBOX) await step('sandbox tenants (D1 seed)', () => seedSandbox(settings.DATABASE_URL));
say('database is up to date');

/**
 * A secret only this step reads (not one of the processes' settings): its value, or the content
 * of `<NAME>_FILE` with one trailing newline dropped, as infra/runtime/secret-files.ts reads them.
 */
function secretOf(name: string): string | undefined {
  const value = process.env[name];
  const file = process.env[`${name}_FILE`];
  if (value && file) throw new Error(`invalid settings: ${name} and ${name}_FILE are both set; set one`);
  if (value) return value;
  if (!file) return undefined;
  return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
}
