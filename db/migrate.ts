import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createOrm } from './orm';
import { migrations } from './migrations';
import { releasesOlderThan } from './running-releases';
import { APP_ROLE, WORKER_ROLE } from './migrations/rls';

/** Creates the database named in the owner URL when the server does not have it yet. */
export async function ensureDatabase(ownerUrl: string): Promise<void> {
  const url = new URL(ownerUrl);
  const database = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database "${database.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

export interface RolePasswords {
  /** DATABASE_APP_PASSWORD: the API's role. */
  api: string;
  /** DATABASE_WORKER_PASSWORD: the worker's role. */
  worker: string;
}

/**
 * Applies every committed migration as the owner, then lets the API's and the worker's roles log
 * in with the configured passwords (the migrations create the roles; passwords are settings).
 */
export async function migrate(ownerUrl: string, passwords: RolePasswords, options: { migrations?: typeof migrations } = {}): Promise<void> {
  await ensureDatabase(ownerUrl);
  await oneMigrationAtATime(ownerUrl, async () => {
    const list = options.migrations ?? migrations;
    const orm = await createOrm({ url: ownerUrl, poolMax: 2, migrations: list });
    try {
      await refuseContractsUnderOlderReleases(orm, list);
      await orm.migrator.up();
      const literal = (password: string) => `'${password.replaceAll("'", "''")}'`;
      await orm.em.getConnection().execute(`alter role ${APP_ROLE} login password ${literal(passwords.api)}`);
      await orm.em.getConnection().execute(`alter role ${WORKER_ROLE} login password ${literal(passwords.worker)}`);
    } finally {
      await orm.close(true);
    }
  });
}

export class ContractMigrationRefused extends Error {}

/**
 * Rolling deploys (db/running-releases.ts): before anything is applied, each pending contract
 * migration is checked against the processes recorded as running; one that an older release still
 * needs refuses the whole run, naming the processes, so nothing half-applies.
 */
async function refuseContractsUnderOlderReleases(orm: MikroORM, list: typeof migrations): Promise<void> {
  const pending = new Set((await orm.migrator.getPending()).map((migration) => migration.name));
  const contracts = list
    .filter((migration) => pending.has(migration.name))
    .flatMap((migration) => {
      const contractAfter = (migration.class as unknown as { contractAfter?: unknown }).contractAfter;
      return typeof contractAfter === 'string' ? [{ name: migration.name, contractAfter }] : [];
    });
  if (contracts.length === 0) return;
  const em = orm.em.fork();
  const [table] = await em.execute<{ present: boolean }[]>(`select to_regclass('running_releases') is not null as present`);
  if (!table?.present) return;
  for (const contract of contracts) {
    const older = await releasesOlderThan(em, contract.contractAfter);
    if (older.length === 0) continue;
    const running = older.map((release) => `${release.role} ${release.process_id} (schema ${release.schema_version})`).join(', ');
    throw new ContractMigrationRefused(
      `${contract.name} removes what releases before ${contract.contractAfter} still use, and ${older.length} such process(es) are running: ${running}. ` +
        'Finish rolling out the previous release (or stop those processes), then migrate again. Nothing was applied.',
    );
  }
}

/**
 * Roles belong to the server, not to a database: two databases migrated at once (test files that
 * each make a database of their own, on parallel Jest workers) update the same role rows, and one
 * fails with "tuple concurrently updated". So migrations take turns, under an advisory lock held
 * in the server's `postgres` database (an advisory lock is scoped to the database it is taken in).
 */
async function oneMigrationAtATime(ownerUrl: string, work: () => Promise<void>): Promise<void> {
  const url = new URL(ownerUrl);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`select pg_advisory_lock(hashtext('shade-office:migrate'))`);
    await work();
  } finally {
    // Ending the session releases the lock, also when the work failed.
    await client.end();
  }
}

export async function dropDatabase(ownerUrl: string): Promise<void> {
  const url = new URL(ownerUrl);
  const database = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${database.replaceAll('"', '""')}" with (force)`);
  } finally {
    await client.end();
  }
}
