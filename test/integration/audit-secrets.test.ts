import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { consent, startIntegrationFakes, storedTokens, workerIntegrations, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { waitUntil } from '../../scripts/harness/wait-until';
import { startMailCatcher, type MailCatcher } from '../../scripts/infra/mail-catcher';
import { createOrm } from '../../db/orm';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { IntegrationWorkflows } from '../../infra/temporal/integration-workflows';
import { PricebookWorkflows } from '../../infra/temporal/pricebook-workflows';
import { tenantCommand, type TenantCommandContext } from '../../scripts/ops/tenant-commands';
import { hashLinkToken } from '../../infra/team/links';
import { AUDIT_ACTIONS } from '../../domain/audit/actions';

/**
 * D22: "no secret, token, password or ciphertext appears in it". One walk through every action of
 * the closed list (a new action without a step here fails the first assertion), then every row of
 * the audit log, whole, is searched for every secret this run produced or the database holds:
 * passwords and their hashes, emailed link tokens and their hashes, bearer tokens, webhook signing
 * secrets and their ciphertexts, OAuth tokens and their ciphertexts, the platform's own keys.
 */
let owner: pg.Pool;
let ownerOrm: MikroORM;
let fakes: IntegrationFakes;
let catcher: MailCatcher;
let temporal: TemporalHarness;
let api: ApiHarness;
let ctx: TenantCommandContext;
let tenant: Tenant;
let admin: string;
let provisionedId: string | undefined;
/** Every secret value the walk saw, with where it came from (for the failure message). */
const secrets = new Map<string, string>();
const keep = (where: string, value: string | null | undefined) => {
  // Shorter values (a key id, an empty string) are not secrets and would match by chance.
  if (value && value.length >= 12 && !secrets.has(value)) secrets.set(value, where);
};

beforeAll(async () => {
  owner = ownerPool();
  ownerOrm = await createOrm({ url: process.env.DATABASE_URL!, poolMax: 2 });
  fakes = await startIntegrationFakes();
  catcher = await startMailCatcher();
  temporal = await startTemporalHarness();
  api = await startApi({
    events: temporal.dispatcher,
    pricebookWorkflows: new PricebookWorkflows(temporal.client, { taskQueue: temporal.taskQueue, timing: TEST_TIMING }),
    integrationWorkflows: new IntegrationWorkflows(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, timing: TEST_TIMING }),
    env: { ...fakes.env, SMTP_URL: catcher.smtpUrl, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' },
  });
  await temporal.startWorker({ integrations: workerIntegrations(api) });
  ctx = { em: ownerOrm.em, withTemporal: (work) => work(temporal.client), taskQueue: temporal.taskQueue, out: () => undefined };
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [tenant.id]);
  admin = await api.tokenFor(tenant.users.admin!);
  keep('a bearer token', admin);
  keep('the fixture password', tenant.users.admin!.password);
  for (const [name, value] of Object.entries(fakes.env)) if (/SECRET|KEY/.test(name)) keep(name, value);
}, 120_000);

afterAll(async () => {
  await api?.request('/api/v1/integrations/crm', { method: 'DELETE', token: admin }).catch(() => undefined);
  await api?.close();
  await temporal?.close();
  await catcher?.stop();
  await fakes?.close();
  await ownerOrm?.close(true);
  await owner?.end();
});

const strong = (where: string) => {
  const password = `lantern-${randomBytes(6).toString('hex')}-quay`;
  keep(where, password);
  return password;
};

async function linkIn(to: string, page: 'accept-invitation' | 'reset-password', seen: Set<string>): Promise<string> {
  const token = await waitUntil(
    `a ${page} mail to ${to}`,
    async () => {
      for (const mail of await catcher.messages()) {
        if (seen.has(mail.id) || !mail.to.some((t) => t.address.toLowerCase() === to.toLowerCase())) continue;
        const match = new RegExp(`/${page}\\?token=([A-Za-z0-9_-]+)`).exec(mail.text);
        if (match?.[1]) {
          seen.add(mail.id);
          return match[1];
        }
      }
      return undefined;
    },
    { timeoutMs: 20_000 },
  );
  keep(`a ${page} token`, token);
  keep(`a ${page} token's hash`, hashLinkToken(token));
  return token;
}

