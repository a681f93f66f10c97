import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { ownerPool, createTenant, giveRateCard, type Tenant } from '../../scripts/harness/owner-db';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { appDatabaseUrl, workerDatabaseUrl } from '../../db/database-urls';
import { APP_ROLE, WORKER_ROLE } from '../../db/migrations/rls';

/**
 * Least privilege: the API and the worker connect as roles of their own, each granted
 * only what its code uses, and the tenant setting cannot outlive its transaction on a pooled
 * connection.
 */
let owner: pg.Pool;
let api: pg.Pool;
let worker: pg.Pool;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  owner = ownerPool();
  // One connection each, so "the next user of the connection" is certain.
  api = new pg.Pool({ connectionString: appDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_APP_PASSWORD!), max: 1 });
  worker = new pg.Pool({ connectionString: workerDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_WORKER_PASSWORD!), max: 1 });
  a = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  b = await createTenant(owner, { admin: 'ADMIN' });
});
afterAll(async () => {
  await Promise.all([api.end(), worker.end(), owner.end()]);
});

const refusal = (pool: pg.Pool, sql: string) =>
  pool.query(sql).then(
    () => 'allowed',
    (error: Error) => (/permission denied/.test(error.message) ? 'permission denied' : error.message),
  );

/** What each process does with each table (api/, and worker/ with activities/): the grants must be exactly these. */
const TABLES: Record<string, { api: string[]; worker: string[] }> = {
  organizations: { api: ['SELECT'], worker: ['SELECT'] },
  users: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: [] },
  user_tokens: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: [] },
  rate_limits: { api: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'], worker: [] },
  // D21: the API publishes revisions (never edits one); the worker reads one to announce it, and
  // D22's provisioning writes a new tenant's first one.
  rate_card_revisions: { api: ['INSERT', 'SELECT'], worker: ['INSERT', 'SELECT'] },
  rate_card_skus: { api: ['INSERT', 'SELECT'], worker: ['INSERT', 'SELECT'] },
  rate_card_labour_tiers: { api: ['INSERT', 'SELECT'], worker: ['INSERT', 'SELECT'] },
  rate_card_products: { api: ['INSERT', 'SELECT'], worker: [] },
  customers: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['SELECT', 'UPDATE'] },
  quote_number_counters: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: [] },
  quotes: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['SELECT', 'UPDATE'] },
  // D14: a new revision replaces the quote's lines.
  quote_lines: { api: ['DELETE', 'INSERT', 'SELECT'], worker: [] },
  // D23: a route plan applied by the worker moves jobs between crews.
  work_orders: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['SELECT', 'UPDATE'] },
  work_order_history: { api: ['INSERT', 'SELECT'], worker: [] },
  outbox_events: { api: ['INSERT'], worker: ['INSERT', 'SELECT'] },
  sync_records: { api: ['SELECT'], worker: ['INSERT', 'SELECT', 'UPDATE'] },
  // D18: the payments sync handles events as the webhook does, de-duplicated with it.
  payments_webhook_events: { api: ['INSERT', 'SELECT'], worker: ['INSERT', 'SELECT'] },
  provider_sync_state: { api: [], worker: ['INSERT', 'SELECT', 'UPDATE'] },
  provider_sync_runs: { api: ['SELECT'], worker: ['INSERT', 'SELECT', 'UPDATE'] },
  integration_connections: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['SELECT', 'UPDATE'] },
  integration_oauth_states: { api: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'], worker: [] },
  webhook_endpoints: { api: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'], worker: ['SELECT', 'UPDATE'] },
  webhook_deliveries: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['INSERT', 'SELECT', 'UPDATE'] },
  webhook_delivery_attempts: { api: ['SELECT'], worker: ['INSERT', 'SELECT'] },
  // D13: the one notice per disabling, claimed and kept by the worker.
  webhook_endpoint_notices: { api: [], worker: ['INSERT', 'SELECT'] },
  // D11, D12: the field-sync jobs. The worker reads a change order to invoice it.
  crews: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['SELECT'] },
  crew_members: { api: ['DELETE', 'INSERT', 'SELECT'], worker: ['SELECT'] },
  sites: { api: ['INSERT', 'SELECT'], worker: ['SELECT'] },
  job_sync_clock: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['INSERT', 'SELECT', 'UPDATE'] },
  time_entries: { api: ['INSERT', 'SELECT'], worker: ['SELECT'] },
  material_draws: { api: ['INSERT', 'SELECT'], worker: [] },
  change_orders: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['SELECT'] },
  job_history: { api: ['INSERT', 'SELECT'], worker: ['INSERT', 'SELECT'] },
  // D23: routing data, and the routes a plan (run by the worker's routing activities) or a hand sequence stores.
  technician_routing: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['SELECT'] },
  routes: { api: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'], worker: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'] },
  route_days: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: ['INSERT', 'SELECT', 'UPDATE'] },
  // D14: the catalogue (written by the seed), every revision of a quote (append-only), the idempotency keys.
  catalogue_products: { api: ['SELECT'], worker: ['INSERT', 'SELECT'] },
  quote_revisions: { api: ['INSERT', 'SELECT'], worker: [] },
  idempotency_keys: { api: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'], worker: [] },
  // D15: each tenant's token bucket.
  plan_buckets: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: [] },
  // D22: the audit log is append-only; the worker records what operators and timers change.
  audit_events: { api: ['INSERT', 'SELECT'], worker: ['INSERT'] },
  // Rolling deploys: each process records the schema it was built for.
  running_releases: { api: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'], worker: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'] },
  // D24: the links of the customer's quote page, issued and voided by the API.
  quote_page_tokens: { api: ['INSERT', 'SELECT', 'UPDATE'], worker: [] },
  // D24: the workspace's logo, uploaded, replaced and removed by its ADMIN through the API.
  organization_logos: { api: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'], worker: [] },
  // Issue 30: what completing a job decided to invoice, written by the completing request, invoiced by the worker.
  job_completion_invoices: { api: ['INSERT', 'SELECT'], worker: ['SELECT'] },
};
/** Security-definer doors: each one's callers. */
const FUNCTIONS: Record<string, ('api' | 'worker')[]> = {
  'resolve_workspace(text)': ['api'],
  'tenant_ids()': ['worker'],
  'outbox_lease(integer, integer, integer)': ['worker'],
  'integration_refresh_targets()': ['worker'],
  'outbox_mark_dispatched_in_tenant(uuid[])': ['api', 'worker'],
  // D13: the effective technical contact (the worker addresses the notice without reading users).
  'organization_technical_contact()': ['api', 'worker'],
  // Counts for the worker's /metrics (the operator's alerts), across tenants.
  'operations_metrics()': ['worker'],
  'sync_run_lag()': ['worker'],
  // The tenants' subdomains, beside their ids on the worker's per-tenant metrics.
  'tenant_subdomains()': ['worker'],
  // D22: provisioning a workspace and inviting its first ADMIN (the worker reads no users).
  'provision_organization(text, text, text)': ['worker'],
  'provision_first_admin(text, text)': ['worker'],
  // D23: the routes whose coalesced dispatch.updated is due, for the worker's outbox relay.
  'dispatch_due_days(integer)': ['worker'],
};

