import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { Worker } from '@temporalio/worker';
import type { MikroORM } from '@mikro-orm/postgresql';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { createOrm } from '../../db/orm';
import { dropDatabase, migrate } from '../../db/migrate';
import { withDatabaseName, workerDatabaseUrl } from '../../db/database-urls';
import { startMailCatcher, type MailCatcher } from '../../scripts/infra/mail-catcher';
import { smtpMailer, type Mailer } from '../../infra/email/mailer';
import { waitUntil } from '../../scripts/harness/wait-until';
import { createTenantActivities } from '../../activities/tenants';
import { WORKFLOWS_PATH } from '../../worker/create-worker';
import { connectWorker } from '../../worker/temporal-connection';

/**
 * D22 with SEED_SANDBOX=false: a deployment's database holds no tenant until an operator makes
 * one with `npm run ops -- tenant create`; that workspace then prices quotes through the API
 * alone. Its own database, migrated and never seeded, and its own worker on it.
 */
const database = withDatabaseName(process.env.DATABASE_URL!, `shade_unseeded_${randomBytes(4).toString('hex')}`);
const taskQueue = `unseeded-${randomUUID()}`;
const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
let owner: pg.Pool;
let workerOrm: MikroORM;
let worker: Worker;
let workerConnection: Awaited<ReturnType<typeof connectWorker>>;
let running: Promise<void>;
let api: ApiHarness;
let catcher: MailCatcher;
let mailer: Mailer;
const PUBLIC_BASE_URL = 'http://127.0.0.1:3997';

beforeAll(async () => {
  await migrate(database, { api: process.env.DATABASE_APP_PASSWORD!, worker: process.env.DATABASE_WORKER_PASSWORD! });
  owner = new pg.Pool({ connectionString: database, max: 2 });
  workerOrm = await createOrm({ url: workerDatabaseUrl(database, process.env.DATABASE_WORKER_PASSWORD!), poolMax: 2 });
  workerConnection = await connectWorker(process.env.TEMPORAL_ADDRESS!);
  // D20: the first ADMIN's invitation is mailed through a real SMTP server (the mail catcher).
  catcher = await startMailCatcher();
  mailer = smtpMailer(catcher.smtpUrl, 'Shade Office <no-reply@shade-office.invalid>');
  worker = await Worker.create({
    connection: workerConnection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: createTenantActivities({ em: workerOrm.em, invitations: { mailer, publicBaseUrl: PUBLIC_BASE_URL } }),
  });
  running = worker.run();
  api = await startApi({ env: { DATABASE_URL: database } });
}, 120_000);

afterAll(async () => {
  await api?.close();
  worker?.shutdown();
  await running;
  await workerConnection?.close();
  await workerOrm?.close(true);
  await owner?.end();
  mailer?.close();
  await catcher?.stop();
  await dropDatabase(database);
}, 60_000);

function ops(...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/ops-bundle.mjs', ...args], { cwd: projectRoot, env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: database, TEMPORAL_TASK_QUEUE: taskQueue } }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

describe('SEED_SANDBOX=false: a tenant made by ops is the only way in, and it works', () => {
  it('no workspace before; ops tenant create makes one whose ADMIN, once the invitation is accepted, publishes its price book and prices a quote on it', async () => {
    expect((await ops('tenant', 'list')).out).toContain('0 workspaces.');
    const created = await ops('tenant', 'create', '--subdomain', 'brightline', '--name', 'Brightline Shades', '--admin-email', 'owner@brightline.test');
    expect(created.code).toBe(0);
    expect(created.out).toContain('Created the workspace "brightline"');
    expect((await ops('tenant', 'list')).out).toMatch(/brightline\s+Brightline Shades\s+starter\s+active\s+1/);

    const login = () => api.request('/api/v1/auth/login', { method: 'POST', json: { subdomain: 'brightline', email: 'owner@brightline.test', password: 'Correct-Horse-7-Battery' } });
    // Invited, not yet accepted: no one can sign in as them.
    expect((await login()).status).toBe(401);
    // D20: the invitation's email, its link on PUBLIC_BASE_URL; accepting sets the password and activates the ADMIN.
    const mail = await waitUntil('the first ADMIN\'s invitation', async () => (await catcher.messages()).find((m) => m.to.some((t) => t.address === 'owner@brightline.test')));
    expect(mail.subject).toContain('Brightline Shades');
    const token = new RegExp(`${PUBLIC_BASE_URL}/accept-invitation\\?token=([A-Za-z0-9_-]+)`).exec(mail.text)?.[1];
    expect(token).toEqual(expect.any(String));
    const accepted = await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token, full_name: 'Bree Owner', password: 'Correct-Horse-7-Battery' } });
    expect(accepted.status).toBe(200);
    // Created once: a second run mails no second link.
    expect((await ops('tenant', 'create', '--subdomain', 'brightline', '--name', 'Brightline Shades', '--admin-email', 'owner@brightline.test')).code).toBe(0);
    const session = await login();
    expect(session.status).toBe(200);
    const { access_token: bearer, user } = (await session.json()) as { access_token: string; user: { role: string; organization_id: string } };
    expect(user.role).toBe('ADMIN');

    expect((await catcher.messages()).filter((m) => m.to.some((t) => t.address === 'owner@brightline.test'))).toHaveLength(1);
    // Through the API alone, the ADMIN invites the team (D20).
    const invited = await api.request('/api/v1/users/invitations', { method: 'POST', token: bearer, json: { email: 'sales@brightline.test', full_name: 'Sol Sales', role: 'SALES' } });
    expect(invited.status).toBe(201);
    const organization = await api.request('/api/v1/organization', { token: bearer });
    expect(await organization.json()).toMatchObject({ subdomain: 'brightline', name: 'Brightline Shades', plan: 'starter', time_zone: 'America/Toronto', technical_contact_email: 'owner@brightline.test' });
    // D21: the ADMIN publishes the workspace's price book through the API (a supplier's fabric increase), and quotes price on it.
    const before = (await (await api.request('/api/v1/quotes/calculate', { method: 'POST', token: bearer, json: twoWindows({ persist: false }) })).json()) as { totals: { cost_cents: number } };
    const book = (await (await api.request(`/v1/pricebooks/${user.organization_id}`, { token: bearer })).json()) as { revision: string };
    const published = await api.request(`/v1/pricebooks/${user.organization_id}/revisions`, { method: 'POST', token: bearer, json: { base_revision: book.revision, changes: [{ op: 'adjust_costs', component: 'fabric', percent: '10' }] } });
    expect(published.status).toBe(201);
    const revision = ((await published.json()) as { revision: string }).revision;
    expect(revision).not.toBe(book.revision);
    expect(((await (await api.request(`/v1/pricebooks/${user.organization_id}`, { token: bearer })).json()) as { revision: string }).revision).toBe(revision);
    const quote = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: bearer, json: twoWindows({ persist: true }) });
    expect(quote.status).toBe(200);
    const priced = (await quote.clone().json()) as { totals: { cost_cents: number } };
    expect(priced.totals.cost_cents).toBeGreaterThan(before.totals.cost_cents);
    expect(await quote.json()).toMatchObject({ persisted: true, status: 'DRAFT', quote_number: 1, totals: { amount_cents: expect.any(Number) } });
  }, 120_000);
});