async function call(path: string, init: { method?: string; json?: unknown; token?: string }, expected: number): Promise<Record<string, unknown>> {
  const res = await api.request(path, { token: admin, ...init });
  const text = await res.text();
  expect(`${init.method ?? 'GET'} ${path} ${res.status}`).toBe(`${init.method ?? 'GET'} ${path} ${expected}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

describe('D22: the audit log never holds a secret', () => {
  it('walks every audited action, then finds no secret of the run or of the database in any audit event', async () => {
    const seenMail = new Set<string>();

    // The team (D20).
    const email = `ines-${randomBytes(3).toString('hex')}@${tenant.subdomain}.test`;
    const invited = await call('/api/v1/users/invitations', { method: 'POST', json: { email, full_name: 'Ines', role: 'SALES' } }, 201);
    await linkIn(email, 'accept-invitation', seenMail);
    await call(`/api/v1/users/${String(invited.id)}/invitations`, { method: 'POST' }, 201);
    const invitation = await linkIn(email, 'accept-invitation', seenMail);
    const first = strong('an invitee password');
    const accepted = await call('/api/v1/auth/invitations/accept', { method: 'POST', json: { token: invitation, password: first } }, 200);
    const invitee = String(accepted.access_token);
    keep('a bearer token', invitee);
    await call('/api/v1/auth/me', { method: 'PATCH', token: invitee, json: { full_name: 'Ines Renamed' } }, 200);
    const second = strong('a changed password');
    await call('/api/v1/auth/me/password', { method: 'POST', token: invitee, json: { current_password: first, new_password: second } }, 204);
    await call('/api/v1/auth/password-resets', { method: 'POST', json: { subdomain: tenant.subdomain, email } }, 202);
    const reset = await linkIn(email, 'reset-password', seenMail);
    const third = strong('a reset password');
    keep('a bearer token', String((await call('/api/v1/auth/password-resets/confirm', { method: 'POST', json: { token: reset, password: third } }, 200)).access_token));
    await call(`/api/v1/users/${tenant.users.sales!.id}`, { method: 'PATCH', json: { role: 'TECHNICIAN' } }, 200);

    // Settings (D22).
    await call('/api/v1/organization', { method: 'PATCH', json: { display_name: 'Walked Shades', quote_validity_days: 21 } }, 200);

    // A work order's customer (D11).
    const payer = await call('/v1/customers', { method: 'POST', json: { name: 'Walk Payer' } }, 201);
    const order = await call('/api/v1/work-orders', { method: 'POST', json: {} }, 201);
    await call(`/api/v1/work-orders/${String(order.id)}`, { method: 'PATCH', json: { customerId: payer.id } }, 200);

    // The price book (D21): one at once, one for later.
    const book = await call(`/v1/pricebooks/${tenant.id}`, {}, 200);
    const now = await call(`/v1/pricebooks/${tenant.id}/revisions`, { method: 'POST', json: { base_revision: book.revision, changes: [{ op: 'adjust_costs', component: 'fabric', percent: '2' }] } }, 201);
    await call(`/v1/pricebooks/${tenant.id}/revisions`, { method: 'POST', json: { base_revision: now.revision, effective_from: new Date(Date.now() + 3_600_000).toISOString(), changes: [{ op: 'adjust_costs', component: 'fabric', percent: '3' }] } }, 201);

    // Webhook endpoints and their secrets (D13).
    const endpoint = await call('/api/v1/webhook-endpoints', { method: 'POST', json: { url: 'http://127.0.0.1:9/hooks', events: ['quote.approved'], description: 'ERP' } }, 201);
    keep('a webhook secret', String(endpoint.secret));
    await call(`/api/v1/webhook-endpoints/${String(endpoint.id)}`, { method: 'PATCH', json: { description: 'ERP, renamed' } }, 200);
    const rotated = await call(`/api/v1/webhook-endpoints/${String(endpoint.id)}/rotate-secret`, { method: 'POST' }, 200);
    keep('a rotated webhook secret', String(rotated.secret));
    await call(`/api/v1/webhook-endpoints/${String(endpoint.id)}/recover`, { method: 'POST', json: { since: new Date(Date.now() - 3_600_000).toISOString() } }, 202);
    const { rows: endpointRows } = await owner.query('select secret_ciphertext, previous_secret_ciphertext from webhook_endpoints where id = $1', [endpoint.id]);
    for (const row of endpointRows) for (const [column, value] of Object.entries(row)) keep(`webhook_endpoints.${column}`, value as string | null);
    await call(`/api/v1/webhook-endpoints/${String(endpoint.id)}`, { method: 'DELETE' }, 204);

    // Integrations (D18): a real consent at the local fake, its tokens and ciphertexts, then disconnected.
    expect((await consent(api, admin, 'crm')).status).toBe(200);
    const tokens = await storedTokens(owner, fakes.env, tenant.id, 'CRM');
    keep('an OAuth access token', tokens?.accessToken);
    keep('an OAuth refresh token', tokens?.refreshToken);
    const { rows: connections } = await owner.query('select access_token_ciphertext, refresh_token_ciphertext from integration_connections where organization_id = $1', [tenant.id]);
    for (const row of connections) for (const [column, value] of Object.entries(row)) keep(`integration_connections.${column}`, value as string | null);
    expect(tokens).toBeDefined();
    await call('/api/v1/integrations/crm', { method: 'DELETE' }, 200);

    // Tenants and plans (D22), as the operator.
    const subdomain = `walk-${randomBytes(4).toString('hex')}`;
    expect(await tenantCommand(ctx, ['create', '--subdomain', subdomain, '--name', 'Walk Co', '--admin-email', `owner@${subdomain}.test`, '--template', 'empty'])).toBe(0);
    provisionedId = (await owner.query<{ id: string }>('select id from organizations where subdomain = $1', [subdomain])).rows[0]!.id;
    for (const args of [['plan', tenant.subdomain, 'growth'], ['suspend', tenant.subdomain], ['resume', tenant.subdomain]]) expect(await tenantCommand(ctx, args)).toBe(0);

    // Every action of the list, and nothing else, was walked.
    const { rows: walked } = await owner.query<{ action: string }>('select distinct action from audit_events where organization_id = any($1) order by action', [[tenant.id, provisionedId]]);
    expect(walked.map((r) => r.action)).toEqual([...AUDIT_ACTIONS].sort());

    // What the database holds: every password hash, every link token's hash, every ciphertext.
    const { rows: users } = await owner.query<{ password_hash: string | null }>('select password_hash from users where organization_id = any($1)', [[tenant.id, provisionedId]]);
    for (const user of users) keep('a password hash', user.password_hash);
    const { rows: links } = await owner.query<{ hash: string }>('select t.token_hash as hash from user_tokens t join users u on u.id = t.user_id where u.organization_id = any($1)', [[tenant.id, provisionedId]]);
    for (const link of links) keep('a stored link token hash', link.hash);
    const { rows: stored } = await owner.query<{ value: string | null }>(
      `select secret_ciphertext as value from webhook_endpoints where organization_id = $1
       union all select previous_secret_ciphertext from webhook_endpoints where organization_id = $1
       union all select access_token_ciphertext from integration_connections where organization_id = $1
       union all select refresh_token_ciphertext from integration_connections where organization_id = $1`,
      [tenant.id],
    );
    for (const row of stored) keep('a stored ciphertext', row.value);
    // Enough of each kind was gathered for the search to mean something.
    const kinds = new Set(secrets.values());
    for (const kind of ['a password hash', 'a accept-invitation token', "a reset-password token's hash", 'a webhook secret', 'webhook_endpoints.secret_ciphertext', 'an OAuth refresh token', 'integration_connections.refresh_token_ciphertext', 'a bearer token']) {
      expect([...kinds]).toContain(kind);
    }

    // Every row, whole (before, after and every other column as text), for every secret.
    const { rows: events } = await owner.query<{ id: string; action: string; whole: string }>('select id, action, row_to_json(a)::text as whole from audit_events a');
    expect(events.length).toBeGreaterThanOrEqual(AUDIT_ACTIONS.length);
    const found: string[] = [];
    for (const event of events) {
      for (const [secret, where] of secrets) {
        if (event.whole.includes(secret) || event.whole.includes(JSON.stringify(secret).slice(1, -1))) found.push(`${where} in ${event.action} ${event.id}`);
      }
    }
    expect(found).toEqual([]);
  }, 180_000);
});
