import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { Worker } from '@temporalio/worker';
import type { MikroORM } from '@mikro-orm/postgresql';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, SYNC_INTERVAL_NEVER_IN_A_TEST, TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { createOrm } from '../../db/orm';
import { workerDatabaseUrl } from '../../db/database-urls';
import { createTenantActivities } from '../../activities/tenants';
import { WORKFLOWS_PATH } from '../../worker/create-worker';
import { connectWorker } from '../../worker/temporal-connection';
import { provisionTenant } from '../../infra/temporal/tenant-workflows';
import { ProviderSyncSchedules } from '../../infra/temporal/provider-sync-schedules';
import { providerSyncScheduleId, tenantProvisioningWorkflowId, type TenantProvisioningInput } from '../../infra/temporal/contracts';
import { OrganizationIdKey, OrganizationSubdomainKey } from '../../infra/temporal/search-attributes';
import { tenantCommand, TenantUsageError, type TenantCommandContext } from '../../scripts/ops/tenant-commands';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';
import { PLAN_LIMITS } from '../../db/plans/plan-limits';
import { DEFAULT_RATE_CARD_SETTINGS } from '../../domain/organizations/templates';

// D22: tenants made by `ops tenant create` through the tenantProvisioning workflow, and the
// operator's plan (D15), suspend and resume.
let owner: pg.Pool;
let ownerOrm: MikroORM;
let api: ApiHarness;
let temporal: TemporalHarness;
let lines: string[];
let ctx: TenantCommandContext;

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

beforeAll(async () => {
  owner = ownerPool();
  ownerOrm = await createOrm({ url: process.env.DATABASE_URL!, poolMax: 2 });
  temporal = await startTemporalHarness();
  await temporal.startWorker();
  api = await startApi();
  ctx = { em: ownerOrm.em, withTemporal: (work) => work(temporal.client), taskQueue: temporal.taskQueue, out: (line) => lines.push(line) };
}, 120_000);

afterAll(async () => {
  await api?.close();
  await temporal?.close();
  await ownerOrm?.close(true);
  await owner?.end();
});

