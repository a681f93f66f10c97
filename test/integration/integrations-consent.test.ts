import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { consent, connectUrl, followCallback, PUBLIC_BASE_URL, startIntegrationFakes, visitConsent, workerIntegrations, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { launchBrowser } from '../support/browser';
import { DEFAULT_REALM_ID } from '../../scripts/sandboxes/quickbooks-fake';
import { IntegrationWorkflows } from '../../infra/temporal/integration-workflows';
import { integrationRefreshWorkflowId } from '../../infra/temporal/contracts';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { OAuthStates } from '../../api/integrations/oauth-state';
import { ConnectResult, IntegrationList } from '../../api/integrations/schemas';

/**
 * Section 4.5's connect and callback, 5.9's signed state and 3.3's disconnect, against the local
 * QuickBooks and Salesforce fakes with the real intuit-oauth and jsforce clients, real
 * PostgreSQL and a real Temporal worker (the callback starts the token refresh workflow).
 */
let owner: pg.Pool;
let fakes: IntegrationFakes;
let temporal: TemporalHarness;
let api: ApiHarness;
let tenant: Tenant;
let admin: string;
/** Every admin that may have connected something: afterAll disconnects them all (ending their workflows). */
const admins: string[] = [];

async function newAdmin(): Promise<{ tenant: Tenant; token: string }> {
  const created = await createTenant(owner, { admin: 'ADMIN' });
  const token = await api.tokenFor(created.users.admin!);
  admins.push(token);
  return { tenant: created, token };
}

beforeAll(async () => {
  owner = ownerPool();
  fakes = await startIntegrationFakes();
  temporal = await startTemporalHarness();
  api = await startApi({ env: fakes.env, integrationWorkflows: new IntegrationWorkflows(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, timing: TEST_TIMING }) });
  await temporal.startWorker({ integrations: workerIntegrations(api) });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  admin = await api.tokenFor(tenant.users.admin!);
  admins.push(admin);
}, 120_000);

afterAll(async () => {
  // Disconnecting ends each refresh workflow this file started.
  for (const token of admins) for (const slug of ['accounting', 'crm']) await api.request(`/api/v1/integrations/${slug}`, { method: 'DELETE', token });
  await api.close();
  await temporal.close();
  await fakes.close();
  await owner.end();
});


const listing = async (token = admin) => {
  const res = await api.request('/api/v1/integrations', { token });
  expect(res.status).toBe(200);
  return IntegrationList.parse(await res.json()).data;
};
const entry = async (provider: 'ACCOUNTING' | 'CRM', token = admin) => (await listing(token)).find((e) => e.provider === provider)!;

async function expectPage(res: Response, status: number, says: RegExp): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const html = await res.text();
  expect(html).toMatch(/^<!doctype html>/);
  expect(html).toMatch(says);
  return html;
}