describe('separate database roles for the API and the worker', () => {
  it('neither role owns anything, logs in as a superuser, or bypasses row-level security', async () => {
    for (const role of [APP_ROLE, WORKER_ROLE]) {
      const found = await owner.query(`select rolsuper, rolbypassrls, rolcreaterole, rolcreatedb from pg_roles where rolname = $1`, [role]);
      expect({ role, attributes: found.rows[0] }).toEqual({ role, attributes: { rolsuper: false, rolbypassrls: false, rolcreaterole: false, rolcreatedb: false } });
      const owned = await owner.query(`select relname from pg_class c join pg_roles r on r.oid = c.relowner where r.rolname = $1`, [role]);
      expect({ role, owned: owned.rows }).toEqual({ role, owned: [] });
    }
  });

  it('each role holds exactly the table privileges its process uses, on every table', async () => {
    const { rows } = await owner.query<{ grantee: string; table_name: string; privilege_type: string }>(
      `select grantee, table_name, privilege_type from information_schema.role_table_grants
        where table_schema = 'public' and grantee in ($1, $2) and privilege_type in ('SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER')`,
      [APP_ROLE, WORKER_ROLE],
    );
    const granted = (role: string, table: string) => rows.filter((r) => r.grantee === role && r.table_name === table).map((r) => r.privilege_type).sort();
    const tables = (await owner.query<{ tablename: string }>(`select tablename from pg_tables where schemaname = 'public' and tablename not like 'mikro_orm%'`)).rows.map((r) => r.tablename).sort();
    // A new table must be added here, deciding what each process may do with it.
    expect(tables).toEqual(Object.keys(TABLES).sort());
    for (const table of tables) {
      expect({ table, api: granted(APP_ROLE, table), worker: granted(WORKER_ROLE, table) }).toEqual({ table, ...TABLES[table] });
    }
  });

  it("the API's role cannot call the worker's security-definer functions, nor the worker's the API's", async () => {
    for (const [signature, callers] of Object.entries(FUNCTIONS)) {
      for (const [name, role] of [['api', APP_ROLE], ['worker', WORKER_ROLE]] as const) {
        const { rows } = await owner.query<{ allowed: boolean }>(`select has_function_privilege($1, $2, 'execute') as allowed`, [role, signature]);
        expect({ signature, role: name, allowed: rows[0]!.allowed }).toEqual({ signature, role: name, allowed: callers.includes(name) });
      }
    }
    // And in practice: the cross-tenant doors refuse the API.
    expect(await refusal(api, 'select tenant_ids()')).toBe('permission denied');
    expect(await refusal(api, 'select * from outbox_lease(1, 60, 0)')).toBe('permission denied');
    expect(await refusal(api, 'select * from integration_refresh_targets()')).toBe('permission denied');
    expect(await refusal(api, 'select * from dispatch_due_days(1)')).toBe('permission denied');
    expect(await refusal(api, 'select * from tenant_subdomains()')).toBe('permission denied');
    expect((await worker.query('select tenant_ids()')).rowCount).toBeGreaterThanOrEqual(2);
    // The worker reads no users, counts no logins, and cannot resolve a workspace.
    expect(await refusal(worker, 'select count(*) from users')).toBe('permission denied');
    expect(await refusal(worker, 'select count(*) from rate_limits')).toBe('permission denied');
    expect(await refusal(worker, "select resolve_workspace('sandbox')")).toBe('permission denied');
    // D13: the API may change the technical contact of its tenant's organization, and no other column.
    const columns = await owner.query<{ grantee: string; column_name: string }>(
      `select grantee, column_name from information_schema.column_privileges where table_name = 'organizations' and privilege_type = 'UPDATE' and grantee in ($1, $2) order by column_name`,
      [APP_ROLE, WORKER_ROLE],
    );
    // D16: the API pins the tenant's version at its first request. D22: an ADMIN changes the
    // workspace's settings; never its name, subdomain, plan or suspension (the operator's).
    // D24: and the contractor's details its quotes show.
    const settings = [
      'average_speed_kmh', 'business_address', 'business_phone', 'depot_lat', 'depot_lon', 'dispatch_coalesce_seconds', 'display_name', 'eta_drift_threshold_minutes', 'overtime_cap_minutes',
      'quote_terms', 'quote_validity_days', 'road_factor', 'time_zone', 'working_day_start',
    ];
    expect(columns.rows).toEqual(['api_version', ...settings, 'technical_contact_email'].sort().map((column_name) => ({ grantee: APP_ROLE, column_name })));
    expect(await refusal(api, `update organizations set name = 'renamed'`)).toBe('permission denied');
    expect(await refusal(api, `update organizations set plan = 'enterprise'`)).toBe('permission denied');
    expect(await refusal(api, `update organizations set suspended_at = null`)).toBe('permission denied');
    expect(await refusal(worker, `update organizations set technical_contact_email = 'x@y.example'`)).toBe('permission denied');
    // D11: the API binds a completion invoice waiting for a customer to the one set, and changes nothing else of one.
    const invoiceColumns = await owner.query<{ grantee: string; column_name: string }>(
      `select grantee, column_name from information_schema.column_privileges where table_name = 'job_completion_invoices' and privilege_type = 'UPDATE' and grantee in ($1, $2) order by column_name`,
      [APP_ROLE, WORKER_ROLE],
    );
    expect(invoiceColumns.rows).toEqual([{ grantee: APP_ROLE, column_name: 'customer_id' }]);
    expect(await refusal(api, `update job_completion_invoices set subtotal_cents = 0`)).toBe('permission denied');
    // The old cross-tenant "mark dispatched" door is gone: marking is scoped to the tenant selected.
    const gone = await owner.query(`select count(*)::int as n from pg_proc where proname = 'outbox_mark_dispatched'`);
    expect(gone.rows[0].n).toBe(0);
  });
});

