import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MikroORM } from '@mikro-orm/postgresql';
import { workerOrm } from '../support/worker-db';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { consent, connectUrl, followCallback, startIntegrationFakes, visitConsent, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { SyncRecords } from '../../activities/sync-records';
import { IntegrationList, SyncRecordList } from '../../api/integrations/schemas';

/**
 * GET /api/v1/integrations and /integrations/syncs (section 4.5, shapes of 2.3), the ADMIN-only
 * rule of 5.8, validation (422), connect's 400s (D9), and two tenants connected to different
 * accounts at the fakes that never see each other's connection or sync rows.
 */
const REALM_A = '9341452000000001';
const REALM_B = '9341452000000002';
let owner: pg.Pool;
let fakes: IntegrationFakes;
let api: ApiHarness;
/** Sync rows are the worker's to write (activities/sync-records.ts): written as its role. */
let worker: MikroORM;
let a: Tenant;
let b: Tenant;
let adminA: string;
let adminB: string;

beforeAll(async () => {
  owner = ownerPool();
  fakes = await startIntegrationFakes({ qbo: { realms: [{ realmId: REALM_A }, { realmId: REALM_B, companyName: 'Other Shades Inc' }] }, sf: { orgs: [{}, {}] } });
  // Payments unconfigured here whatever the environment holds, so its entry is known.
  api = await startApi({ env: { ...fakes.env, PAYMENTS_SECRET_KEY: '' } });
  [a, b] = await Promise.all([createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' }), createTenant(owner, { admin: 'ADMIN' })]);
  [adminA, adminB] = await Promise.all([api.tokenFor(a.users.admin!), api.tokenFor(b.users.admin!)]);
  worker = await workerOrm();
}, 60_000);

afterAll(async () => {
  await worker.close(true);
  await api.close();
  await fakes.close();
  await owner.end();
});

const json = async <T>(res: Response, status = 200) => {
  expect(res.status).toBe(status);
  return (await res.json()) as T;
};
const list = async (token: string, harness = api) => IntegrationList.parse(await json(await harness.request('/api/v1/integrations', { token }))).data;
const syncs = async (token: string, query = '') => SyncRecordList.parse(await json(await api.request(`/api/v1/integrations/syncs${query}`, { token }))).data;

/** Persisted quotes of a tenant (sync rows reference one each). */
async function quotes(tenant: Tenant, token: string, count: number): Promise<string[]> {
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = await json<{ quote_id: string }>(await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true, customer: { name: `Customer ${i}` } }) }));
    ids.push(body.quote_id);
  }
  return ids;
}

describe('GET /api/v1/integrations', () => {
  it('one entry per provider in registry order, exactly the Integration shape; connection null until connected', async () => {
    const entries = await list(adminA);
    expect(entries.map((e) => [e.provider, e.slug, e.display_name])).toEqual([
      ['PAYMENTS', 'payments', 'Payments'],
      ['ACCOUNTING', 'accounting', 'Accounting'],
      ['CRM', 'crm', 'CRM'],
    ]);
    expect(entries.map((e) => e.connection)).toEqual([null, null, null]);
    expect(entries[0]).toMatchObject({ configured: false, configuration: { missing_environment: ['PAYMENTS_SECRET_KEY'], awaiting_tenant_consent: false } });
    for (const entry of entries.slice(1)) expect(entry).toMatchObject({ configured: true, configuration: { missing_environment: [], awaiting_tenant_consent: true } });
  });

  it('reports what the platform lacks (D9) and connect refuses with 400: no client credentials, no encryption key, payments', async () => {
    const bare = await startApi({ env: { ...fakes.env, PAYMENTS_SECRET_KEY: '', CRM_CLIENT_SECRET: '', CREDENTIAL_ENCRYPTION_KEY: '' } });
    try {
      const token = await bare.tokenFor(a.users.admin!);
      const entries = await list(token, bare);
      expect(entries.map((e) => [e.configured, e.configuration.missing_environment])).toEqual([
        [false, ['PAYMENTS_SECRET_KEY']],
        [false, ['CREDENTIAL_ENCRYPTION_KEY']],
        [false, ['CRM_CLIENT_SECRET', 'CREDENTIAL_ENCRYPTION_KEY']],
      ]);
      expect(entries.map((e) => e.configuration.awaiting_tenant_consent)).toEqual([false, false, false]);
      for (const slug of ['accounting', 'crm', 'payments']) {
        const body = await json<{ error: { code: string; message: string } }>(await bare.request(`/api/v1/integrations/${slug}/connect`, { method: 'POST', token }), 400);
        expect(body.error.code).toBe('bad_request');
        // The tenant-facing message names no setting.
        expect(body.error.message).not.toMatch(/[A-Z]+_[A-Z_]+/);
      }
    } finally {
      await bare.close();
    }
    expect((await api.request('/api/v1/integrations/payments/connect', { method: 'POST', token: adminA })).status).toBe(400);
  });
});

