import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { startIntegrationFakes, visitConsent, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { freePort } from '../../scripts/infra/free-port';
import { projectRoot } from '../../scripts/infra/paths';
import { SERVICE_NODE_ARGS } from '../../scripts/infra/processes';
import { TokenService } from '../../api/auth/tokens';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { approvalWorkflowId, type QuoteApprovalWorkflow } from '../../infra/temporal/contracts';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { parseExposition, sampleValue } from '../support/prometheus-text';
import { waitUntil } from '../../scripts/harness/wait-until';
import { OwnDatabase } from '../support/own-database';

/**
 * End to end as deployed: the API and the worker run as their own processes, started
 * the way `npm start` starts them (the tracing preload first), with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at a local OTLP receiver (an OpenTelemetry collector's endpoint, on loopback). One
 * approval, with all three providers connected (local fakes), makes one trace: the HTTP request,
 * the workflow it starts, each leg's activity, and each provider's HTTP calls inside it.
 */
const STRIPE_KEY = 'sk_test_tracingSuite0001';
const taskQueue = `tracing-${randomUUID()}`;
const otlp = new OtlpReceiver();
const stripe = new StripeFake({ apiKeys: [STRIPE_KEY] });
let closeStripe: () => Promise<void>;
let stripeUrl: string;
let fakes: IntegrationFakes;
let owner: pg.Pool;
let tenant: Tenant;
let apiUrl: string;
let apiMetricsUrl: string;
let workerMetricsUrl: string;
let connection: Connection;
let client: Client;
const processes: { name: string; child: ChildProcess; output: () => string }[] = [];

function startProcess(name: string, entry: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [...SERVICE_NODE_ARGS, entry], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const started = { name, child, output: () => output };
  processes.push(started);
  return started;
}

/** Waits as long as the stack may need under load, showing the processes' output on a timeout. */
const until = <T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false) =>
  waitUntil(what, probe, { timeoutMs: 90_000, intervalMs: 200, detail: () => processes.map((p) => `--- ${p.name}\n${p.output().slice(-4000)}`).join('\n') });

const request = (path: string, init: RequestInit & { token?: string; json?: unknown } = {}) => {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  return fetch(apiUrl + path, { ...init, headers, body, redirect: 'manual' });
};

/** Connect, consent at the fake provider, and come back to our callback, as a browser would. */
async function consent(token: string, slug: 'accounting' | 'crm') {
  const connect = await request(`/api/v1/integrations/${slug}/connect`, { method: 'POST', token });
  expect(connect.status).toBe(200);
  const back = await visitConsent(((await connect.json()) as { authorize_url: string }).authorize_url);
  expect((await request(`${back.pathname}${back.search}`)).status).toBe(200);
}

// Its worker process runs the outbox relay.
const database = new OwnDatabase('tracing');

beforeAll(async () => {
  await database.create();
  await otlp.start();
  const stripeStarted = await stripe.start();
  closeStripe = stripeStarted.close;
  stripeUrl = stripeStarted.url;
  fakes = await startIntegrationFakes();
  owner = ownerPool();
  const [apiPort, apiMetricsPort, workerMetricsPort] = [await freePort(), await freePort(), await freePort()];
  apiUrl = `http://127.0.0.1:${apiPort}`;
  apiMetricsUrl = `http://127.0.0.1:${apiMetricsPort}/metrics`;
  workerMetricsUrl = `http://127.0.0.1:${workerMetricsPort}/metrics`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: '',
    LOG_LEVEL: 'debug',
    PORT: String(apiPort),
    METRICS_PORT: String(apiMetricsPort),
    WORKER_METRICS_PORT: String(workerMetricsPort),
    TEMPORAL_TASK_QUEUE: taskQueue,
    PAYMENTS_SECRET_KEY: STRIPE_KEY,
    PAYMENTS_API_BASE_URL: stripeStarted.url,
    ...fakes.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    // Export batches every 100 ms rather than every 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  const worker = startProcess('worker', 'worker/main.ts', env);
  startProcess('api', 'api/main.ts', env);
  await until('the worker to poll', () => worker.output().includes('"msg":"worker polling"'));
  await until('the API to answer', () => fetch(`${apiUrl}/api/health`).then((r) => r.status === 200, () => false));

  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
}, 180_000);

afterAll(async () => {
  for (const { child } of processes) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000).unref())]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  await connection?.close();
  await owner?.end();
  await fakes?.close();
  await closeStripe?.();
  await otlp.close();
  await database.drop();
}, 60_000);