/** `npm run ops -- ...` as an operator runs it (plain node on its bundle, scripts/ops-bundle.mjs), against this run's database, Temporal and worker. */
function ops(...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/ops-bundle.mjs', ...args], { cwd: projectRoot, env: { ...process.env, NODE_OPTIONS: '', TEMPORAL_TASK_QUEUE: temporal.taskQueue } }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

async function run(...args: string[]): Promise<string[]> {
  lines = [];
  await tenantCommand(ctx, args);
  return lines;
}

const fresh = () => `acme-${randomBytes(4).toString('hex')}`;

/** Everything provisioning makes, counted as the owner sees it. */
async function census(subdomain: string) {
  const { rows } = await owner.query<{ id: string; name: string; plan: string; revisions: number; skus: number; tiers: number; products: number; users: number; audit: number }>(
    `select o.id, o.name, o.plan,
            (select count(*)::int from rate_card_revisions r where r.organization_id = o.id) as revisions,
            (select count(*)::int from rate_card_skus s where s.organization_id = o.id) as skus,
            (select count(*)::int from rate_card_labour_tiers t where t.organization_id = o.id) as tiers,
            (select count(*)::int from catalogue_products p where p.organization_id = o.id) as products,
            (select count(*)::int from users u where u.organization_id = o.id) as users,
            (select count(*)::int from audit_events a where a.organization_id = o.id) as audit
       from organizations o where o.subdomain = $1`,
    [subdomain],
  );
  return rows[0];
}

describe('ops tenant create (D22): the tenantProvisioning workflow', () => {
  it('makes the workspace, its first price book from the sandbox template and invites its first ADMIN; a second run changes nothing and says so', async () => {
    const subdomain = fresh();
    const first = await ops('tenant', 'create', '--subdomain', subdomain, '--name', 'Acme Shades', '--admin-email', `owner@${subdomain}.test`, '--plan', 'growth');
    expect(first.out).toContain(`Created the workspace "${subdomain}"`);
    expect(first.code).toBe(0);
    const made = await census(subdomain);
    expect(made).toMatchObject({ name: 'Acme Shades', plan: 'growth', revisions: 1, skus: SANDBOX_RATE_CARD.skus.length, tiers: SANDBOX_RATE_CARD.labourTiers.length, products: SANDBOX_PRODUCTS.length, users: 1 });
    // The first ADMIN is invited: an ADMIN who cannot sign in until they accept (D20).
    const { rows: admins } = await owner.query('select email, role, active from users where organization_id = $1', [made!.id]);
    expect(admins).toEqual([{ email: `owner@${subdomain}.test`, role: 'ADMIN', active: false }]);
    // Each part audited as the operator, in the transaction that made it.
    const { rows: audit } = await owner.query<{ action: string; actor_type: string; actor_id: string | null }>('select action, actor_type, actor_id from audit_events where organization_id = $1 order by occurred_at, id', [made!.id]);
    expect(audit.map((a) => a.action)).toEqual(['organization.created', 'pricebook.published', 'user.invited']);
    expect(audit.every((a) => a.actor_type === 'operator' && a.actor_id === null)).toBe(true);
    // Like every workflow of a tenant, its provisioning carries both the tenant's names: the
    // subdomain from its start, its id from the step that made the workspace.
    const provisioning = await temporal.client.workflow.getHandle(tenantProvisioningWorkflowId(subdomain)).describe();
    expect({ subdomain: provisioning.typedSearchAttributes.get(OrganizationSubdomainKey), id: provisioning.typedSearchAttributes.get(OrganizationIdKey) }).toEqual({ subdomain, id: made!.id });

    const second = await ops('tenant', 'create', '--subdomain', subdomain, '--name', 'Another Name', '--admin-email', `someone-else@${subdomain}.test`);
    expect(second.code).toBe(0);
    expect(second.out).toContain(`Nothing changed: the workspace "${subdomain}" (${made!.id}) already exists`);
    expect(await census(subdomain)).toEqual(made);

    const listed = await ops('tenant', 'list');
    expect(listed.out).toMatch(new RegExp(`${subdomain}\\s+Acme Shades\\s+growth\\s+active\\s+1`));
  }, 120_000);

  it('the empty template: D2\'s default settings, no SKUs, tiers or products; the plan defaults to starter', async () => {
    const subdomain = fresh();
    const input: TenantProvisioningInput = { subdomain, name: 'Empty Co', adminEmail: `a@${subdomain}.test`, plan: 'starter', template: 'empty' };
    const result = await provisionTenant(temporal.client, temporal.taskQueue, input);
    expect(result).toMatchObject({ workspace: 'created', priceBook: 'created', admin: 'created', joined: false });
    expect(await census(subdomain)).toMatchObject({ plan: 'starter', revisions: 1, skus: 0, tiers: 0, products: 0, users: 1 });
    const { rows } = await owner.query<{ margin_floor: string }>('select margin_floor::text from rate_card_revisions where organization_id = $1', [result.organizationId]);
    expect(Number(rows[0]!.margin_floor)).toBe(Number(DEFAULT_RATE_CARD_SETTINGS.marginFloor));
  }, 60_000);

  it('a step that fails after its commit is retried and finds its part made: one price book, the run completes (a crash half-way resumes)', async () => {
    const taskQueue = `tenants-crash-${randomUUID()}`;
    const orm = await createOrm({ url: workerDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_WORKER_PASSWORD!), poolMax: 2 });
    const connection = await connectWorker(process.env.TEMPORAL_ADDRESS!);
    const real = createTenantActivities({ em: orm.em });
    let attempts = 0;
    const worker = await Worker.create({
      connection,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue,
      workflowsPath: WORKFLOWS_PATH,
      maxCachedWorkflows: 0,
      activities: {
        ...real,
        // The worker dies after the price book committed and before it answered.
        async provisionPriceBook(input: Parameters<typeof real.provisionPriceBook>[0]) {
          attempts += 1;
          const outcome = await real.provisionPriceBook(input);
          if (attempts === 1) throw new Error('worker lost before answering');
          return outcome;
        },
      },
    });
    const subdomain = fresh();
    try {
      const result = await worker.runUntil(provisionTenant(temporal.client, taskQueue, { subdomain, name: 'Crash Co', adminEmail: `a@${subdomain}.test`, plan: 'starter', template: 'sandbox', timing: TEST_TIMING }));
      expect(attempts).toBe(2);
      expect(result).toMatchObject({ workspace: 'created', priceBook: 'existed', admin: 'created' });
    } finally {
      await connection.close();
      await orm.close(true);
    }
    expect(await census(subdomain)).toMatchObject({ revisions: 1, skus: SANDBOX_RATE_CARD.skus.length, products: SANDBOX_PRODUCTS.length, users: 1, audit: 3 });
  }, 120_000);

  it.each([
    [['--subdomain', 'Bad_Sub', '--name', 'X', '--admin-email', 'a@b.test'], '--subdomain'],
    [['--subdomain', 'ok-sub', '--name', '   ', '--admin-email', 'a@b.test'], '--name'],
    [['--subdomain', 'ok-sub', '--name', 'X', '--admin-email', 'not-an-email'], '--admin-email'],
    [['--subdomain', 'ok-sub', '--name', 'X', '--admin-email', 'a@b.test', '--plan', 'platinum'], '--plan'],
    [['--subdomain', 'ok-sub', '--name', 'X', '--admin-email', 'a@b.test', '--template', 'full'], '--template'],
    [['--subdomain', 'ok-sub', '--name', 'X'], '--admin-email'],
    [['--subdomain', 'ok-sub', '--name', 'X', '--admin-email', 'a@b.test', '--colour', 'blue'], '--colour'],
  ])('refuses %j naming %s, and makes nothing', async (args, named) => {
    await expect(run('create', ...args)).rejects.toThrow(TenantUsageError);
    await expect(run('create', ...args)).rejects.toThrow(named);
    expect(await census('ok-sub')).toBeUndefined();
  });
});

