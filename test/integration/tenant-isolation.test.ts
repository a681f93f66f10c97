import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { ownerPool } from '../../scripts/harness/owner-db';
import { appDatabaseUrl, workerDatabaseUrl } from '../../db/database-urls';
import { APP_ROLE, WORKER_ROLE } from '../../db/migrations/rls';
import { populateSandboxTenant } from '../support/populate-tenant';

/**
 * Section 1: isolation is the database's, not the handlers'. With tenant A selected, the
 * application role's unfiltered reads of every tenant table return none of tenant B's rows,
 * and writes naming tenant B are refused.
 */
let owner: pg.Pool;
let app: pg.Pool;
let worker: pg.Pool;
let tenantTables: string[];
let a: string;
let b: string;

beforeAll(async () => {
  owner = ownerPool();
  app = new pg.Pool({ connectionString: appDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_APP_PASSWORD!), max: 2 });
  worker = new pg.Pool({ connectionString: workerDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_WORKER_PASSWORD!), max: 2 });
  const { rows } = await owner.query<{ table_name: string }>(
    `select c.table_name from information_schema.columns c
       join information_schema.tables t on t.table_name = c.table_name and t.table_schema = c.table_schema
      where c.table_schema = 'public' and c.column_name = 'organization_id' and t.table_type = 'BASE TABLE'
      order by 1`,
  );
  tenantTables = rows.map((r) => r.table_name);
  const orgs = await owner.query<{ id: string; subdomain: string }>(`select id, subdomain from organizations where subdomain in ('sandbox', 'sandbox-alt')`);
  a = orgs.rows.find((o) => o.subdomain === 'sandbox')!.id;
  b = orgs.rows.find((o) => o.subdomain === 'sandbox-alt')!.id;
  await populateSandboxTenant(owner, 'sandbox');
  await populateSandboxTenant(owner, 'sandbox-alt');
});
afterAll(async () => {
  await app.end();
  await worker.end();
  await owner.end();
});

/** Runs statements as an application role (the API's unless said) inside one transaction with tenant `org` selected. */
async function asTenant<T>(org: string | null, work: (client: pg.PoolClient) => Promise<T>, pool = app): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    if (org) await client.query('select app_enter_tenant($1)', [org]);
    return await work(client);
  } finally {
    await client.query('rollback').catch(() => undefined);
    client.release();
  }
}

describe('row-level security', () => {
  it('the application role owns nothing and cannot bypass RLS', async () => {
    const role = await owner.query(`select rolsuper, rolbypassrls from pg_roles where rolname = $1`, [APP_ROLE]);
    expect(role.rows[0]).toEqual({ rolsuper: false, rolbypassrls: false });
    const owned = await owner.query(`select relname from pg_class c join pg_roles r on r.oid = c.relowner where r.rolname = $1`, [APP_ROLE]);
    expect(owned.rows).toEqual([]);
  });

  it('covers every table with an organization_id, each holding rows of both sandbox tenants', async () => {
    expect(tenantTables.length).toBeGreaterThan(0);
    for (const table of tenantTables) {
      const rls = await owner.query(`select relrowsecurity from pg_class where relname = $1 and relnamespace = 'public'::regnamespace`, [table]);
      const policies = await owner.query(`select count(*)::int as n from pg_policies where tablename = $1`, [table]);
      expect({ table, rls: rls.rows[0]?.relrowsecurity, policies: policies.rows[0].n > 0 }).toEqual({ table, rls: true, policies: true });
      const counts = await owner.query(`select organization_id, count(*)::int as n from "${table}" where organization_id in ($1, $2) group by 1`, [a, b]);
      // A table without fixture rows for both tenants would make the checks below vacuous.
      expect({ table, tenants: counts.rows.length }).toEqual({ table, tenants: 2 });
    }
  });

  // Each role reads only the tables its process uses (least-privilege.test.ts); where it may read, it sees its tenant only.
  const readable = async (pool: pg.Pool, table: string) =>
    (await owner.query<{ ok: boolean }>(`select has_table_privilege($1, $2, 'select') as ok`, [pool === app ? APP_ROLE : WORKER_ROLE, table])).rows[0]!.ok;

  it("with tenant A selected, an unfiltered select returns none of tenant B's rows, for the API's role and the worker's", async () => {
    for (const [role, pool] of [['api', app], ['worker', worker]] as const) {
      for (const table of tenantTables) {
        if (!(await readable(pool, table))) continue;
        const rows = await asTenant(a, (c) => c.query(`select organization_id from "${table}"`), pool);
        expect({ role, table, foreign: rows.rows.filter((r) => r.organization_id !== a).length, own: rows.rows.length > 0 }).toEqual({ role, table, foreign: 0, own: true });
      }
    }
  });

  it('with no tenant selected, nothing is visible at all', async () => {
    for (const [role, pool] of [['api', app], ['worker', worker]] as const) {
      for (const table of [...tenantTables, 'organizations']) {
        if (!(await readable(pool, table))) continue;
        const rows = await asTenant(null, (c) => c.query(`select 1 from "${table}"`), pool);
        expect({ role, table, rows: rows.rowCount }).toEqual({ role, table, rows: 0 });
      }
    }
  });

  it("an insert or update naming tenant B's organization_id fails", async () => {
    for (const table of tenantTables) {
      // Copy one of B's own rows (new primary key) and try to write it while A is selected.
      const sample = await owner.query(`select * from "${table}" where organization_id = $1 limit 1`, [b]);
      const row = { ...sample.rows[0] } as Record<string, unknown>;
      delete row.id;
      delete row.sequence; // generated identity columns take no value
      for (const key of Object.keys(row)) if (typeof row[key] === 'string' && /email|number/.test(key)) row[key] = `${String(row[key])}-copy`;
      const columns = Object.keys(row);
      // node-postgres sends a JS array as a PostgreSQL array: a jsonb column's value goes as JSON text.
      const jsonb = new Set((await owner.query<{ column_name: string }>(`select column_name from information_schema.columns where table_name = $1 and data_type = 'jsonb'`, [table])).rows.map((r) => r.column_name));
      const values = columns.map((k) => (jsonb.has(k) ? JSON.stringify(row[k]) : row[k]));
      const insert = asTenant(a, (c) =>
        c.query(`insert into "${table}" (${columns.map((k) => `"${k}"`).join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, values),
      );
      // Refused by the policy, or (a table the API only reads) by the grants.
      await expect(insert).rejects.toThrow(/row-level security|permission denied/);
      // Append-only tables (histories, the outbox) refuse updates and deletes outright.
      const update = asTenant(a, (c) => c.query(`update "${table}" set organization_id = $1`, [b]));
      await expect(update).rejects.toThrow(/row-level security|permission denied/);
      // And B's rows cannot be reached to be changed or removed.
      const deleted = await asTenant(a, (c) => c.query(`delete from "${table}" where organization_id = $1`, [b])).then(
        (result) => result.rowCount,
        (error: Error) => (/permission denied/.test(error.message) ? 0 : Promise.reject(error)),
      );
      expect({ table, deleted }).toEqual({ table, deleted: 0 });
    }
  });

  it('a tenant sees only its own organization row', async () => {
    const rows = await asTenant(a, (c) => c.query('select id from organizations'));
    expect(rows.rows).toEqual([{ id: a }]);
  });
});
