import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, SYNC_INTERVAL_NEVER_IN_A_TEST, TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { consent, startIntegrationFakes, workerIntegrations, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { signStripeEvent } from '../../scripts/sandboxes/stripe/webhooks';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { InvoiceRunner } from '../../infra/temporal/invoice-runner';
import { IntegrationWorkflows } from '../../infra/temporal/integration-workflows';
import { ProviderSyncSchedules } from '../../infra/temporal/provider-sync-schedules';
import { WORKFLOW_TYPES, providerSyncScheduleId, type LegProvider, type ProviderSyncWorkflow } from '../../infra/temporal/contracts';
import { OrganizationIdKey, OrganizationSubdomainKey, ProviderKey } from '../../infra/temporal/search-attributes';
import { QUOTE_EXTERNAL_ID_FIELD } from '../../activities/crm/upsert-opportunity';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import * as quotes from '../../scripts/harness/approved-quote';

/**
 * D18: the scheduled provider sync, against the fakes, real Temporal and PostgreSQL. Runs are
 * started here as the schedule starts them (same workflow, same input), so each test decides when.
 */
const KEY = 'sk_test_providerSync0001';
const WEBHOOK_SECRET = `whsec_${randomUUID().replaceAll('-', '')}`;
const PAGE = 3;
let owner: pg.Pool;
let stripe: StripeFake;
let fakes: IntegrationFakes;
let temporal: TemporalHarness;
let schedules: ProviderSyncSchedules;
let api: ApiHarness;
let tenant: Tenant;
let sales: string;
let admin: string;
let closeStripe: () => Promise<void>;

beforeAll(async () => {
  owner = ownerPool();
  stripe = new StripeFake({ apiKeys: [KEY] });
  const started = await stripe.start();
  closeStripe = started.close;
  fakes = await startIntegrationFakes();
  temporal = await startTemporalHarness();
  const payments = createStripeClient({ secretKey: KEY, baseUrl: started.url });
  // Runs are started by the tests themselves (never by a schedule, at once or on the hour), so each knows what ran.
  schedules = new ProviderSyncSchedules(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, interval: SYNC_INTERVAL_NEVER_IN_A_TEST, timing: TEST_TIMING, runAtOnce: false });
  api = await startApi({
    events: temporal.dispatcher,
    payments,
    invoices: new InvoiceRunner(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, timing: TEST_TIMING }),
    integrationWorkflows: new IntegrationWorkflows(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, timing: TEST_TIMING, syncSchedules: schedules }),
    env: { PAYMENTS_SECRET_KEY: KEY, PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET, ...fakes.env },
  });
  await temporal.startWorker({ payments, integrations: workerIntegrations(api), providerSync: { schedules, pageSize: PAGE } });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  sales = await api.tokenFor(tenant.users.sales!);
  admin = await api.tokenFor(tenant.users.admin!);
  for (const slug of ['accounting', 'crm'] as const) expect((await consent(api, admin, slug)).status).toBe(200);
}, 120_000);
afterEach(() => {
  stripe.faults.clear();
  fakes.qbo.faults.clear();
  fakes.sf.faults.clear();
});
afterAll(async () => {
  for (const provider of ['PAYMENTS', 'ACCOUNTING', 'CRM'] as const) await temporal.client.schedule.getHandle(providerSyncScheduleId({ organizationId: tenant.id, provider })).delete().catch(() => undefined);
  await api.close();
  await temporal.close();
  await fakes.close();
  await closeStripe();
  await owner.end();
});

/** One run, as the schedule starts it. */
async function syncRun(provider: LegProvider, pagesPerRun?: number) {
  const workflowId = `${providerSyncScheduleId({ organizationId: tenant.id, provider })}-test-${randomUUID()}`;
  const result = await temporal.client.workflow.execute<ProviderSyncWorkflow>(WORKFLOW_TYPES.providerSync, {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [{ organizationId: tenant.id, provider, timing: TEST_TIMING, ...(pagesPerRun ? { pagesPerRun } : {}) }],
    typedSearchAttributes: [
      { key: OrganizationIdKey, value: tenant.id },
      { key: ProviderKey, value: provider },
    ],
  });
  const run = (await owner.query('select * from provider_sync_runs where workflow_id = $1', [workflowId])).rows[0];
  return { workflowId, result, run };
}
const watermark = async (provider: LegProvider) =>
  ((await owner.query('select watermark from provider_sync_state where organization_id = $1 and provider = $2', [tenant.id, provider])).rows[0]?.watermark ?? null) as string | null;
const quoteRow = async (id: string) => (await owner.query('select status, paid_at from quotes where id = $1', [id])).rows[0] as { status: string; paid_at: Date | null };

