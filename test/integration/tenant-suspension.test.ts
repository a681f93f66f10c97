import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { waitUntil } from '../../scripts/harness/wait-until';
import { OwnDatabase } from '../support/own-database';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../../scripts/infra/mail-catcher';
import { createOrm } from '../../db/orm';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { PricebookWorkflows } from '../../infra/temporal/pricebook-workflows';
import { tenantCommand, type TenantCommandContext } from '../../scripts/ops/tenant-commands';
import { expireStaleQuotesOf } from '../../activities/approval/expire-quotes';
import { WORKSPACE_SUSPENDED } from '../../domain/organizations/suspension';
import { SentQuote } from '../../api/quotes/schemas';
import { Invitation } from '../../api/team/schemas';

/**
 * D22: a suspended workspace answers 403 everywhere and nothing acts for it, and nothing of it is
 * lost: the doors beyond its people's own requests (the customer's quote page, emailed links, the
 * hourly expiry, the price book's timers, outbound webhooks), each suspended and resumed through
 * `ops tenant suspend|resume` as an operator runs them. The rule: domain/organizations/suspension.ts.
 */
const KEY = randomBytes(32).toString('base64');
const BASE_URL = 'http://127.0.0.1:3997';
let owner: pg.Pool;
let ownerOrm: MikroORM;
let catcher: MailCatcher;
let temporal: TemporalHarness;
let api: ApiHarness;
let ctx: TenantCommandContext;
let lines: string[];
const receivers: WebhookReceiver[] = [];
// Its worker runs the outbox relay.
const database = new OwnDatabase('suspension');

beforeAll(async () => {
  await database.create();
  owner = ownerPool();
  ownerOrm = await createOrm({ url: process.env.DATABASE_URL!, poolMax: 2 });
  catcher = await startMailCatcher();
  temporal = await startTemporalHarness();
  // The narrow development allowance: loopback receivers only (D6).
  await temporal.startWorker({ webhooks: { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true } });
  // The timer's pricebook.published is recorded by an activity: the worker's relay starts its delivery.
  temporal.relay.start();
  api = await startApi({
    events: temporal.dispatcher,
    pricebookWorkflows: new PricebookWorkflows(temporal.client, { taskQueue: temporal.taskQueue, timing: TEST_TIMING }),
    env: { SMTP_URL: catcher.smtpUrl, PUBLIC_BASE_URL: BASE_URL, CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' },
  });
  ctx = { em: ownerOrm.em, withTemporal: (work) => work(temporal.client), taskQueue: temporal.taskQueue, out: (line) => lines.push(line) };
}, 120_000);

afterAll(async () => {
  for (const r of receivers) await r.close();
  await api?.close();
  await temporal?.close();
  await catcher?.stop();
  await ownerOrm?.close(true);
  await owner?.end();
  await database.drop();
});

async function ops(...args: string[]): Promise<string[]> {
  lines = [];
  expect(await tenantCommand(ctx, args)).toBe(0);
  return lines;
}

const suspend = (tenant: Tenant) => ops('suspend', tenant.subdomain);
const resume = (tenant: Tenant) => ops('resume', tenant.subdomain);

async function newTenant(): Promise<{ tenant: Tenant; admin: string; sales: string }> {
  const tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  return { tenant, admin: await api.tokenFor(tenant.users.admin!), sales: await api.tokenFor(tenant.users.sales!) };
}

async function mailTo(to: string, page: 'accept-invitation' | 'reset-password'): Promise<string> {
  const mail = await waitUntil(
    `a mail to ${to}`,
    async () => (await catcher.messages()).filter((m: CaughtMail) => m.to.some((t) => t.address.toLowerCase() === to.toLowerCase())).pop(),
    { timeoutMs: 15_000 },
  );
  const match = new RegExp(`${BASE_URL.replace(/[.]/g, '\\.')}/${page}\\?token=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!match?.[1]) throw new Error(`no ${page} link in: ${mail.text}`);
  return match[1];
}

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;
const strong = () => `lantern-${randomBytes(6).toString('hex')}-quay`;

/** The page as a customer's browser asks for it (its own address: the page's limit is per address). */
const page = (path: string, init: RequestInit = {}) =>
  fetch(`${api.url}${path}`, { redirect: 'manual', ...init, headers: { 'x-forwarded-for': `198.18.7.${1 + (randomBytes(1)[0]! % 254)}`, ...(init.headers as Record<string, string>) } });

describe("D22: a suspended workspace's customer quote page", () => {
  it('answers a 403 page (not the neutral one) on the page, its PDF and its forms, changes nothing, and opens again on resume', async () => {
    const { tenant, sales } = await newTenant();
    const made = await api.request('/api/v1/quotes/calculate', {
      method: 'POST',
      token: sales,
      json: { persist: true, customer: { name: 'Morgan Lee' }, laborTierCode: 'STANDARD', lineItems: [{ widthInches: 36, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-STD' }] },
    });
    const quoteId = ((await made.json()) as { quote_id: string }).quote_id;
    const sent = SentQuote.parse(await (await api.request(`/api/v1/quotes/${quoteId}/send`, { method: 'POST', token: sales })).json());
    const path = new URL(sent.page_url).pathname;
    const open = await page(path);
    expect(open.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await open.text())![1]!;

    await suspend(tenant);
    const shown = await page(path);
    expect(shown.status).toBe(403);
    const html = await shown.text();
    expect(html).toContain('This quote is not available right now');
    // Nothing of the quote: not its contractor, not its customer, not a form.
    expect(html).not.toContain(`Test ${tenant.subdomain}`);
    expect(html).not.toContain('Morgan Lee');
    expect(html).not.toContain('name="csrf"');
    const pdf = await page(`${path}/quote.pdf`);
    expect(pdf.status).toBe(403);
    expect(pdf.headers.get('content-type')).toMatch(/^text\/html/);
    for (const action of ['accept', 'decline']) {
      const posted = await page(`${path}/${action}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, name: 'Morgan Lee' }) });
      expect(posted.status).toBe(403);
      expect(await posted.text()).toContain('This quote is not available right now');
    }
    const { rows } = await owner.query<{ status: string; acceptance_at: Date | null }>('select status, acceptance_at from quotes where id = $1', [quoteId]);
    expect(rows).toEqual([{ status: 'SENT', acceptance_at: null }]);
    // A link that names nothing is still the neutral page, suspended workspace or not.
    expect((await page(`/q/${randomBytes(32).toString('base64url')}`)).status).toBe(404);

    await resume(tenant);
    expect((await page(path)).status).toBe(200);
    const accepted = await page(`${path}/accept`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, name: 'Morgan Lee' }) });
    expect(accepted.status).toBe(200);
  }, 60_000);
});