describe('one approval, one trace (OTLP to a local collector endpoint)', () => {
  it('links the request, the workflow, the three legs and each provider\'s calls', async () => {
    const tokens = new TokenService(process.env.AUTH_TOKEN_SECRET!);
    const admin = await tokens.issue({ userId: tenant.users.admin!.id, organizationId: tenant.id, role: 'ADMIN' });
    const sales = await tokens.issue({ userId: tenant.users.sales!.id, organizationId: tenant.id, role: 'SALES' });
    await consent(admin, 'accounting');
    await consent(admin, 'crm');

    const calc = await request('/api/v1/quotes/calculate', { method: 'POST', token: sales, json: twoWindows({ persist: true, customer: { name: 'Tova Reyes', email: `tova-${randomUUID()}@example.test` } }) });
    expect(calc.status).toBe(200);
    const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
    const approved = await request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token: sales });
    expect(approved.status).toBe(200);
    const requestId = approved.headers.get('x-request-id')!;
    const result = await client.workflow.getHandle<QuoteApprovalWorkflow>(approvalWorkflowId(quoteId)).result();
    expect(result.legs.map((leg) => [leg.provider, leg.status]).sort()).toEqual([['ACCOUNTING', 'SUCCEEDED'], ['CRM', 'SUCCEEDED'], ['PAYMENTS', 'SUCCEEDED']]);

    // The request's server span, in the API's service.
    const server = await until('the approval request\'s span', () =>
      otlp.spans.find((s) => s.kind === 2 && String(s.attributes['http.target'] ?? s.attributes['url.path'] ?? '').endsWith(`/quotes/${quoteId}/approve`)),
    );
    expect(server.service).toBe('shade-office-api');
    const inTrace = () => otlp.spans.filter((s) => s.traceId === server.traceId);
    const named = (name: string) => inTrace().find((s) => s.name === name);

    const start = await until('the workflow start span', () => named('StartWorkflow:quoteApproval'));
    expect(otlp.descendsFrom(start, server)).toBe(true);
    const run = await until('the workflow\'s span', () => named('RunWorkflow:quoteApproval'));
    expect(otlp.descendsFrom(run, start)).toBe(true);
    expect(run.service).toBe('shade-office-worker');

    const legs: Record<string, { activity: string; fakeUrl: string }> = {
      PAYMENTS: { activity: 'writePaymentsInvoice', fakeUrl: stripeUrl },
      ACCOUNTING: { activity: 'writeAccountingInvoice', fakeUrl: fakes.env.ACCOUNTING_API_BASE_URL! },
      CRM: { activity: 'upsertCrmOpportunity', fakeUrl: fakes.env.CRM_LOGIN_URL! },
    };
    for (const [provider, leg] of Object.entries(legs)) {
      const activity: ReceivedSpan = await until(`the ${provider} leg's activity span`, () => named(`RunActivity:${leg.activity}`));
      expect({ provider, underWorkflow: otlp.descendsFrom(activity, run), service: activity.service }).toEqual({ provider, underWorkflow: true, service: 'shade-office-worker' });
      // Each provider call made inside the activity is an HTTP client span beneath it.
      const calls = await until(`the ${provider} provider's HTTP calls`, () => {
        const found = inTrace().filter((s) => s.kind === 3 && (s.attributes['http.method'] ?? s.attributes['http.request.method']) && otlp.descendsFrom(s, activity));
        return found.length > 0 ? found : undefined;
      });
      const port = new URL(leg.fakeUrl).port;
      expect({ provider, toItsProvider: calls.some((s) => String(s.attributes['http.url'] ?? s.attributes['url.full'] ?? '').includes(`:${port}/`)) }).toEqual({ provider, toItsProvider: true });
    }
    // And the database work of the legs (PostgreSQL instrumentation).
    expect(inTrace().some((s) => s.attributes['db.system'] === 'postgresql' && s.service === 'shade-office-worker')).toBe(true);

    // The SDK's log lines about the workflow (its logger, through pino) carry its ids and the request's.
    const worker = processes.find((p) => p.name === 'worker')!;
    const workflowLine = await until('a workflow log line of the approval', () =>
      worker
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === 'Workflow completed' && line.workflow_id === approvalWorkflowId(quoteId)),
    );
    expect(workflowLine).toMatchObject({ level: 'debug', run_id: expect.any(String), workflow_type: 'quoteApproval', request_id: requestId, quote_id: quoteId, organization_id: tenant.id, service: 'shade-office' });
  }, 120_000);

  it('serves both processes\' /metrics, the worker\'s with the Temporal runtime\'s own', async () => {
    const worker = parseExposition(await (await fetch(workerMetricsUrl)).text());
    expect(sampleValue(worker, 'shade_provider_calls_total', { provider: 'accounting', outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(worker.some((s) => s.name.startsWith('temporal_') && s.labels.task_queue === taskQueue)).toBe(true);
    const api = parseExposition(await (await fetch(apiMetricsUrl)).text());
    expect(sampleValue(api, 'shade_http_requests_total', { method: 'POST', route: '/api/v1/quotes/:id/approve', status: '200' })).toBe(1);
  });
});
