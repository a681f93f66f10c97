import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import OAuthClient from 'intuit-oauth';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { consent, startIntegrationFakes, storedTokens, workerIntegrations, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { faults } from '../../scripts/sandboxes/faults';
import { DEFAULT_QBO_CLIENT } from '../../scripts/sandboxes/quickbooks-fake';
import { IntegrationWorkflows } from '../../infra/temporal/integration-workflows';
import { integrationRefreshWorkflowId } from '../../infra/temporal/contracts';
import { IntegrationList } from '../../api/integrations/schemas';
import { ProviderCredentials } from '../../activities/integrations';
import { IntegrationConnections } from '../../infra/integrations/connection-store';
import type { QuickBooksOAuth } from '../../infra/integrations/providers';
import { waitUntil } from '../../scripts/harness/wait-until';

/**
 * Token refresh as a durable workflow, against the fakes with short token lifetimes:
 * QuickBooks access tokens live two seconds and its refresh tokens rotate on every refresh;
 * the Salesforce org rotates refresh tokens too. Real Temporal, real PostgreSQL.
 */
// Retry intervals at half a percent of production's; the workflow continues as new every 3 rounds.
const TIMING = { retryScale: 0.005 };
let owner: pg.Pool;
let fakes: IntegrationFakes;
let temporal: TemporalHarness;
let api: ApiHarness;
const connected: { tenant: Tenant; token: string }[] = [];

beforeAll(async () => {
  owner = ownerPool();
  fakes = await startIntegrationFakes({ qbo: { accessTokenTtlSeconds: 2 }, sf: { rotateRefreshTokens: true } });
  temporal = await startTemporalHarness();
  api = await startApi({ env: fakes.env, integrationWorkflows: new IntegrationWorkflows(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, timing: TIMING, roundsPerRun: 3 }) });
  await temporal.startWorker({ integrations: workerIntegrations(api) });
}, 120_000);

// Each test's connections are disconnected afterwards, so no workflow of one test refreshes
// (or meets the faults of) another.
afterEach(async () => {
  fakes.qbo.faults.clear();
  for (const { token } of connected.splice(0)) for (const slug of ['accounting', 'crm']) await api.request(`/api/v1/integrations/${slug}`, { method: 'DELETE', token });
});

afterAll(async () => {
  await api.close();
  await temporal.close();
  await fakes.close();
  await owner.end();
});

async function connect(slug: 'accounting' | 'crm'): Promise<{ tenant: Tenant; token: string }> {
  const tenant = await createTenant(owner, { admin: 'ADMIN' });
  const token = await api.tokenFor(tenant.users.admin!);
  connected.push({ tenant, token });
  const res = await consent(api, token, slug);
  expect(res.status).toBe(200);
  return { tenant, token };
}


const connection = async (token: string, provider: 'ACCOUNTING' | 'CRM') => {
  const res = await api.request('/api/v1/integrations', { token });
  return IntegrationList.parse(await res.json()).data.find((e) => e.provider === provider)!.connection;
};
const handle = (tenant: Tenant, provider: 'ACCOUNTING' | 'CRM') => temporal.client.workflow.getHandle(integrationRefreshWorkflowId({ organizationId: tenant.id, provider }));