describe('ops tenant plan (D15): the plan takes effect at once', () => {
  it('the next /v1/ request draws on the new plan\'s bucket; the change is audited; the same plan again changes nothing', async () => {
    const tenant = await createTenant(owner, { admin: 'ADMIN' });
    await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
    const token = await api.tokenFor(tenant.users.admin!);
    const before = await api.request('/v1/pricebooks', { token });
    expect(before.headers.get('x-ratelimit-limit')).toBe(String(PLAN_LIMITS.starter.burst));
    expect(await run('plan', tenant.subdomain, 'enterprise')).toEqual([expect.stringContaining(`is now on enterprise (was starter)`)]);
    const after = await api.request('/v1/pricebooks', { token });
    expect(after.headers.get('x-ratelimit-limit')).toBe(String(PLAN_LIMITS.enterprise.burst));
    expect(await run('plan', tenant.subdomain, 'enterprise')).toEqual([expect.stringContaining('Nothing changed')]);
    const { rows } = await owner.query('select action, actor_type, changes from audit_events where organization_id = $1', [tenant.id]);
    expect(rows).toEqual([{ action: 'organization.plan_changed', actor_type: 'operator', changes: [{ field: 'plan', before: 'starter', after: 'enterprise' }] }]);
    await expect(run('plan', tenant.subdomain, 'platinum')).rejects.toThrow(TenantUsageError);
    await expect(run('plan', 'no-such-workspace', 'growth')).rejects.toThrow('No workspace "no-such-workspace"');
  });
});