describe('the tenant setting lives only as long as its transaction', () => {
  const usersSeen = async (client: pg.PoolClient) => (await client.query<{ organization_id: string }>('select organization_id from users')).rows.map((r) => r.organization_id);

  it("a connection returned to the pool after tenant A's transaction, even one that set the tenant session-wide, reads nothing of A as the next tenant", async () => {
    for (const pool of [api, worker]) {
      const first = await pool.connect();
      const pid = (await first.query('select pg_backend_pid() as pid')).rows[0].pid as number;
      await first.query('begin');
      await first.query(`select app_enter_tenant($1)`, [a.id]);
      if (pool === api) expect(new Set(await usersSeen(first))).toEqual(new Set([a.id]));
      // A mistake in some later code: the setting made session-wide, as the raw value and as
      // the marked value app_enter_tenant writes.
      await first.query(`select set_config('app.organization_id', $1, false)`, [a.id]);
      await first.query(`select set_config('app.organization_id', current_setting('app.organization_id'), false)`);
      await first.query(`select set_config('app.organization_id', $1 || '@' || extract(epoch from now())::text, false)`, [a.id]);
      await first.query('commit');
      first.release();

      const next = await pool.connect();
      try {
        expect((await next.query('select pg_backend_pid() as pid')).rows[0].pid).toBe(pid);
        // Without selecting a tenant: nothing at all, as the policies promise.
        expect(await next.query('select app_current_organization() as org').then((r) => r.rows[0].org)).toBeNull();
        if (pool === api) expect(await usersSeen(next)).toEqual([]);
        // As tenant B: only B.
        await next.query('begin');
        await next.query(`select app_enter_tenant($1)`, [b.id]);
        if (pool === api) expect(new Set(await usersSeen(next))).toEqual(new Set([b.id]));
        expect((await next.query('select app_current_organization() as org')).rows[0].org).toBe(b.id);
        await next.query('commit');
        expect((await next.query('select app_current_organization() as org')).rows[0].org).toBeNull();
      } finally {
        next.release();
      }
    }
  });

  it('app_current_rate_card_revision selects its tenant for its own statement only, reads under row-level security, and refuses inside a tenant transaction', async () => {
    const c = await createTenant(owner, { admin: 'ADMIN' });
    await giveRateCard(a.id, SANDBOX_RATE_CARD);
    const latestOfA = await giveRateCard(a.id, SANDBOX_RATE_CARD);
    const onlyOfB = await giveRateCard(b.id, SANDBOX_RATE_CARD);
    const current = async (client: pg.PoolClient, tenant: string) => (await client.query(`select app_current_rate_card_revision($1) as id`, [tenant])).rows[0].id as string | null;

    const client = await api.connect();
    try {
      // Each tenant's own latest revision; none for a tenant without a rate card.
      expect(await current(client, a.id)).toBe(latestOfA);
      expect(await current(client, b.id)).toBe(onlyOfB);
      expect(await current(client, c.id)).toBeNull();
      // The tenant it selected ended with its statement: nothing is selected, nothing is seen.
      expect((await client.query('select app_current_organization() as org')).rows[0].org).toBeNull();
      expect((await client.query('select count(*)::int as n from rate_card_revisions')).rows[0].n).toBe(0);

      // Inside a transaction of tenant A, it refuses rather than switch the tenant to B.
      await client.query('begin');
      await client.query('select app_enter_tenant($1)', [a.id]);
      await expect(current(client, b.id)).rejects.toThrow(/outside a tenant transaction/);
      await client.query('rollback');
      await client.query('begin');
      await client.query('select app_enter_tenant($1)', [a.id]);
      await expect(current(client, a.id)).rejects.toThrow(/outside a tenant transaction/);
      await client.query('rollback');
    } finally {
      client.release();
    }
    // Only the API's role may call it.
    const allowed = async (role: string) => (await owner.query<{ allowed: boolean }>(`select has_function_privilege($1, 'app_current_rate_card_revision(uuid)', 'execute') as allowed`, [role])).rows[0]!.allowed;
    expect({ api: await allowed(APP_ROLE), worker: await allowed(WORKER_ROLE) }).toEqual({ api: true, worker: false });
  });
});