describe('the whole consent flow', () => {
  it('accounting: connect, consent at the fake, callback, CONNECTED in the listing with its refresh workflow running', async () => {
    const res = await api.request('/api/v1/integrations/accounting/connect', { method: 'POST', token: admin });
    expect(res.status).toBe(200);
    const connect = ConnectResult.parse(await res.json());
    expect(connect).toMatchObject({ provider: 'ACCOUNTING', expires_in_seconds: 600 });
    const authorize = new URL(connect.authorize_url);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fakes.qbo.url}/connect/oauth2`);
    expect(authorize.searchParams.get('redirect_uri')).toBe('http://localhost:3000/api/v1/integrations/accounting/callback');
    expect(authorize.searchParams.get('scope')).toBe('com.intuit.quickbooks.accounting');

    const location = await visitConsent(connect.authorize_url);
    expect(location.searchParams.get('state')).toBe(authorize.searchParams.get('state'));
    await expectPage(await followCallback(api, location), 200, new RegExp(`connected[\\s\\S]*${DEFAULT_REALM_ID}`));

    const accounting = await entry('ACCOUNTING');
    expect(accounting).toMatchObject({
      slug: 'accounting',
      configured: true,
      configuration: { missing_environment: [], awaiting_tenant_consent: false },
      connection: { status: 'CONNECTED', external_account_id: DEFAULT_REALM_ID, instance_url: `${fakes.qbo.url}/`, scopes: ['com.intuit.quickbooks.accounting'], last_error: null, last_sync_at: null },
    });
    const expiresIn = Date.parse(accounting.connection!.access_token_expires_at!) - Date.now();
    expect(expiresIn).toBeGreaterThan(3500_000);
    expect(expiresIn).toBeLessThanOrEqual(3600_000);
    expect(Date.parse(accounting.connection!.refresh_token_expires_at!)).toBeGreaterThan(Date.now() + 100 * 86_400_000);
    expect(Math.abs(Date.parse(accounting.connection!.connected_at!) - Date.now())).toBeLessThan(60_000);

    const run = await temporal.client.workflow.getHandle(integrationRefreshWorkflowId({ organizationId: tenant.id, provider: 'ACCOUNTING' })).describe();
    expect(run.status.name).toBe('RUNNING');
  });

  it('crm: connect, consent at the fake, callback, CONNECTED with the org id and instance URL', async () => {
    const [orgId] = fakes.sf.orgIds();
    const url = await connectUrl(api, admin, 'crm');
    expect(url.startsWith(`${fakes.sf.url}/services/oauth2/authorize?`)).toBe(true);
    expect(new URL(url).searchParams.get('scope')).toBe('api refresh_token');
    await expectPage(await followCallback(api, await visitConsent(url)), 200, new RegExp(`connected[\\s\\S]*${orgId}`));
    expect((await entry('CRM')).connection).toMatchObject({ status: 'CONNECTED', external_account_id: orgId, instance_url: fakes.sf.url, scopes: ['api', 'refresh_token'] });
  });

  it('stores no token in clear: the table holds ciphertexts under a key id, and they decrypt to the live tokens', async () => {
    const { rows } = await owner.query('select *, row_to_json(c)::text as everything from integration_connections c where organization_id = $1', [tenant.id]);
    expect(rows.map((r) => r.provider).sort()).toEqual(['ACCOUNTING', 'CRM']);
    const cipher = new CredentialCipher(fakes.env.CREDENTIAL_ENCRYPTION_KEY!);
    for (const row of rows) {
      expect(row.encryption_key_id).toBe(cipher.keyId);
      const context = (field: string) => `integration_connections/${tenant.id}/${row.provider}/${field}`;
      const access = cipher.decrypt({ ciphertext: row.access_token_ciphertext, keyId: row.encryption_key_id }, context('access_token'));
      const refresh = cipher.decrypt({ ciphertext: row.refresh_token_ciphertext, keyId: row.encryption_key_id }, context('refresh_token'));
      expect(access.length).toBeGreaterThan(20);
      for (const token of [access, refresh]) {
        expect(row.everything).not.toContain(token);
        expect(row.everything).not.toContain(Buffer.from(token).toString('base64'));
      }
      // Bound to its row and field: the same ciphertext does not open as another field.
      expect(() => cipher.decrypt({ ciphertext: row.access_token_ciphertext, keyId: row.encryption_key_id }, context('refresh_token'))).toThrow();
      if (row.provider === 'ACCOUNTING') expect(fakes.qbo.inspect.liveRefreshTokens()).toContain(refresh);
    }
    // Nor does any answer of the API carry them.
    const body = JSON.stringify(await listing());
    for (const token of fakes.qbo.inspect.liveRefreshTokens()) expect(body).not.toContain(token);
    expect(body).not.toMatch(/ciphertext|v1\.[A-Za-z0-9_-]{10,}\./i);
    for (const secret of [fakes.env.CREDENTIAL_ENCRYPTION_KEY!, fakes.env.ACCOUNTING_CLIENT_SECRET!, fakes.env.CRM_CLIENT_SECRET!]) expect(body).not.toContain(secret);
  });
});

describe('the callback refuses what it cannot trust (400 pages)', () => {
  it('a replayed callback: the state is single-use, and the connection is untouched', async () => {
    const before = await entry('ACCOUNTING');
    const url = await connectUrl(api, admin, 'accounting');
    const location = await visitConsent(url);
    await expectPage(await followCallback(api, location), 200, /connected/);
    await expectPage(await followCallback(api, location), 400, /already been used/);
    expect((await entry('ACCOUNTING')).connection!.status).toBe('CONNECTED');
    expect((await entry('ACCOUNTING')).connection!.connected_at).not.toBe(before.connection!.connected_at);
  });

  it('a tampered state: an altered signature, an altered payload, another provider’s state, a state signed with another key', async () => {
    const location = await visitConsent(await connectUrl(api, admin, 'accounting'));
    const state = location.searchParams.get('state')!;
    const [header, payload, signature] = state.split('.') as [string, string, string];
    const swap = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const forged = await new OAuthStates('another-secret-another-secret-another-secret').sign({ organizationId: tenant.id, provider: 'ACCOUNTING', userId: tenant.users.admin!.id, nonce: '00000000-0000-4000-8000-000000000000' });
    const payloadJson = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const otherTenant = Buffer.from(JSON.stringify({ ...payloadJson, org: '00000000-0000-4000-8000-000000000001' })).toString('base64url');
    for (const bad of [`${header}.${payload}.${swap(signature, 3)}`, `${header}.${otherTenant}.${signature}`, forged, 'not-a-jwt']) {
      const tampered = new URL(location);
      tampered.searchParams.set('state', bad);
      await expectPage(await followCallback(api, tampered), 400, /not valid/);
    }
    const crmCallback = new URL(location);
    crmCallback.pathname = '/api/v1/integrations/crm/callback';
    await expectPage(await followCallback(api, crmCallback), 400, /not valid/);
    // The untouched one still works: refusals did not spend its nonce.
    await expectPage(await followCallback(api, location), 200, /connected/);
  });

  it('an expired state (older than ten minutes), and a missing one', async () => {
    const location = await visitConsent(await connectUrl(api, admin, 'accounting'));
    const elevenMinutesAgo = new OAuthStates(api.settings.AUTH_TOKEN_SECRET, () => Date.now() - 11 * 60_000);
    const expired = new URL(location);
    expired.searchParams.set('state', await elevenMinutesAgo.sign({ organizationId: tenant.id, provider: 'ACCOUNTING', userId: tenant.users.admin!.id, nonce: '00000000-0000-4000-8000-000000000000' }));
    await expectPage(await followCallback(api, expired), 400, /expired/);
    const missing = new URL(location);
    missing.searchParams.delete('state');
    await expectPage(await followCallback(api, missing), 400, /no state/);
  });

  it('section 8 limits on the callback query answer 400 pages, never JSON', async () => {
    const location = await visitConsent(await connectUrl(api, admin, 'accounting'));
    const cases: [string, string][] = [
      ['code', 'c'.repeat(2001)],
      ['state', 's'.repeat(2001)],
      ['realmId', '9'.repeat(65)],
      ['error', 'e'.repeat(201)],
      ['error_description', 'd'.repeat(501)],
      ['code', ''],
    ];
    for (const [name, value] of cases) {
      const bad = new URL(location);
      bad.searchParams.set(name, value);
      const html = await expectPage(await followCallback(api, bad), 400, /parameters are not valid/);
      expect(html).toContain(name);
    }
    const repeated = new URL(location);
    repeated.searchParams.append('state', 'again');
    await expectPage(await followCallback(api, repeated), 400, /parameters are not valid/);
    for (const path of ['/api/v1/integrations/payments/callback', '/api/v1/integrations/nothing/callback']) {
      await expectPage(await api.request(`${path}${location.search}`), 400, /no consent to complete/);
    }
    // Markup in what the provider sends back is shown as text.
    const scripted = new URL(location);
    scripted.searchParams.set('realmId', '<script>x</script>');
    scripted.searchParams.set('code', '<b>');
    const page = await (await followCallback(api, scripted)).text();
    expect(page).not.toContain('<script>');
  });
});

// PostgreSQL text cannot hold a NUL: let through once the state is valid, it reaches the database as a 500 page.
it('a NUL character in any callback parameter answers a 400 page, and spends no state', async () => {
  for (const name of ['realmId', 'code', 'error_description']) {
    const location = await visitConsent(await connectUrl(api, admin, 'accounting'));
    const bad = new URL(location);
    bad.searchParams.set(name, `${bad.searchParams.get(name) ?? 'x'}\u0000`);
    const html = await expectPage(await followCallback(api, bad), 400, /parameters are not valid/);
    expect({ name, named: html.includes(name) }).toEqual({ name, named: true });
    // The same consent, unaltered, still completes: the refusal came before the nonce was spent.
    expect((await followCallback(api, location)).status).toBe(200);
  }
});

describe('the other outcomes', () => {
  it('a consent completed after its starter lost ADMIN or was deactivated: 400 page, nothing connected', async () => {
    for (const change of [`update users set role = 'SALES' where id = $1`, 'update users set active = false where id = $1']) {
      const { tenant: t, token } = await newAdmin();
      const url = await connectUrl(api, token, 'accounting');
      await owner.query(change, [t.users.admin!.id]);
      await expectPage(await followCallback(api, await visitConsent(url)), 400, /may no longer connect/);
      const rows = await owner.query('select status from integration_connections where organization_id = $1', [t.id]);
      expect(rows.rows).toEqual([]);
    }
  });

  it('declined consent: 200, the page says so, nothing is connected', async () => {
    const { token } = await newAdmin();
    for (const [slug, queue] of [
      ['accounting', () => fakes.qbo.queueConsent({ deny: true })],
      ['crm', () => fakes.sf.queueConsent({ deny: true })],
    ] as const) {
      await expectPage(await consent(api, token, slug, queue), 200, /declined/);
    }
    const entries = await listing(token);
    expect(entries.map((e) => e.connection)).toEqual([null, null, null]);
    expect(entries.filter((e) => e.provider !== 'PAYMENTS').map((e) => e.configuration.awaiting_tenant_consent)).toEqual([true, true]);
  });

  it('a code the provider rejects: 502 page, nothing connected', async () => {
    const { token } = await newAdmin();
    for (const slug of ['accounting', 'crm'] as const) {
      const location = await visitConsent(await connectUrl(api, token, slug));
      location.searchParams.set('code', `${location.searchParams.get('code')}x`);
      await expectPage(await followCallback(api, location), 502, /did not accept/);
    }
    // A code used twice is rejected the same way (the first exchange spent it).
    const location = await visitConsent(await connectUrl(api, token, 'accounting'));
    await expectPage(await followCallback(api, location), 200, /connected/);
    const again = new URL(location);
    again.searchParams.set('state', new URL(await connectUrl(api, token, 'accounting')).searchParams.get('state')!);
    await expectPage(await followCallback(api, again), 502, /did not accept/);
    expect((await listing(token)).find((e) => e.provider === 'CRM')!.connection).toBeNull();
  });
});

describe('DELETE /api/v1/integrations/{provider}', () => {
  it('DISCONNECTED, credentials erased, revoked at the provider, idempotent; 400 for payments', async () => {
    const { tenant: other, token } = await newAdmin();
    await expectPage(await consent(api, token, 'accounting'), 200, /connected/);
    const stored = (await owner.query('select refresh_token_ciphertext, encryption_key_id from integration_connections where organization_id = $1', [other.id])).rows[0];
    const refresh = new CredentialCipher(fakes.env.CREDENTIAL_ENCRYPTION_KEY!).decrypt(
      { ciphertext: stored.refresh_token_ciphertext, keyId: stored.encryption_key_id },
      `integration_connections/${other.id}/ACCOUNTING/refresh_token`,
    );
    expect(fakes.qbo.inspect.liveRefreshTokens()).toContain(refresh);

    for (let i = 0; i < 2; i++) {
      const res = await api.request('/api/v1/integrations/accounting', { method: 'DELETE', token });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ provider: 'ACCOUNTING', status: 'DISCONNECTED' });
    }
    const row = (await owner.query('select * from integration_connections where organization_id = $1', [other.id])).rows[0];
    expect(row).toMatchObject({ status: 'DISCONNECTED', access_token_ciphertext: null, refresh_token_ciphertext: null, encryption_key_id: null, access_token_expires_at: null });
    expect(fakes.qbo.inspect.liveRefreshTokens()).not.toContain(refresh);
    expect((await listing(token)).find((e) => e.provider === 'ACCOUNTING')!.connection).toMatchObject({ status: 'DISCONNECTED', external_account_id: DEFAULT_REALM_ID });

    // Never connected: still 200 DISCONNECTED, and nothing appears.
    const crm = await api.request('/api/v1/integrations/crm', { method: 'DELETE', token });
    expect(await crm.json()).toEqual({ provider: 'CRM', status: 'DISCONNECTED' });
    expect((await listing(token)).find((e) => e.provider === 'CRM')!.connection).toBeNull();

    const payments = await api.request('/api/v1/integrations/payments', { method: 'DELETE', token });
    expect(payments.status).toBe(400);
    expect(((await payments.json()) as { error: { code: string } }).error.code).toBe('bad_request');

    // D22: one audit event for the connection and one for the disconnection (the repeat changed nothing), no token in either.
    const audit = await api.request('/api/v1/audit-events?entity_type=integration', { token });
    const events = ((await audit.json()) as { data: Array<{ action: string; entity_id: string; changes: unknown[] }> }).data;
    expect(events.map((event) => [event.action, event.entity_id])).toEqual([
      ['integration.disconnected', 'accounting'],
      ['integration.connected', 'accounting'],
    ]);
    expect(events[0]!.changes).toEqual([{ field: 'status', before: 'CONNECTED', after: 'DISCONNECTED' }]);
    expect(JSON.stringify(events)).not.toContain(refresh);
  });
});

describe('the callback page looks like the app’s other pages and links back to where the consent began', () => {
  it('return_url on this deployment is where the page links after consent; its stylesheet is the app’s own, allowed by its CSP', async () => {
    const { token } = await newAdmin();
    const start = `${PUBLIC_BASE_URL}/office/settings/integrations?tab=accounting`;
    const res = await api.request(`/api/v1/integrations/accounting/connect?return_url=${encodeURIComponent(start)}`, { method: 'POST', token });
    expect(res.status).toBe(200);
    const page = await followCallback(api, await visitConsent(ConnectResult.parse(await res.json()).authorize_url));
    expect(page.headers.get('content-security-policy')).toContain("style-src 'self'");
    const html = await expectPage(page, 200, /connected/);
    expect(html).toContain(`<a id="back" href="${start.replaceAll('&', '&amp;')}">Back to where you started</a>`);
    const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1];
    expect(stylesheet).toMatch(/^\//);
    const css = await api.request(stylesheet!);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('without return_url, the calling page’s origin when it is this deployment’s; another origin is never linked', async () => {
    const { token } = await newAdmin();
    const fromOrigin = await api.request('/api/v1/integrations/crm/connect', { method: 'POST', token, headers: { origin: PUBLIC_BASE_URL } });
    const html = await expectPage(await followCallback(api, await visitConsent(ConnectResult.parse(await fromOrigin.json()).authorize_url)), 200, /connected/);
    expect(html).toContain(`<a id="back" href="${PUBLIC_BASE_URL}/">`);
    const foreign = await api.request(`/api/v1/integrations/crm/connect?return_url=${encodeURIComponent('https://attacker.example/phish')}`, { method: 'POST', token });
    expect(foreign.status).toBe(422);
    expect(((await foreign.json()) as { error: { details: { fields: Record<string, string> } } }).error.details.fields).toHaveProperty(['query.return_url']);
    expect((await api.request(`/api/v1/integrations/crm/connect?return_url=${encodeURIComponent('javascript:alert(1)')}`, { method: 'POST', token })).status).toBe(422);
  });

  it('in Chromium: not the default serif, and a visible link back (here, with no trusted state, to the API reference)', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 375, height: 667 } });
      // Anything the page's CSP refused, and every subresource it loaded (the page itself answers 400).
      const refused: string[] = [];
      const loaded: { url: string; status: number }[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy|Refused/.test(message.text())) refused.push(message.text());
      });
      page.on('response', (response) => {
        if (response.request().resourceType() !== 'document') loaded.push({ url: new URL(response.url()).pathname, status: response.status() });
      });
      const res = await page.goto(`${api.url}/api/v1/integrations/accounting/callback`);
      expect(res!.status()).toBe(400);
      const font = await page.evaluate<string>('getComputedStyle(document.body).fontFamily');
      expect(font).toContain('system-ui');
      expect(font).not.toMatch(/^"?Times/);
      const back = page.locator('#back');
      expect(await back.isVisible()).toBe(true);
      expect(await back.getAttribute('href')).toBe('/docs/#/integrations');
      // The stylesheet (and icon) loaded from this app under the page's CSP: nothing refused.
      expect(loaded).toEqual(expect.arrayContaining([{ url: '/q/assets/quote-page.css', status: 200 }]));
      expect(loaded.every((r) => r.status === 200)).toBe(true);
      expect(refused).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