describe('ADMIN only (5.8) and validation (422)', () => {
  it('SALES and TECHNICIAN get 403 on every integrations endpoint but the callback; no token gets 401', async () => {
    const endpoints: [string, string][] = [
      ['GET', '/api/v1/integrations'],
      ['GET', '/api/v1/integrations/syncs'],
      ['POST', '/api/v1/integrations/accounting/connect'],
      ['DELETE', '/api/v1/integrations/crm'],
    ];
    for (const user of [a.users.sales!, a.users.tech!]) {
      const token = await api.tokenFor(user);
      for (const [method, path] of endpoints) expect({ method, path, status: (await api.request(path, { method, token })).status }).toEqual({ method, path, status: 403 });
    }
    for (const [method, path] of endpoints) expect((await api.request(path, { method })).status).toBe(401);
    // The callback is public: authenticated by its signed state, and it answers a page.
    const callback = await api.request('/api/v1/integrations/accounting/callback');
    expect(callback.status).toBe(400);
    expect(callback.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('422 with dotted fields for an unknown provider, a limit outside 1-100, an unknown filter or key', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/api/v1/integrations/stripe/connect', 'provider'],
      ['DELETE', '/api/v1/integrations/quickbooks', 'provider'],
      ['GET', '/api/v1/integrations/syncs?limit=0', 'limit'],
      ['GET', '/api/v1/integrations/syncs?limit=101', 'limit'],
      ['GET', '/api/v1/integrations/syncs?limit=ten', 'limit'],
      ['GET', '/api/v1/integrations/syncs?provider=ACCOUNTING', 'provider'],
      // cursor is a parameter now (a bad one is a 400, test/integration/list-paging.test.ts); page is not.
      ['GET', '/api/v1/integrations/syncs?page=2', 'page'],
    ];
    for (const [method, path, field] of cases) {
      const body = await json<{ error: { code: string; details: { fields: Record<string, string> } } }>(await api.request(path, { method, token: adminA }), 422);
      expect({ path, code: body.error.code, fields: Object.keys(body.error.details.fields) }).toEqual({ path, code: 'validation_failed', fields: [field] });
    }
  });
});

describe('GET /api/v1/integrations/syncs', () => {
  it('newest attempts first, filtered by provider, 25 by default, SyncRecord shape', async () => {
    const ids = await quotes(a, adminA, 9);
    const store = new SyncRecords(worker.em);
    // 27 rows, one provider after another per quote, so the order of writing is known.
    for (const quoteId of ids) {
      await store.skipped({ organizationId: a.id, quoteId, provider: 'PAYMENTS', reason: 'payments provider not configured on the platform' });
      await store.succeeded({ organizationId: a.id, quoteId, provider: 'ACCOUNTING', externalId: `inv-${quoteId.slice(0, 8)}`, amountCents: 123_45 });
      await store.failed({ organizationId: a.id, quoteId, provider: 'CRM', lastError: 'CRM provider refused the call (400)' });
    }
    const page = await syncs(adminA);
    expect(page).toHaveLength(25);
    const last = ids.at(-1)!;
    expect(page.slice(0, 3).map((r) => [r.provider, r.local_id])).toEqual([
      ['CRM', last],
      ['ACCOUNTING', last],
      ['PAYMENTS', last],
    ]);
    expect(page[1]).toEqual({
      id: expect.any(String),
      provider: 'ACCOUNTING',
      entity_type: 'invoice',
      local_id: last,
      external_id: `inv-${last.slice(0, 8)}`,
      status: 'SUCCEEDED',
      attempts: 0,
      amount_cents: 123_45,
      last_error: null,
      synced_at: expect.stringMatching(/Z$/),
    });
    expect(page[0]).toMatchObject({ status: 'FAILED', last_error: 'CRM provider refused the call (400)', synced_at: null, external_id: null });

    const crm = await syncs(adminA, '?provider=crm&limit=100');
    expect(crm).toHaveLength(9);
    expect(crm.every((r) => r.provider === 'CRM' && r.entity_type === 'opportunity')).toBe(true);
    expect(crm.map((r) => r.local_id)).toEqual([...ids].reverse());
    expect(await syncs(adminA, '?limit=1')).toHaveLength(1);

    // A retried attempt moves to the top.
    await store.beginAttempt({ organizationId: a.id, quoteId: ids[0]!, provider: 'CRM' });
    expect((await syncs(adminA, '?limit=1'))[0]).toMatchObject({ provider: 'CRM', local_id: ids[0], status: 'PENDING', attempts: 1 });

    // The listing's last_sync_at is the newest successful sync of the provider.
    const newest = (await syncs(adminA, '?provider=accounting&limit=1'))[0]!.synced_at;
    await consent(api, adminA, 'accounting', () => fakes.qbo.queueConsent({ realmId: REALM_A }));
    expect((await list(adminA))[1]!.connection!.last_sync_at).toBe(newest);
  });
});

describe('two tenants, two accounts', () => {
  it('each connects its own account at the provider and never sees the other’s connection or sync rows', async () => {
    const [orgA, orgB] = fakes.sf.orgIds() as [string, string];
    // A may already hold realm A (above); connecting again is harmless.
    expect((await consent(api, adminA, 'accounting', () => fakes.qbo.queueConsent({ realmId: REALM_A }))).status).toBe(200);
    expect((await consent(api, adminA, 'crm', () => fakes.sf.queueConsent({ orgId: orgA }))).status).toBe(200);
    expect((await consent(api, adminB, 'accounting', () => fakes.qbo.queueConsent({ realmId: REALM_B }))).status).toBe(200);
    expect((await consent(api, adminB, 'crm', () => fakes.sf.queueConsent({ orgId: orgB }))).status).toBe(200);

    const accounts = async (token: string) => (await list(token)).slice(1).map((e) => e.connection!.external_account_id);
    expect(await accounts(adminA)).toEqual([REALM_A, orgA]);
    expect(await accounts(adminB)).toEqual([REALM_B, orgB]);
    expect(fakes.qbo.inspect.grants().filter((g) => !g.revoked).map((g) => g.realmId)).toEqual(expect.arrayContaining([REALM_A, REALM_B]));

    const [quoteB] = await quotes(b, adminB, 1);
    await new SyncRecords(worker.em).skipped({ organizationId: b.id, quoteId: quoteB!, provider: 'CRM', reason: 'CRM provider not connected' });
    expect((await syncs(adminB)).map((r) => r.local_id)).toEqual([quoteB]);
    expect((await syncs(adminA, '?limit=100')).some((r) => r.local_id === quoteB)).toBe(false);

    // B disconnecting touches only B; A's state in B's hands connects A, never B (the state names the tenant).
    expect((await api.request('/api/v1/integrations/accounting', { method: 'DELETE', token: adminB })).status).toBe(200);
    expect((await list(adminA))[1]!.connection!.status).toBe('CONNECTED');
    const statesOfA = await visitConsent(await connectUrl(api, adminA, 'accounting'));
    expect((await followCallback(api, statesOfA)).status).toBe(200);
    expect((await list(adminB))[1]!.connection!.status).toBe('DISCONNECTED');

    // In the table, each tenant's row holds its own account, under row-level security.
    const rows = await owner.query('select organization_id, provider, external_account_id from integration_connections where organization_id in ($1, $2) order by 1, 2', [a.id, b.id]);
    expect(rows.rows).toEqual(
      expect.arrayContaining([
        { organization_id: a.id, provider: 'ACCOUNTING', external_account_id: REALM_A },
        { organization_id: b.id, provider: 'ACCOUNTING', external_account_id: REALM_B },
      ]),
    );
  });
});