describe('the token refresh workflow', () => {
  it('refreshes ahead of expiry several times in a row; the stored refresh token follows the rotation; it continues as new', async () => {
    const { tenant, token } = await connect('accounting');
    const seen: string[] = [];
    await waitUntil('three refreshes', async () => {
      const stored = await storedTokens(owner, fakes.env, tenant.id, 'ACCOUNTING');
      if (stored && !seen.includes(stored.refreshToken)) seen.push(stored.refreshToken);
      return seen.length >= 4;
    });
    // Only the newest is alive at the provider: each refresh killed the one before, and ours kept up.
    const live = fakes.qbo.inspect.liveRefreshTokens();
    expect(live).toContain(seen.at(-1));
    for (const old of seen.slice(0, -1)) expect(live).not.toContain(old);

    const now = await connection(token, 'ACCOUNTING');
    expect(now).toMatchObject({ status: 'CONNECTED', last_error: null });
    // Refreshed ahead of time: the token in store is never one that already lapsed.
    expect(Date.parse(now!.access_token_expires_at!)).toBeGreaterThan(Date.now());

    // Three rounds per run here: the history of one run never grows past a few refreshes.
    // Visibility is eventually consistent (a run that continued may still be listed as running
    // beside its successor), so it only finds the runs; each run's status is then read from the
    // workflow's own record, which is not: exactly one is alive, the newest.
    const workflowId = integrationRefreshWorkflowId({ organizationId: tenant.id, provider: 'ACCOUNTING' });
    const runIds = await waitUntil('a continued-as-new run and its live successor', async () => {
      const listed: { runId: string; status: string }[] = [];
      for await (const run of temporal.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) listed.push({ runId: run.runId, status: run.status.name });
      return listed.some((r) => r.status === 'CONTINUED_AS_NEW') && listed.some((r) => r.status === 'RUNNING') && listed.map((r) => r.runId);
    });
    // Read after the listing, the newest run is alive and every other run listed has ended by
    // continuing as new (a run that continues between the two reads has too, by then).
    const newest = await temporal.client.workflow.getHandle(workflowId).describe();
    expect(newest.status.name).toBe('RUNNING');
    const others = await Promise.all(runIds.filter((runId) => runId !== newest.runId).map(async (runId) => (await temporal.client.workflow.getHandle(workflowId, runId).describe()).status.name));
    expect(others.length).toBeGreaterThan(0);
    expect(new Set(others)).toEqual(new Set(['CONTINUED_AS_NEW']));
  });

  it('revoking at the provider marks the connection EXPIRED with last_error, erases its tokens, and ends the workflow', async () => {
    const { tenant, token } = await connect('accounting');
    const stored = await storedTokens(owner, fakes.env, tenant.id, 'ACCOUNTING');
    // What a person does in QuickBooks ("disconnect this app"): the grant dies at the provider.
    const intuit = new OAuthClient({ environment: 'sandbox', clientId: DEFAULT_QBO_CLIENT.clientId, clientSecret: DEFAULT_QBO_CLIENT.clientSecret, redirectUri: 'http://localhost:3000/api/v1/integrations/accounting/callback' });
    await intuit.revoke({ refresh_token: stored!.refreshToken });

    expect(await handle(tenant, 'ACCOUNTING').result()).toEqual({ ended: 'EXPIRED' });
    const expired = await connection(token, 'ACCOUNTING');
    expect(expired).toMatchObject({ status: 'EXPIRED', last_error: expect.stringMatching(/invalid_grant/) });
    expect(await storedTokens(owner, fakes.env, tenant.id, 'ACCOUNTING')).toBeUndefined();
  });

  it('disconnecting ends the workflow; connecting again starts a new one', async () => {
    const { tenant, token } = await connect('crm');
    const first = await handle(tenant, 'CRM').describe();
    expect(first.status.name).toBe('RUNNING');
    expect((await api.request('/api/v1/integrations/crm', { method: 'DELETE', token })).status).toBe(200);
    expect(await handle(tenant, 'CRM').result()).toEqual({ ended: 'DISCONNECTED' });

    expect((await consent(api, token, 'crm')).status).toBe(200);
    const second = await handle(tenant, 'CRM').describe();
    expect(second.status.name).toBe('RUNNING');
    expect(second.runId).not.toBe(first.runId);
  });

  it('a refresh that keeps failing marks the connection ERROR; it recovers once the provider answers again', async () => {
    const { token } = await connect('accounting');
    const outage = fakes.qbo.faults.inject({ method: 'POST', path: '/oauth2/v1/tokens/bearer', times: 10_000, action: faults.unavailable() });
    const failed = await waitUntil('ERROR', async () => {
      const now = await connection(token, 'ACCOUNTING');
      return now?.status === 'ERROR' && now;
    });
    expect(failed.last_error).toMatch(/accounting provider unavailable/);
    expect(outage.hits).toBeGreaterThanOrEqual(5);

    outage.cancel();
    const recovered = await waitUntil('recovery', async () => {
      const now = await connection(token, 'ACCOUNTING');
      return now?.status === 'CONNECTED' && now;
    });
    expect(recovered.last_error).toBeNull();
  });
});

