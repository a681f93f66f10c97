import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { createMetricsRegistry, serveMetrics, type MetricsServer } from '../../infra/runtime/metrics';
import { createLogger } from '../../infra/runtime/logger';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { approvalWorkflowId, endpointDeliveryWorkflowId } from '../../infra/temporal/contracts';
import { deliverySettled } from '../support/delivery-settled';
import { REQUEST_ID_MEMO } from '../../infra/temporal/client-interceptors';
import { createRequestMetrics } from '../../api/http/metrics';
import { createWorkerMetrics, operationsFrom, subdomainsFrom, syncRunLagFrom } from '../../worker/metrics';
import { parseExposition, sampleValue } from '../support/prometheus-text';
import * as quotes from '../../scripts/harness/approved-quote';
import { waitUntil } from '../../scripts/harness/wait-until';

/**
 * Prometheus metrics of the API and the worker, read from their `/metrics` as
 * Prometheus would: requests by route and status with their latency, rate-limit refusals,
 * provider calls by provider and outcome, webhook attempts and deliveries by outcome, and the
 * figures the operator's alerts watch (outbox lag, legs awaiting repair, disabled endpoints, sync
 * runs' lag). Also what goes with them: a delivery that used all its attempts shows as failed (its
 * row, the deliveries counter and a warn line with its delivery id and its endpoint's workflow:
 * deliveries are carried by one workflow per endpoint, which the tenant's OrganizationId
 * finds), the workflows a request started carry its request id, and the worker's log lines carry
 * workflow id, run id and business ids.
 */
const STRIPE_KEY = 'sk_test_metricsSuite0001';
const CIPHER_KEY = randomBytes(32).toString('base64');
let owner: pg.Pool;
let fake: StripeFake;
let closeFake: () => Promise<void>;
let temporal: TemporalHarness;
let api: ApiHarness;
let apiMetrics: MetricsServer;
let workerMetrics: MetricsServer;
let tenant: Tenant;
let sales: string;
let admin: string;
const receiver = new WebhookReceiver();
const logLines: Record<string, unknown>[] = [];
const syncRunLag = { organizationId: '', provider: 'accounting', lagSeconds: 4242 };

const scrape = async (server: MetricsServer) => {
  const res = await fetch(server.url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
};

beforeAll(async () => {
  owner = ownerPool();
  fake = new StripeFake({ apiKeys: [STRIPE_KEY] });
  const started = await fake.start();
  closeFake = started.close;
  await receiver.start();
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  syncRunLag.organizationId = tenant.id;

  temporal = await startTemporalHarness();
  const workerRegistry = createMetricsRegistry('worker');
  const metrics = createWorkerMetrics(workerRegistry, { operations: operationsFrom(temporal.orm.em), syncRunLag: async () => [syncRunLag], subdomains: subdomainsFrom(temporal.orm.em) });
  const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _encoding, done) => (logLines.push(JSON.parse(chunk.toString())), done()) }));
  await temporal.startWorker({
    payments: createStripeClient({ secretKey: STRIPE_KEY, baseUrl: started.url }),
    // The narrow development allowance (loopback receivers only); the guard stays on for the rest.
    webhooks: { cipher: new CredentialCipher(CIPHER_KEY), allowPrivateNetworks: false, allowLoopback: true },
    metrics,
    logger,
  });
  workerMetrics = await serveMetrics(workerRegistry, { host: '127.0.0.1', port: 0 });

  const apiRegistry = createMetricsRegistry('api');
  api = await startApi({
    events: temporal.dispatcher,
    metrics: createRequestMetrics(apiRegistry),
    env: { PAYMENTS_SECRET_KEY: STRIPE_KEY, CREDENTIAL_ENCRYPTION_KEY: CIPHER_KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' },
  });
  apiMetrics = await serveMetrics(apiRegistry, { host: '127.0.0.1', port: 0 });
  sales = await api.tokenFor(tenant.users.sales!);
  admin = await api.tokenFor(tenant.users.admin!);
}, 120_000);
afterAll(async () => {
  await api?.close();
  await temporal?.close();
  await apiMetrics?.close();
  await workerMetrics?.close();
  await receiver.close();
  await closeFake?.();
  await owner?.end();
});