describe('ops tenant suspend and resume (D22)', () => {
  let tenant: Tenant;
  let token: string;
  let schedules: ProviderSyncSchedules;
  const paused = async (provider: 'ACCOUNTING' | 'CRM') => (await temporal.client.schedule.getHandle(providerSyncScheduleId({ organizationId: tenant.id, provider })).describe()).state;
  const requests = () => [
    api.request('/api/v1/auth/me', { token }),
    api.request('/api/v1/organization', { token }),
    api.request('/v1/pricebooks', { token }),
    api.request('/v1/fsm/jobs', { token }),
    api.request('/v1/graphql', { method: 'POST', token, json: { query: '{ workOrders(first: 1) { nodes { id } } }' } }),
  ];

  beforeAll(async () => {
    tenant = await createTenant(owner, { admin: 'ADMIN' });
    await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
    token = await api.tokenFor(tenant.users.admin!);
    schedules = new ProviderSyncSchedules(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, interval: SYNC_INTERVAL_NEVER_IN_A_TEST, timing: TEST_TIMING, runAtOnce: false });
    await schedules.ensure({ organizationId: tenant.id, provider: 'ACCOUNTING' });
    await schedules.ensure({ organizationId: tenant.id, provider: 'CRM' });
    await schedules.pause({ organizationId: tenant.id, provider: 'CRM' }, 'disconnected');
  });

  it('a suspended tenant answers 403 forbidden on /api/, /v1/ and GraphQL, and at login; its schedules pause; resume restores both', async () => {
    expect((await Promise.all(requests())).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);

    expect(await run('suspend', tenant.subdomain)).toEqual([`The workspace "${tenant.subdomain}" is suspended: its requests answer 403.`, expect.stringContaining(providerSyncScheduleId({ organizationId: tenant.id, provider: 'ACCOUNTING' }))]);
    const refused = await Promise.all(requests());
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    const [me, , v1, , graphql] = refused;
    expect(((await me!.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect(await v1!.json()).toMatchObject({ type: 'forbidden', status: 403 });
    expect(await graphql!.json()).toMatchObject({ status: 403 });
    const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { subdomain: tenant.subdomain, email: tenant.users.admin!.email, password: tenant.users.admin!.password } });
    expect(login.status).toBe(403);
    // A wrong password still answers the same 401 as anywhere: suspension is told only to who knows the password.
    const wrong = await api.request('/api/v1/auth/login', { method: 'POST', json: { subdomain: tenant.subdomain, email: tenant.users.admin!.email, password: 'wrong-password' } });
    expect(wrong.status).toBe(401);

    expect(await paused('ACCOUNTING')).toMatchObject({ paused: true, note: 'tenant suspended (D22)' });
    // A schedule paused for its own reason keeps its reason.
    expect(await paused('CRM')).toMatchObject({ paused: true, note: 'disconnected' });
    // The worker's start-up reconciliation does not un-pause a suspended tenant's schedule.
    await schedules.ensure({ organizationId: tenant.id, provider: 'ACCOUNTING' }, 'worker start-up');
    expect((await paused('ACCOUNTING')).paused).toBe(true);
    expect(await run('suspend', tenant.subdomain)).toEqual([`Nothing changed: the workspace "${tenant.subdomain}" was already suspended.`]);
    expect((await ops('tenant', 'list')).out).toMatch(new RegExp(`${tenant.subdomain}\\s+Test ${tenant.subdomain}\\s+starter\\s+suspended`));

    expect(await run('resume', tenant.subdomain)).toEqual([`The workspace "${tenant.subdomain}" is active again.`, expect.stringContaining('Resumed 1 schedule')]);
    expect((await Promise.all(requests())).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await paused('ACCOUNTING')).paused).toBe(false);
    expect(await paused('CRM')).toMatchObject({ paused: true, note: 'disconnected' });

    const { rows } = await owner.query('select action, actor_type, changes from audit_events where organization_id = $1 order by occurred_at, id', [tenant.id]);
    expect(rows).toEqual([
      { action: 'organization.suspended', actor_type: 'operator', changes: [{ field: 'suspended', before: false, after: true }] },
      { action: 'organization.resumed', actor_type: 'operator', changes: [{ field: 'suspended', before: true, after: false }] },
    ]);
  }, 60_000);

  it('another tenant is untouched by one\'s suspension', async () => {
    const other = await createTenant(owner, { admin: 'ADMIN' });
    const otherToken = await api.tokenFor(other.users.admin!);
    await run('suspend', tenant.subdomain);
    try {
      expect((await api.request('/api/v1/auth/me', { token: otherToken })).status).toBe(200);
    } finally {
      await run('resume', tenant.subdomain);
    }
  });
});