describe('withFreshToken (for activities that call a provider)', () => {
  it('crm: a 401 refreshes once (rotating the refresh token) and the call is retried', async () => {
    const { tenant } = await connect('crm');
    const integrations = workerIntegrations(api);
    const credentials = new ProviderCredentials(new IntegrationConnections(temporal.orm.em, integrations.cipher), integrations.providers);
    const before = await storedTokens(owner, fakes.env, tenant.id, 'CRM');
    fakes.sf.expireSessions();
    fakes.sf.requests.clear();

    const result = await credentials.withFreshToken({ organizationId: tenant.id, provider: 'CRM' }, (session) =>
      integrations.providers.CRM!.connection({ accessToken: session.accessToken, instanceUrl: session.instanceUrl! }).query('SELECT COUNT() FROM Opportunity'),
    );
    expect(result.done).toBe(true);
    expect(fakes.sf.requests.all().map((r) => `${r.method} ${r.path.replace(/\/v\d+\.0\//, '/vX/')} ${r.status}`)).toEqual([
      'GET /services/data/vX/query 401',
      'POST /services/oauth2/token 200',
      'GET /services/data/vX/query 200',
    ]);
    const after = await storedTokens(owner, fakes.env, tenant.id, 'CRM');
    expect(after!.accessToken).not.toBe(before!.accessToken);
    expect(after!.refreshToken).not.toBe(before!.refreshToken);
  });

  it('accounting: a 401 refreshes once and the call is retried; a revoked grant is a non-retryable ConnectionExpired', async () => {
    const { tenant } = await connect('accounting');
    const integrations = workerIntegrations(api);
    const qbo = integrations.providers.ACCOUNTING as QuickBooksOAuth;
    const credentials = new ProviderCredentials(new IntegrationConnections(temporal.orm.em, integrations.cipher), integrations.providers);
    const companyInfo = (session: { accessToken: string; externalAccountId: string; instanceUrl: string | null }) =>
      qbo.client({ accessToken: session.accessToken, realmId: session.externalAccountId }).makeApiCall({ url: `${session.instanceUrl}v3/company/${session.externalAccountId}/companyinfo/${session.externalAccountId}` });

    fakes.qbo.faults.inject({ method: 'GET', path: '/v3/company/*/companyinfo/*', action: faults.status(401) });
    fakes.qbo.requests.clear();
    const info = await credentials.withFreshToken({ organizationId: tenant.id, provider: 'ACCOUNTING' }, companyInfo);
    expect(info.json.CompanyInfo).toBeDefined();
    expect(fakes.qbo.requests.find('GET', /companyinfo/).map((r) => r.status)).toEqual([401, 200]);

    const stored = await storedTokens(owner, fakes.env, tenant.id, 'ACCOUNTING');
    await new OAuthClient({ environment: 'sandbox', clientId: DEFAULT_QBO_CLIENT.clientId, clientSecret: DEFAULT_QBO_CLIENT.clientSecret, redirectUri: 'x' }).revoke({ refresh_token: stored!.refreshToken });
    await expect(credentials.withFreshToken({ organizationId: tenant.id, provider: 'ACCOUNTING' }, companyInfo)).rejects.toMatchObject({ type: expect.stringMatching(/ConnectionExpired|ProviderNotConnected/), nonRetryable: true });
  });
});