describe("D22: a suspended workspace's emailed links", () => {
  it('refuses accepting an invitation and confirming a reset with 403, without spending the links; mails no reset link; both links work after resume', async () => {
    const { tenant, admin } = await newTenant();
    const email = `ines-${randomBytes(3).toString('hex')}@${tenant.subdomain}.test`;
    const invited = await api.request('/api/v1/users/invitations', { method: 'POST', token: admin, json: { email, full_name: 'Ines', role: 'SALES' } });
    const invitation = Invitation.parse(await invited.json());
    const invitationToken = await mailTo(email, 'accept-invitation');
    const salesEmail = tenant.users.sales!.email;
    expect((await api.request('/api/v1/auth/password-resets', { method: 'POST', json: { subdomain: tenant.subdomain, email: salesEmail } })).status).toBe(202);
    const resetToken = await mailTo(salesEmail, 'reset-password');

    await suspend(tenant);
    const accept = await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: invitationToken, password: strong() } });
    expect(accept.status).toBe(403);
    expect(await errorOf(accept)).toMatchObject({ code: 'forbidden', message: WORKSPACE_SUSPENDED });
    const confirm = await api.request('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { token: resetToken, password: strong() } });
    expect(confirm.status).toBe(403);
    expect(await errorOf(confirm)).toMatchObject({ code: 'forbidden', message: WORKSPACE_SUSPENDED });
    // An unusable token is the same 400 as ever: suspension is told only to a good link's holder.
    expect((await api.request('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { token: randomBytes(32).toString('base64url'), password: strong() } })).status).toBe(400);
    // Nothing changed: the invited user is still invited, the sales user's password is as it was.
    const { rows: users } = await owner.query<{ id: string; active: boolean; token_version: number }>('select id, active, token_version from users where id = any($1) order by email', [[invitation.id, tenant.users.sales!.id]]);
    expect(users.find((u) => u.id === invitation.id)!.active).toBe(false);
    expect(users.find((u) => u.id === tenant.users.sales!.id)!.token_version).toBe(0);

    // A reset asked for meanwhile: the same 202, and no link is issued or mailed.
    const before = (await catcher.messages()).length;
    expect((await api.request('/api/v1/auth/password-resets', { method: 'POST', json: { subdomain: tenant.subdomain, email: tenant.users.admin!.email } })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const { rows: issued } = await owner.query(`select 1 from user_tokens where user_id = $1 and purpose = 'password_reset'`, [tenant.users.admin!.id]);
    expect(issued).toEqual([]);
    expect((await catcher.messages()).length).toBe(before);

    await resume(tenant);
    expect((await api.request('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: invitationToken, password: strong() } })).status).toBe(200);
    expect((await api.request('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { token: resetToken, password: strong() } })).status).toBe(200);
  }, 60_000);
});

describe("D22: the hourly quote expiry passes a suspended workspace by", () => {
  it('leaves its stale quotes SENT while suspended and expires them at the first run after resume', async () => {
    const { tenant, sales } = await newTenant();
    const made = await api.request('/api/v1/quotes/calculate', {
      method: 'POST',
      token: sales,
      json: { persist: true, customer: { name: 'Stale' }, laborTierCode: 'STANDARD', lineItems: [{ widthInches: 36, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-STD' }] },
    });
    const quoteId = ((await made.json()) as { quote_id: string }).quote_id;
    await owner.query(`update quotes set status = 'SENT', created_at = now() - interval '40 days' where id = $1`, [quoteId]);
    const status = async () => (await owner.query<{ status: string }>('select status from quotes where id = $1', [quoteId])).rows[0]!.status;

    await suspend(tenant);
    // As the hourly job runs it: the worker's role, one tenant's turn.
    expect(await expireStaleQuotesOf(temporal.orm.em, tenant.id, new Date())).toBe('suspended');
    expect(await status()).toBe('SENT');
    await resume(tenant);
    expect(await expireStaleQuotesOf(temporal.orm.em, tenant.id, new Date())).toBe(1);
    expect(await status()).toBe('EXPIRED');
  }, 60_000);
});

describe("D22: a suspended workspace's webhooks and price-book timers", () => {
  it('a future revision becomes current at its instant and is announced; its delivery is held, unattempted, and goes out on resume', async () => {
    const { tenant, admin } = await newTenant();
    await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [tenant.id]);
    const receiver = await new WebhookReceiver().start();
    receivers.push(receiver);
    const created = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: `${receiver.url}/hooks`, events: ['pricebook.published'], description: 'ERP' } });
    expect(created.status).toBe(201);
    const endpointId = ((await created.json()) as { id: string }).id;
    const book = (await (await api.request(`/v1/pricebooks/${tenant.id}`, { token: admin })).json()) as { revision: string };
    const at = new Date(Date.now() + 3_000).toISOString();
    const published = await api.request(`/v1/pricebooks/${tenant.id}/revisions`, { method: 'POST', token: admin, json: { base_revision: book.revision, effective_from: at, changes: [{ op: 'adjust_costs', component: 'fabric', percent: '5' }] } });
    expect(published.status).toBe(201);
    const revision = ((await published.json()) as { revision: string }).revision;
    const { rows: scheduled } = await owner.query<{ revision: Date }>('select revision from rate_card_revisions where organization_id = $1 and effective_from = $2', [tenant.id, at]);
    expect(scheduled.map((r) => r.revision.toISOString())).toEqual([revision]);

    await suspend(tenant);
    // At its instant, suspended or not: the revision is current and announced (by the system).
    const announced = await waitUntil(
      'pricebook.published recorded',
      async () => (await owner.query<{ id: string }>(`select id from outbox_events where organization_id = $1 and event = 'pricebook.published'`, [tenant.id])).rows[0],
      { timeoutMs: 20_000 },
    );
    const { rows: current } = await owner.query<{ effective_from: Date }>(`select effective_from from rate_card_revisions where organization_id = $1 and effective_from <= now() order by effective_from desc limit 1`, [tenant.id]);
    expect(current[0]!.effective_from.toISOString()).toBe(at);
    const { rows: audit } = await owner.query(`select action, actor_type from audit_events where organization_id = $1 and action = 'pricebook.published'`, [tenant.id]);
    expect(audit).toEqual([{ action: 'pricebook.published', actor_type: 'system' }]);
    // Its delivery exists and waits: pending, no attempt made, nothing received, the endpoint untouched.
    await waitUntil('the delivery recorded', async () => (await owner.query(`select 1 from webhook_deliveries where endpoint_id = $1 and event_id = $2`, [endpointId, announced.id])).rows[0], { timeoutMs: 20_000 });
    await waitUntil(
      "the endpoint's workflow ran a batch and holds",
      async () => {
        try {
          const history = await temporal.client.workflow.getHandle(`webhook-endpoint-${endpointId}`).fetchHistory();
          return history.events?.some((e) => e.activityTaskCompletedEventAttributes) || undefined;
        } catch {
          return undefined;
        }
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const held = await owner.query<{ status: string; attempts: number }>(
      `select d.status, (select count(*)::int from webhook_delivery_attempts a where a.delivery_id = d.id) as attempts from webhook_deliveries d where d.endpoint_id = $1`,
      [endpointId],
    );
    expect(held.rows).toEqual([{ status: 'pending', attempts: 0 }]);
    expect(receiver.received).toHaveLength(0);
    const { rows: endpoint } = await owner.query('select status, failing_since from webhook_endpoints where id = $1', [endpointId]);
    expect(endpoint).toEqual([{ status: 'enabled', failing_since: null }]);

    // Resumed: the operator's command wakes the endpoint, and the held delivery goes out.
    expect(await resume(tenant)).toContain('Woke the webhook deliveries of 1 endpoint.');
    const [delivered] = await receiver.waitFor(1, 15_000);
    expect(delivered!.body).toContain('pricebook.published');
    await waitUntil('the delivery delivered', async () => (await owner.query(`select 1 from webhook_deliveries where endpoint_id = $1 and status = 'delivered'`, [endpointId])).rows[0], { timeoutMs: 15_000 });
  }, 90_000);
});