const newQuote = () => quotes.keptQuote({ api, temporal, sales }, quotes.newCustomer('Sync Case'));
async function approvedQuote() {
  const { progress, ...quote } = await quotes.approvedQuote({ api, temporal, sales }, quotes.newCustomer('Sync Case'));
  expect(progress.legs.map((l) => l.status)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
  return { ...quote, legs: Object.fromEntries(progress.legs.map((l) => [l.provider, l.externalId!])) as Record<LegProvider, string> };
}
const realm = async () => (await owner.query(`select external_account_id from integration_connections where organization_id = $1 and provider = 'ACCOUNTING'`, [tenant.id])).rows[0].external_account_id as string;
const sfOrg = async () => (await owner.query(`select external_account_id from integration_connections where organization_id = $1 and provider = 'CRM'`, [tenant.id])).rows[0].external_account_id as string;

describe('D18 payments: the events list catches up a missed webhook', () => {
  it('a payment whose webhook never came is applied by the next sync; the webhook arriving later changes nothing', async () => {
    await syncRun('PAYMENTS'); // the baseline: everything so far applied
    const quote = await approvedQuote();
    stripe.payInvoiceAsCustomer(KEY, quote.legs.PAYMENTS); // no endpoint registered: the webhook is missed
    expect((await quoteRow(quote.quote_id)).paid_at).toBeNull();
    const before = await watermark('PAYMENTS');

    const { result, run } = await syncRun('PAYMENTS');
    expect(result.error).toBeNull();
    expect(result.applied).toBe(1);
    expect(run).toMatchObject({ applied: 1, watermark_before: before, error: null });
    expect(run.finished_at).not.toBeNull();
    const paid = (await quoteRow(quote.quote_id)).paid_at;
    expect(paid).not.toBeNull();
    const event = stripe.inspect.events(KEY).find((e) => e.type === 'invoice.paid' && (e.data.object as { id: string }).id === quote.legs.PAYMENTS)!;
    expect(run.watermark_after).toBe(await watermark('PAYMENTS'));
    expect(stripe.inspect.events(KEY).map((e) => e.id)).toContain(run.watermark_after);

    // The provider delivers the webhook late: acknowledged, nothing changes.
    const late = signStripeEvent(event, WEBHOOK_SECRET);
    const res = await api.request('/api/v1/integrations/payments/webhook', { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': late.header }, body: late.payload });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, handled: false });
    expect((await quoteRow(quote.quote_id)).paid_at).toEqual(paid);
    // And a sync after it applies nothing again.
    expect((await syncRun('PAYMENTS')).result).toMatchObject({ applied: 0, error: null });
    // The tenant's first invoice made its payments schedule (the platform's account needs no consent).
    expect((await temporal.client.schedule.getHandle(providerSyncScheduleId({ organizationId: tenant.id, provider: 'PAYMENTS' })).describe()).state.paused).toBe(false);
  }, 120_000);

  it('pages through many events; a 5xx that outlasts the retries ends the run with the error and the watermark at the last page applied; the next run goes on', async () => {
    await syncRun('PAYMENTS');
    const quotes = [];
    for (let i = 0; i < 2 * PAGE + 1; i++) quotes.push(await approvedQuote());
    for (const quote of quotes) stripe.payInvoiceAsCustomer(KEY, quote.legs.PAYMENTS);
    const before = await watermark('PAYMENTS');
    // The second page fails every time; the first is applied.
    let listed = 0;
    stripe.faults.inject({ method: 'GET', path: '/v1/events', times: Infinity, when: () => ++listed >= 2, action: faults.status(503) });
    const failed = await syncRun('PAYMENTS');
    expect(failed.result.error).toMatch(/payments provider unavailable: 503/);
    expect(failed.run.error).toMatch(/503/);
    const middle = await watermark('PAYMENTS');
    expect(middle).not.toBe(before);
    expect(failed.run).toMatchObject({ watermark_before: before, watermark_after: middle });
    const paidAfterFailure = (await Promise.all(quotes.map((q) => quoteRow(q.quote_id)))).filter((q) => q.paid_at !== null).length;
    expect(failed.result.applied).toBe(paidAfterFailure);
    expect(paidAfterFailure).toBeLessThan(quotes.length);

    stripe.faults.clear();
    const next = await syncRun('PAYMENTS');
    expect(next.result.error).toBeNull();
    expect(next.run.watermark_before).toBe(middle);
    expect(failed.result.applied + next.result.applied).toBe(quotes.length);
    for (const quote of quotes) expect((await quoteRow(quote.quote_id)).paid_at).not.toBeNull();
  }, 180_000);

  it('honours a 429 and its Retry-After, then applies the page', async () => {
    await syncRun('PAYMENTS');
    const quote = await approvedQuote();
    stripe.payInvoiceAsCustomer(KEY, quote.legs.PAYMENTS);
    stripe.faults.inject({ method: 'GET', path: '/v1/events', times: 1, action: faults.rateLimited(1) });
    const started = Date.now();
    const { result } = await syncRun('PAYMENTS');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(result).toMatchObject({ applied: 1, error: null });
    expect(stripe.requests.find('GET', '/v1/events').filter((r) => r.status === 429)).toHaveLength(1);
  }, 60_000);
});

describe('D18 accounting: QuickBooks change data capture', () => {
  it('a payment recorded at QuickBooks marks the quote paid on the next run (paid_at only once)', async () => {
    await syncRun('ACCOUNTING');
    const quote = await approvedQuote();
    expect((await syncRun('ACCOUNTING')).result.applied).toBe(0); // open: nothing to apply
    fakes.qbo.recordPaymentAsBookkeeper(await realm(), quote.legs.ACCOUNTING);
    expect(fakes.qbo.inspect.invoices(await realm()).find((i) => i.Id === quote.legs.ACCOUNTING)!.Balance).toBe(0);
    const { result, run } = await syncRun('ACCOUNTING');
    expect(result).toMatchObject({ applied: 1, error: null });
    expect(run.seen).toBeGreaterThanOrEqual(2); // the payment and the invoice it paid
    const paid = (await quoteRow(quote.quote_id)).paid_at;
    expect(paid).not.toBeNull();
    // It asked for what changed since its watermark.
    expect(fakes.qbo.requests.find('GET', '/v3/company/*/cdc').map((r) => r.query.changedSince)).toContain(run.watermark_before);
    expect((await syncRun('ACCOUNTING')).result.applied).toBe(0);
    expect((await quoteRow(quote.quote_id)).paid_at).toEqual(paid);
  }, 90_000);

  it('a malformed page ends the run with the error and the watermark where it was; the next run continues', async () => {
    await syncRun('ACCOUNTING');
    const quote = await approvedQuote();
    fakes.qbo.recordPaymentAsBookkeeper(await realm(), quote.legs.ACCOUNTING);
    const before = await watermark('ACCOUNTING');
    fakes.qbo.faults.inject({ method: 'GET', path: '/v3/company/*/cdc', times: 1, action: faults.status(200, { body: { CDCResponse: 'not a list' } }) });
    const broken = await syncRun('ACCOUNTING');
    expect(broken.result.error).toMatch(/accounting provider answered a malformed page/);
    expect(broken.run).toMatchObject({ applied: 0, watermark_before: before, watermark_after: before });
    expect(await watermark('ACCOUNTING')).toBe(before);
    expect((await quoteRow(quote.quote_id)).paid_at).toBeNull();
    const next = await syncRun('ACCOUNTING');
    expect(next.result).toMatchObject({ applied: 1, error: null });
    expect((await quoteRow(quote.quote_id)).paid_at).not.toBeNull();
  }, 90_000);
});

describe('D18 CRM: Salesforce opportunities by SystemModstamp', () => {
  it('Closed Lost rejects its SENT quote; other stages and other states are left alone', async () => {
    await syncRun('CRM');
    const sent = await newQuote();
    expect((await api.request(`/api/v1/quotes/${sent.quote_id}/send`, { method: 'POST', token: sales })).status).toBe(200);
    const approved = await approvedQuote();
    const org = await sfOrg();
    const opportunity = fakes.sf.insertRecordAsUser(org, 'Opportunity', { Name: `Quote ${sent.quote_number}`, StageName: 'Prospecting', CloseDate: '2026-12-31', [QUOTE_EXTERNAL_ID_FIELD]: sent.quote_id });
    expect((await syncRun('CRM')).result.applied).toBe(0);
    expect((await quoteRow(sent.quote_id)).status).toBe('SENT');

    fakes.sf.updateRecordAsUser('Opportunity', opportunity, { StageName: 'Closed Lost' });
    // An approved quote's opportunity lost later does not undo the approval.
    fakes.sf.updateRecordAsUser('Opportunity', approved.legs.CRM, { StageName: 'Closed Lost' });
    const { result, run } = await syncRun('CRM');
    expect(result).toMatchObject({ applied: 1, error: null });
    expect(run.seen).toBeGreaterThanOrEqual(2);
    expect((await quoteRow(sent.quote_id)).status).toBe('REJECTED');
    expect((await quoteRow(approved.quote_id)).status).toBe('APPROVED');
    expect((await syncRun('CRM')).result.applied).toBe(0);
  }, 90_000);

  it('an access token that expires mid-sync is refreshed and the run goes on; pages of PAGE records continue as new', async () => {
    await syncRun('CRM');
    const org = await sfOrg();
    const quotes = [];
    for (let i = 0; i < 2 * PAGE; i++) {
      const quote = await newQuote();
      quotes.push(quote);
      const id = fakes.sf.insertRecordAsUser(org, 'Opportunity', { Name: `Quote ${quote.quote_number}`, StageName: 'Prospecting', CloseDate: '2026-12-31', [QUOTE_EXTERNAL_ID_FIELD]: quote.quote_id });
      fakes.sf.updateRecordAsUser('Opportunity', id, { StageName: 'Closed Lost' });
    }
    fakes.sf.expireSessions();
    const { result, run, workflowId } = await syncRun('CRM', 1);
    expect(result).toMatchObject({ applied: quotes.length, error: null });
    expect(run).toMatchObject({ applied: quotes.length, error: null });
    for (const quote of quotes) expect((await quoteRow(quote.quote_id)).status).toBe('REJECTED');
    // pagesPerRun 1: the run continued as new, keeping its row and its counts.
    let executions = 0;
    for await (const _ of temporal.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) executions++;
    expect(executions).toBeGreaterThanOrEqual(2);
  }, 120_000);
});

describe('D18 schedules and the runs list', () => {
  it('a schedule per connected provider, paused on disconnect and resumed on reconnect', async () => {
    const handle = temporal.client.schedule.getHandle(providerSyncScheduleId({ organizationId: tenant.id, provider: 'CRM' }));
    const described = await handle.describe();
    expect(described.state.paused).toBe(false);
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'providerSync', workflowId: providerSyncScheduleId({ organizationId: tenant.id, provider: 'CRM' }) });
    const attributes = described.action.type === 'startWorkflow' ? described.action.typedSearchAttributes : undefined;
    expect(attributes && 'get' in attributes ? attributes.get(OrganizationIdKey) : undefined).toBe(tenant.id);
    expect(attributes && 'get' in attributes ? attributes.get(OrganizationSubdomainKey) : undefined).toBe(tenant.subdomain);
    expect((await api.request('/api/v1/integrations/crm', { method: 'DELETE', token: admin })).status).toBe(200);
    expect((await handle.describe()).state).toMatchObject({ paused: true, note: 'disconnected' });
    // A run that finds the connection unusable records why and pauses its schedule itself.
    const { result, run } = await syncRun('CRM');
    expect(result.error).toMatch(/crm connection is DISCONNECTED/);
    expect(run.error).toMatch(/DISCONNECTED/);
    expect((await consent(api, admin, 'crm')).status).toBe(200);
    expect((await handle.describe()).state.paused).toBe(false);
  }, 90_000);

  it('GET /api/v1/integrations/sync-runs: ADMIN only, newest first, by provider, paged, validated; last_sync_at set', async () => {
    const res = await api.request('/api/v1/integrations/sync-runs?limit=2', { token: admin });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { provider: string; started_at: string; workflow_id: string; seen: number; applied: number; error: string | null }[] };
    expect(body.data).toHaveLength(2);
    expect(Date.parse(body.data[0]!.started_at)).toBeGreaterThanOrEqual(Date.parse(body.data[1]!.started_at));
    expect(res.headers.get('link')).toMatch(/rel="next"/);
    const next = /<([^>]+)>/.exec(res.headers.get('link')!)![1]!;
    const second = (await (await api.request(new URL(next).pathname + new URL(next).search, { token: admin })).json()) as { data: { id: string }[] };
    expect(second.data.map((r) => r.id)).not.toContain((body.data as unknown as { id: string }[])[0]!.id);
    const accounting = (await (await api.request('/api/v1/integrations/sync-runs?provider=accounting&limit=100', { token: admin })).json()) as { data: { provider: string; workflow_id: string }[] };
    expect(accounting.data.length).toBeGreaterThan(0);
    expect(accounting.data.every((r) => r.provider === 'ACCOUNTING' && r.workflow_id.startsWith(`provider-sync-${tenant.id}-accounting`))).toBe(true);
    for (const [bad, status] of [['?limit=0', 422], ['?limit=101', 422], ['?provider=ledger', 422], ['?other=1', 422], ['?cursor=nonsense', 400]] as const) {
      expect([bad, (await api.request(`/api/v1/integrations/sync-runs${bad}`, { token: admin })).status]).toEqual([bad, status]);
    }
    expect((await api.request('/api/v1/integrations/sync-runs', { token: sales })).status).toBe(403);
    // Another tenant sees none of these.
    const other = await createTenant(owner, { admin: 'ADMIN' });
    expect(((await (await api.request('/api/v1/integrations/sync-runs', { token: await api.tokenFor(other.users.admin!) })).json()) as { data: unknown[] }).data).toEqual([]);
    const integrations = (await (await api.request('/api/v1/integrations', { token: admin })).json()) as { data: { provider: string; connection: { last_sync_at: string | null } | null }[] };
    expect(integrations.data.find((i) => i.provider === 'ACCOUNTING')!.connection!.last_sync_at).not.toBeNull();
  }, 60_000);
});
