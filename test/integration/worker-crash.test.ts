import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OwnDatabase } from '../support/own-database';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { WorkerProcesses } from '../../scripts/harness/worker-processes';
import { appDatabaseUrl } from '../../db/database-urls';
import { createOrm } from '../../db/orm';
import { createLogger } from '../../infra/runtime/logger';
import { EventDispatcher } from '../../infra/events/dispatcher';
import { WORKFLOW_TYPES, approvalWorkflowId, changeOrderInvoiceWorkflowId, type ProviderSyncWorkflow } from '../../infra/temporal/contracts';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { sandboxUser } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { SYNC_INTERVAL_NEVER_IN_A_TEST, TEST_TIMING } from '../../scripts/harness/temporal-harness';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { quoteTax } from '../../domain/tax/quote-tax';

/**
 * The worker process (worker/main.ts, as `npm start` runs it) is killed in the middle of the
 * fan-out, after the payments provider performed the last write and before we recorded it, and
 * a new worker takes over. On a database of its own, so its outbox relay sees only this test.
 */
const KEY = 'sk_test_workerCrash0001';
const own = new OwnDatabase('crash');
const database = own.url;
const taskQueue = `crash-${randomBytes(4).toString('hex')}`;
let owner: pg.Pool;
let orm: MikroORM;
let api: ApiHarness;
let fake: StripeFake;
let fakeUrl: string;
let closeFake: () => Promise<void>;
let connection: Connection;
let client: Client;
// The payments sync schedule the first invoice makes never fires mid-test: the D18 case below
// counts what its own run applies, and a scheduled run across a quarter hour applied it first.
const workers = new WorkerProcesses(() => ({
  DATABASE_URL: database,
  TEMPORAL_TASK_QUEUE: taskQueue,
  PAYMENTS_SECRET_KEY: KEY,
  PAYMENTS_API_BASE_URL: fakeUrl,
  PROVIDER_SYNC_INTERVAL: SYNC_INTERVAL_NEVER_IN_A_TEST,
}));

beforeAll(async () => {
  await own.create();
  owner = new pg.Pool({ connectionString: database, max: 2 });
  fake = new StripeFake({ apiKeys: [KEY] });
  ({ url: fakeUrl, close: closeFake } = await fake.start());
  orm = await createOrm({ url: appDatabaseUrl(database, process.env.DATABASE_APP_PASSWORD!), poolMax: 3 });
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  const events = new EventDispatcher(client, orm.em, { taskQueue, timing: TEST_TIMING, logger: createLogger('silent') });
  api = await startApi({ events, env: { DATABASE_URL: database } });
}, 120_000);
afterAll(async () => {
  workers.killAll();
  await api?.close();
  await orm?.close(true);
  await connection?.close();
  await closeFake?.();
  await owner?.end();
  await own.drop();
});

