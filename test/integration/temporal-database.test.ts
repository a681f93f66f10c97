// docker-compose's Temporal logs in as a role of its own, made by the migration step (the only
// step that holds the owner's password): db/temporal-database.ts against the real PostgreSQL.
import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { ensureTemporalDatabases } from '../../db/temporal-database';
import { withDatabaseName } from '../../db/database-urls';

const ownerUrl = process.env.DATABASE_URL!;
// Names of this run only: the server is shared by the suite's files.
const suffix = randomBytes(4).toString('hex');
const role = `shade_temporal_${suffix}`;
const databases = [`temporal_${suffix}`, `temporal_visibility_${suffix}`];

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
const as = (database: string, password: string) => {
  const url = new URL(withDatabaseName(ownerUrl, database));
  url.username = role;
  url.password = password;
  return url.toString();
};
const refusal = (url: string, sql: string) => withClient(url, (c) => c.query(sql)).then(() => 'allowed', (error: Error) => error.message);

afterAll(async () => {
  await withClient(withDatabaseName(ownerUrl, 'postgres'), async (admin) => {
    for (const database of databases) await admin.query(`drop database if exists "${database}" with (force)`);
    await admin.query(`drop role if exists "${role}"`);
  });
});

describe('ensureTemporalDatabases: Temporal\'s own role', () => {
  it('makes a role that owns Temporal\'s databases, takes over ones the owner made, and can do nothing else', async () => {
    // A stack whose Temporal ran as the owner: one database exists, with a table and a sequence.
    await withClient(withDatabaseName(ownerUrl, 'postgres'), (admin) => admin.query(`create database "${databases[1]}"`));
    await withClient(withDatabaseName(ownerUrl, databases[1]!), (c) => c.query('create table executions_visibility (id bigserial primary key, workflow_id text)'));

    const first = randomBytes(12).toString('base64url');
    await ensureTemporalDatabases(ownerUrl, first, { role, databases });
    for (const database of databases) {
      // What Temporal's schema tools do: create and alter tables of its own database.
      await withClient(as(database, first), async (c) => {
        await c.query('create table if not exists schema_version (version text)');
        await c.query('alter table schema_version add column if not exists note text');
      });
    }
    // The owner's old table is the role's now: update-schema can alter it.
    await withClient(as(databases[1]!, first), (c) => c.query(`alter table executions_visibility add column status int; insert into executions_visibility (workflow_id) values ('w')`));

    // Nothing else: no superuser, no new databases or roles, none of our tables.
    const attributes = await withClient(ownerUrl, (c) => c.query('select rolsuper, rolcreatedb, rolcreaterole, rolbypassrls from pg_roles where rolname = $1', [role]));
    expect(attributes.rows).toEqual([{ rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolbypassrls: false }]);
    const ours = new URL(ownerUrl).pathname.slice(1);
    expect(await refusal(as(ours, first), 'select count(*) from organizations')).toMatch(/permission denied/);
    expect(await refusal(as(databases[0]!, first), `create database "other_${suffix}"`)).toMatch(/permission denied/);

    // Run again with a new password (a rotation): idempotent, and only the new one works.
    const second = randomBytes(12).toString('base64url');
    await ensureTemporalDatabases(ownerUrl, second, { role, databases });
    expect(await refusal(as(databases[0]!, first), 'select 1')).toMatch(/password authentication failed/);
    expect(await refusal(as(databases[0]!, second), 'select count(*) from schema_version')).toBe('allowed');
  });
});
