import pg from 'pg';
import { createOrm } from './orm';
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
export async function migrate(ownerUrl: string, passwords: RolePasswords): Promise<void> {
  await ensureDatabase(ownerUrl);
  await oneMigrationAtATime(ownerUrl, async () => {
    const orm = await createOrm({ url: ownerUrl, poolMax: 2 });
    try {
      await orm.migrator.up();
      const literal = (password: string) => `'${password.replaceAll("'", "''")}'`;
      await orm.em.getConnection().execute(`alter role ${APP_ROLE} login password ${literal(passwords.api)}`);
      await orm.em.getConnection().execute(`alter role ${WORKER_ROLE} login password ${literal(passwords.worker)}`);
    } finally {
      await orm.close(true);
    }
  });
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