describe('a worker killed mid fan-out', () => {
  it('is replaced, and the approval (lean: the leg records its own row) still ends with exactly one invoice and a SUCCEEDED sync row', async () => {
    const first = workers.start();
    const token = await api.tokenFor(await sandboxUser(owner, 'sandbox', 'sales@sandbox.test'));
    const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true }) });
    const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
    // The provider finalises at once but answers only 10 s later: the worker dies in between.
    fake.faults.inject({ method: 'POST', path: '/v1/invoices/*/finalize', times: 1, action: faults.delay(10_000) });
    expect((await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token })).status).toBe(200);

    const invoicesOf = () => fake.inspect.invoices(KEY).filter((i) => (i.metadata as Record<string, string>).quote_id === quoteId);
    for (let i = 0; i < 600 && invoicesOf()[0]?.status !== 'open'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(invoicesOf()[0]?.status).toBe('open');
    const before = await owner.query(`select status from sync_records where quote_id = $1 and provider = 'PAYMENTS'`, [quoteId]);
    expect(before.rows[0].status).toBe('PENDING');
    await workers.crash(first);

    workers.start();
    const approval = client.workflow.getHandle(approvalWorkflowId(quoteId));
    await approval.result();
    // The lean shape: the plan a local activity, the leg one activity that records its own row.
    const scheduled = ((await approval.fetchHistory()).events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
    // ... and, after it, D24's courtesy email of the invoice link (it sends only to a customer who accepted on the quote's page).
    expect(scheduled).toEqual(['writePaymentsInvoice', 'emailInvoiceToCustomer']);
    expect(invoicesOf()).toHaveLength(1);
    expect(fake.requests.find('POST', '/v1/invoices/*/finalize').length).toBeGreaterThanOrEqual(2);
    const row = (await owner.query(`select status, attempts, external_id from sync_records where quote_id = $1 and provider = 'PAYMENTS'`, [quoteId])).rows[0];
    expect(row).toMatchObject({ status: 'SUCCEEDED', attempts: 2, external_id: invoicesOf()[0]!.id });
    expect(fake.inspect.customers(KEY)).toHaveLength(1);
    expect(fake.inspect.invoiceItems(KEY)).toHaveLength(3);
  }, 120_000);

  it('D12: killed mid change-order invoice, the change order is still invoiced exactly once, and quote.approved is never fired again', async () => {
    // Whatever worker the test above left running stops first: the one started below is killed mid-leg.
    workers.killAll();
    const first = workers.start();
    const sales = await api.tokenFor(await sandboxUser(owner, 'sandbox', 'sales@sandbox.test'));
    const admin = await api.tokenFor(await sandboxUser(owner, 'sandbox', 'admin@sandbox.test'));
    const tech = await sandboxUser(owner, 'sandbox', 'tech@sandbox.test');
    const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: sales, json: twoWindows({ persist: true }) });
    const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
    expect((await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token: sales })).status).toBe(200);
    await client.workflow.getHandle(approvalWorkflowId(quoteId)).result();

    const job = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { quoteId, assignedTechnicianId: tech.id } });
    const jobId = ((await job.json()) as { id: string }).id;
    const raised = await api.request(`/v1/fsm/jobs/${jobId}/change-orders`, { method: 'POST', token: admin, json: { reason: 'Two more hours to reroute a motor cable', labour_hours: 2 } });
    expect(raised.status).toBe(201);
    const changeOrder = (await raised.json()) as { change_order_id: string; delta: { sell: number } };
    fake.faults.inject({ method: 'POST', path: '/v1/invoices/*/finalize', times: 1, action: faults.delay(10_000) });
    const approved = await api.request(`/v1/fsm/change-orders/${changeOrder.change_order_id}/approve`, { method: 'POST', token: admin, json: { approved_by: { name: 'Jordan Rivera', role: 'Homeowner', method: 'in_person' } } });
    expect(approved.status).toBe(200);

    const invoicesOf = () => fake.inspect.invoices(KEY).filter((i) => (i.metadata as Record<string, string>).change_order_id === changeOrder.change_order_id);
    for (let i = 0; i < 600 && invoicesOf()[0]?.status !== 'open'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(invoicesOf()[0]?.status).toBe('open');
    await workers.crash(first);

    workers.start();
    const outcome = await client.workflow.getHandle(changeOrderInvoiceWorkflowId(changeOrder.change_order_id)).result();
    expect(outcome).toMatchObject({ status: 'SUCCEEDED', externalId: invoicesOf()[0]!.id });
    expect(invoicesOf()).toHaveLength(1);
    const invoice = invoicesOf()[0]!;
    // Net 14, the delta and its 13 % tax line.
    const fields = invoice as unknown as { collection_method: string; created: number; due_date: number };
    expect(fields.collection_method).toBe('send_invoice');
    expect(fields.due_date - fields.created).toBe(14 * 86_400);
    const sellCents = Math.round(changeOrder.delta.sell * 100);
    const items = fake.inspect.invoiceItems(KEY).filter((item) => item.invoice === invoice.id).map((item) => Number(item.amount)).sort((x, y) => x - y);
    expect(items).toEqual([quoteTax(null, sellCents).total_cents, sellCents].sort((x, y) => x - y));
    const row = (await owner.query(`select status, attempts, external_id, local_id from sync_records where entity_type = 'change_order_invoice' and quote_id = $1`, [quoteId])).rows;
    expect(row).toEqual([{ status: 'SUCCEEDED', attempts: 2, external_id: invoice.id, local_id: changeOrder.change_order_id }]);
    const approvals = await owner.query(`select count(*)::int as n from outbox_events where event = 'quote.approved' and envelope->'data'->>'quote_id' = $1`, [quoteId]);
    expect(approvals.rows[0].n).toBe(1);
    // The quote's own invoice is untouched: still one.
    expect(fake.inspect.invoices(KEY).filter((i) => (i.metadata as Record<string, string>).quote_id === quoteId)).toHaveLength(2);
  }, 180_000);
  it('D18: a sync run killed mid-page resumes on the next worker without skipping or repeating an applied change', async () => {
    const worker = workers.latestRunning() ?? workers.start();
    const organizationId = (await owner.query(`select id from organizations where subdomain = 'sandbox'`)).rows[0].id as string;
    const token = await api.tokenFor(await sandboxUser(owner, 'sandbox', 'sales@sandbox.test'));
    const quotes: { id: string; invoice: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true }) });
      const id = ((await calc.json()) as { quote_id: string }).quote_id;
      expect((await api.request(`/api/v1/quotes/${id}/approve`, { method: 'POST', token })).status).toBe(200);
      await client.workflow.getHandle(approvalWorkflowId(id)).result();
      quotes.push({ id, invoice: (await owner.query(`select external_id from sync_records where quote_id = $1 and provider = 'PAYMENTS'`, [id])).rows[0].external_id });
    }
    // The scheduled runs so far (the worker's start, the first invoice) have ended.
    for (let i = 0; i < 300 && (await owner.query('select 1 from provider_sync_runs where finished_at is null')).rows.length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    for (const quote of quotes) fake.payInvoiceAsCustomer(KEY, quote.invoice); // no webhook: the sync must bring them back
    const paidEvents = fake.inspect.events(KEY).filter((e) => e.type === 'invoice.paid' && quotes.some((q) => q.invoice === (e.data.object as { id: string }).id));
    expect(paidEvents).toHaveLength(3);

    // The page is read by the provider, and answered only after the worker is gone.
    fake.faults.inject({ method: 'GET', path: '/v1/events', times: 1, action: faults.delay(8_000) });
    const listedBefore = fake.requests.find('GET', '/v1/events').length;
    const workflowId = `provider-sync-${organizationId}-payments-crash-test`;
    const run = client.workflow.execute<ProviderSyncWorkflow>(WORKFLOW_TYPES.providerSync, {
      taskQueue,
      workflowId,
      args: [{ organizationId, provider: 'PAYMENTS', timing: { retryScale: 0.1 } }],
    });
    for (let i = 0; i < 300 && fake.requests.find('GET', '/v1/events').length === listedBefore; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fake.requests.find('GET', '/v1/events').length).toBeGreaterThan(listedBefore);
    await workers.crash(worker);
    expect((await owner.query('select count(*)::int as n from quotes where id = any($1) and paid_at is not null', [quotes.map((q) => q.id)])).rows[0].n).toBe(0);

    workers.start();
    const result = await run;
    expect(result).toMatchObject({ applied: 3, error: null });
    const row = (await owner.query('select applied, error, finished_at, watermark_after from provider_sync_runs where workflow_id = $1', [workflowId])).rows[0];
    expect(row).toMatchObject({ applied: 3, error: null });
    expect(row.finished_at).not.toBeNull();
    // Each paid event applied exactly once, each quote paid at its event's time.
    const handled = await owner.query('select event_id, handled from payments_webhook_events where event_id = any($1)', [paidEvents.map((e) => e.id)]);
    expect(handled.rows.map((r) => r.handled)).toEqual([true, true, true]);
    for (const quote of quotes) expect((await owner.query('select paid_at from quotes where id = $1', [quote.id])).rows[0].paid_at).not.toBeNull();
    const state = (await owner.query(`select watermark from provider_sync_state where organization_id = $1 and provider = 'PAYMENTS'`, [organizationId])).rows[0].watermark as string;
    expect(fake.inspect.events(KEY).map((e) => e.id)).toContain(state);
    expect(row.watermark_after).toBe(state);
    // Nothing left after the watermark that the run skipped: a next run applies nothing.
    const next = await client.workflow.execute<ProviderSyncWorkflow>(WORKFLOW_TYPES.providerSync, { taskQueue, workflowId: `${workflowId}-next`, args: [{ organizationId, provider: 'PAYMENTS', timing: TEST_TIMING }] });
    expect(next).toMatchObject({ applied: 0, error: null });
  }, 120_000);
});
