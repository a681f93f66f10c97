import pg from 'pg';
import { createOrm } from './orm';
import { APP_ROLE } from './migrations/rls';

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

/**
 * Applies every committed migration as the owner, then lets the application role log in with
 * the configured password (the migrations create the role; the password is a deployment setting).
 */
export async function migrate(ownerUrl: string, appPassword: string): Promise<void> {
  await ensureDatabase(ownerUrl);
  const orm = await createOrm({ url: ownerUrl, poolMax: 2 });
  try {
    await orm.migrator.up();
    const literal = `'${appPassword.replaceAll("'", "''")}'`;
    await orm.em.getConnection().execute(`alter role ${APP_ROLE} login password ${literal}`);
  } finally {
    await orm.close(true);
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