/** `finished`: the approval's workflow ended; a failed leg instead waits for its repair (D19), so then only its sync record is awaited. */
async function approvedQuote(until: 'finished' | 'leg failed' = 'finished'): Promise<{ quoteId: string; requestId: string }> {
  const maker = { api, temporal, sales };
  if (until === 'finished') {
    const { quote_id: quoteId, requestId } = await quotes.approvedQuote(maker, quotes.newCustomer('Rae Quinn'));
    return { quoteId, requestId };
  }
  const { quote_id: quoteId } = await quotes.keptQuote(maker, quotes.newCustomer('Rae Quinn'));
  const requestId = await quotes.approve(maker, quoteId);
  const status = async () => (await owner.query(`select status from sync_records where quote_id = $1 and provider = 'PAYMENTS'`, [quoteId])).rows[0]?.status as string | undefined;
  await waitUntil('the payments leg to fail', async () => (await status()) === 'FAILED', { intervalMs: 100 });
  return { quoteId, requestId };
}

describe('the API\'s /metrics', () => {
  it('counts requests by route pattern and status with their latency, and rate-limit refusals; never a path\'s ids', async () => {
    const missingQuote = randomUUID();
    const strayPath = `/no-such-page-${randomUUID()}`;
    for (let i = 0; i < 2; i++) expect((await api.request('/api/health')).status).toBe(200);
    expect((await api.request(`/api/v1/quotes/${missingQuote}`, { token: sales })).status).toBe(404);
    expect((await api.request(`/api/v1/quotes/${missingQuote}`)).status).toBe(401);
    expect((await api.request(strayPath)).status).toBe(404);
    // Section 8: ten failed logins for one identity, then 429.
    const login = { subdomain: tenant.subdomain, email: `nobody-${randomUUID()}@example.test`, password: 'not-the-password' };
    for (let i = 0; i < 10; i++) expect((await api.request('/api/v1/auth/login', { method: 'POST', json: login })).status).toBe(401);
    expect((await api.request('/api/v1/auth/login', { method: 'POST', json: login })).status).toBe(429);

    const res = await fetch(apiMetrics.url);
    const text = await res.text();
    const samples = parseExposition(text);
    expect(sampleValue(samples, 'shade_http_requests_total', { method: 'GET', route: '/api/health', status: '200' })).toBe(2);
    expect(sampleValue(samples, 'shade_http_requests_total', { method: 'GET', route: '/api/v1/quotes/:id', status: '404' })).toBe(1);
    // Refused before routing (the bearer guard), and the stray path: one label, never the path.
    expect(sampleValue(samples, 'shade_http_requests_total', { method: 'GET', route: 'unmatched', status: '401' })).toBe(1);
    expect(sampleValue(samples, 'shade_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sampleValue(samples, 'shade_http_requests_total', { method: 'POST', route: '/api/v1/auth/login', status: '401' })).toBe(10);
    expect(sampleValue(samples, 'shade_rate_limit_refusals_total', { route: '/api/v1/auth/login' })).toBe(1);
    expect(sampleValue(samples, 'shade_http_request_duration_seconds_count', { method: 'GET', route: '/api/health' })).toBe(2);
    expect(sampleValue(samples, 'shade_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/health', le: '+Inf' })).toBe(2);
    expect(sampleValue(samples, 'shade_http_request_duration_seconds_sum', { method: 'GET', route: '/api/health' })).toBeGreaterThan(0);
    // Every sample says which process it is from; the Node.js process metrics are there too.
    expect(samples.filter((s) => s.name.startsWith('shade_')).every((s) => s.labels.process === 'api')).toBe(true);
    expect(sampleValue(samples, 'nodejs_heap_size_used_bytes', { process: 'api' })).toBeGreaterThan(0);
    expect(text).not.toContain(missingQuote);
    expect(text).not.toContain(strayPath);
  });

  it('labels one success and one error of each interface (/api/, /v1/ REST, GraphQL) by its route; no 2xx is ever unmatched', async () => {
    const before = await scrape(apiMetrics);
    const requested = [
      { method: 'GET', route: '/api/v1/quotes', status: '200', res: await api.request('/api/v1/quotes', { token: sales }) },
      { method: 'GET', route: '/api/v1/quotes/:id', status: '404', res: await api.request(`/api/v1/quotes/${randomUUID()}`, { token: sales }) },
      { method: 'GET', route: '/v1/fsm/jobs', status: '200', res: await api.request('/v1/fsm/jobs', { token: sales }) },
      { method: 'GET', route: '/v1/fsm/jobs/:job_id', status: '404', res: await api.request(`/v1/fsm/jobs/${randomUUID()}`, { token: sales }) },
      { method: 'POST', route: '/v1/graphql', status: '200', res: await api.request('/v1/graphql', { method: 'POST', token: admin, json: { query: '{ workOrders(first: 1) { nodes { id } } }' } }) },
      // GraphQL over HTTP answers a document it cannot parse 400 when asked for its own media type.
      { method: 'POST', route: '/v1/graphql', status: '400', res: await api.request('/v1/graphql', { method: 'POST', token: admin, headers: { accept: 'application/graphql-response+json' }, json: { query: '{ workOrders(' } }) },
      // The reference page's files: once a static folder mounted on /docs/assets, counted unmatched.
      { method: 'GET', route: '/docs/assets/:asset', status: '200', res: await api.request('/docs/assets/swagger-ui.css') },
    ];
    for (const r of requested) expect({ route: r.route, status: String(r.res.status) }).toEqual({ route: r.route, status: r.status });
    // The counter moves on `finish`, which may come just after the client has its answer.
    const increase = (samples: ReturnType<typeof parseExposition>, r: (typeof requested)[number]) =>
      (sampleValue(samples, 'shade_http_requests_total', { method: r.method, route: r.route, status: r.status }) ?? 0) - (sampleValue(before, 'shade_http_requests_total', { method: r.method, route: r.route, status: r.status }) ?? 0);
    let after = await scrape(apiMetrics);
    await waitUntil('every request to be counted', async () => {
      after = await scrape(apiMetrics);
      return requested.every((r) => increase(after, r) >= 1);
    }, { intervalMs: 20 });
    for (const r of requested) expect({ route: r.route, status: r.status, increase: increase(after, r) }).toEqual({ route: r.route, status: r.status, increase: 1 });
    const unmatchedSuccesses = after.filter((s) => s.name === 'shade_http_requests_total' && s.labels.route === 'unmatched' && /^[23]/.test(s.labels.status ?? ''));
    expect(unmatchedSuccesses).toEqual([]);
  });

  it('is served only on its own port: the API itself has no /metrics', async () => {
    expect((await api.request('/metrics')).status).toBe(404);
    expect(apiMetrics.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await fetch(apiMetrics.url.replace(/\/metrics$/, '/other'))).status).toBe(404);
    expect((await fetch(apiMetrics.url, { method: 'POST' })).status).toBe(404);
  });
});

describe('the worker\'s /metrics and log lines', () => {
  it('counts provider calls and webhook deliveries by outcome; an exhausted delivery is failed to an operator, with its quote and request id', async () => {
    const subscribed = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['quote.approved'], description: 'metrics test receiver' } });
    expect(subscribed.status).toBe(201);
    const endpointId = ((await subscribed.json()) as { id: string }).id;
    // Every attempt fails (5 of them, section 6.3): the delivery is exhausted.
    receiver.script(...Array.from({ length: 5 }, () => ({ status: 503 })));
    const { quoteId, requestId } = await approvedQuote();
    const { rows } = await owner.query<{ event_id: string; id: string }>('select event_id, id from webhook_deliveries where endpoint_id = $1', [endpointId]);
    expect(rows).toHaveLength(1);
    expect(await deliverySettled(owner, { endpointId, eventId: rows[0]!.event_id })).toMatchObject({ status: 'failed', attempts: 5 });
    const delivery = temporal.client.workflow.getHandle(endpointDeliveryWorkflowId(endpointId));
    const described = await delivery.describe();
    expect(described.searchAttributes).toMatchObject({ OrganizationId: [tenant.id] });
    // The delivery's own event names its quote (a delivery workflow carries a whole endpoint, so its QuoteId cannot).
    const event = (await owner.query<{ quote_id: string }>(`select envelope->'data'->>'quote_id' as quote_id from outbox_events where id = $1`, [rows[0]!.event_id])).rows[0]!;
    expect(event.quote_id).toBe(quoteId);
    const approval = await temporal.client.workflow.getHandle(approvalWorkflowId(quoteId)).describe();
    expect(approval.memo).toMatchObject({ [REQUEST_ID_MEMO]: requestId });

    const samples = await scrape(workerMetrics);
    expect(sampleValue(samples, 'shade_provider_calls_total', { provider: 'payments', outcome: 'succeeded' })).toBe(1);
    expect(sampleValue(samples, 'shade_webhook_delivery_attempts_total', { outcome: 'retryable_failure' })).toBe(5);
    expect(sampleValue(samples, 'shade_webhook_deliveries_total', { outcome: 'failed' })).toBe(1);

    // The activity's log lines carry the workflow's ids and the business ids.
    const written = logLines.find((l) => l.msg === 'provider write succeeded' && l.quote_id === quoteId);
    expect(written).toMatchObject({ workflow_id: approvalWorkflowId(quoteId), run_id: expect.any(String), organization_id: tenant.id, activity_type: 'writePaymentsInvoice', provider: 'PAYMENTS' });
    const failed = logLines.find((l) => l.msg === 'webhook delivery failed' && l.delivery_id === rows[0]!.id);
    expect(failed).toMatchObject({ level: 'warn', workflow_id: delivery.workflowId, run_id: expect.any(String), organization_id: tenant.id, delivery_status: 'failed' });
  });

  it('reads what the alerts watch: outbox lag, legs awaiting repair, disabled endpoints, sync runs\' lag; and counts refused provider calls', async () => {
    fake.faults.inject({ method: 'POST', path: '/v1/invoices', times: 5, action: faults.status(400) });
    const { quoteId } = await approvedQuote('leg failed');
    fake.faults.clear();
    expect((await owner.query(`select status from sync_records where quote_id = $1 and provider = 'PAYMENTS'`, [quoteId])).rows[0].status).toBe('FAILED');
    const failedLeg = logLines.find((l) => l.msg === 'provider leg failed: its sync record is FAILED and awaits a repair' && l.quote_id === quoteId);
    expect(failedLeg).toMatchObject({ level: 'warn', workflow_id: approvalWorkflowId(quoteId), provider: 'PAYMENTS' });

    // An event committed ten minutes ago and never dispatched (its relay is not running here).
    const eventId = randomUUID();
    const envelope = { event: 'quote.sent', id: eventId, organization_id: tenant.id, created_at: new Date(Date.now() - 600_000).toISOString(), data: {} };
    await owner.query(`insert into outbox_events (id, organization_id, event, envelope, payload, created_at) values ($1, $2, 'quote.sent', $3::jsonb, $3, now() - interval '600 seconds')`, [eventId, tenant.id, JSON.stringify(envelope)]);
    await owner.query(`update webhook_endpoints set status = 'disabled', disabled_at = now(), disabled_reason = 'metrics test' where organization_id = $1`, [tenant.id]);
    try {
      const samples = await scrape(workerMetrics);
      expect(sampleValue(samples, 'shade_provider_calls_total', { provider: 'payments', outcome: 'refused' })).toBe(1);
      // Each per-tenant series names the tenant by its subdomain too, as operators do.
      expect(sampleValue(samples, 'shade_legs_awaiting_repair', { organization_id: tenant.id, subdomain: tenant.subdomain })).toBe(1);
      expect(sampleValue(samples, 'shade_webhook_endpoints_disabled', { organization_id: tenant.id, subdomain: tenant.subdomain })).toBe(1);
      expect(sampleValue(samples, 'shade_outbox_lag_seconds')).toBeGreaterThanOrEqual(600);
      expect(sampleValue(samples, 'shade_outbox_undispatched_events')).toBeGreaterThanOrEqual(1);
      expect(sampleValue(samples, 'shade_sync_run_lag_seconds', { organization_id: tenant.id, subdomain: tenant.subdomain, provider: 'accounting' })).toBe(4242);
      expect(sampleValue(samples, 'shade_operations_read_errors_total')).toBe(0);
    } finally {
      await owner.query('update outbox_events set dispatched_at = now() where id = $1', [eventId]);
    }
  });

  it('exports legs awaiting repair and disabled endpoints as 0 for a tenant with none, rather than leaving its series out', async () => {
    const quiet = await createTenant(owner, { admin: 'ADMIN' });
    const samples = await scrape(workerMetrics);
    // A tenant made after the worker's last scrape is named as well (its subdomain read anew).
    expect(sampleValue(samples, 'shade_legs_awaiting_repair', { organization_id: quiet.id, subdomain: quiet.subdomain })).toBe(0);
    expect(sampleValue(samples, 'shade_webhook_endpoints_disabled', { organization_id: quiet.id, subdomain: quiet.subdomain })).toBe(0);
    expect(sampleValue(samples, 'shade_outbox_lag_seconds')).toBeDefined();
    expect(sampleValue(samples, 'shade_outbox_undispatched_events')).toBeDefined();
  });

  it('reads the sync runs\' lag through the worker\'s door by default: nothing (no error) while provider_sync_runs does not exist', async () => {
    const exists = (await owner.query(`select to_regclass('public.provider_sync_runs') is not null as exists`)).rows[0].exists as boolean;
    const lag = await syncRunLagFrom(temporal.orm.em)();
    if (!exists) expect(lag).toEqual([]);
    for (const row of lag) expect(row).toEqual({ organizationId: expect.stringMatching(/^[0-9a-f-]{36}$/), provider: expect.stringMatching(/^(payments|accounting|crm)$/), lagSeconds: expect.any(Number) });
  });
});
