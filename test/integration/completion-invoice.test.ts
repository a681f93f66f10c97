import { opsInProcessOn } from '../support/ops-in-process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startPaymentsStack, type PaymentsStack } from '../../scripts/harness/approval-stack';
import { createTenant, giveRateCard, type Tenant } from '../../scripts/harness/owner-db';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import type { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { approve, newCustomer, type KeptQuote } from '../../scripts/harness/approved-quote';
import { approvalSettled, jobCompletionInvoiceSettled } from '../../scripts/harness/approval-progress';
import { jobCompletionInvoiceWorkflowId } from '../../infra/temporal/contracts';
import Decimal from 'decimal.js';
import { randomUUID } from 'node:crypto';
import { dollars } from '../../domain/money';
import { example, exampleInvoice, pricingSection, statedCents, table } from '../support/pricing-doc';

/**
 * Issue 30, the completion invoice of document 001 sections 6.1-6.2, through the API, real
 * Temporal and the payments sandbox: the two worked examples of docs/pricing.md section 13 (a job
 * with the section 9 quote drawing beyond it; a service job billed for time and materials), D11's
 * service job completed without a customer (its invoice waiting, then issued once the office sets
 * one), D11's invoices the price book could not price (no price book, no STANDARD tier, a SKU no
 * revision prices: the job completes, its invoice waits for prices and `ops retry --job` prices it
 * once the price book is fixed), and the D19 repair of a refused completion invoice with `npm run ops`.
 */
const KEY = 'sk_test_completionInvoice00001';

let stack: PaymentsStack;
let stripe: StripeFake;
let tenant: Tenant;
let admin: string;
let tech: string;

beforeAll(async () => {
  stack = await startPaymentsStack({ key: KEY });
  stripe = stack.fake;
  tenant = stack.tenant;
  admin = await stack.api.tokenFor(tenant.users.admin!);
  tech = await stack.api.tokenFor(tenant.users.tech!);
}, 120_000);
afterEach(() => stripe.faults.clear());
afterAll(() => stack.close());

/** `npm run ops -- ...` as an operator runs it, against this run's database, Temporal and worker's task queue. */
const ops = (...args: string[]) => opsInProcessOn(stack.temporal.taskQueue)(...args);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const call = async (method: string, path: string, token: string, json?: unknown) => stack.api.request(path, { method, token, ...(json === undefined ? {} : { json }) });

/** The quote of docs/pricing.md section 9, kept and approved, its legs settled. */
async function sectionNineQuote(): Promise<KeptQuote> {
  const res = await call('POST', '/api/v1/quotes/calculate', admin, {
    laborTierCode: 'PREMIUM',
    persist: true,
    customer: newCustomer('Morgan Ellis'),
    lineItems: [
      { reference: 'Living room', widthInches: 48.5, dropInches: 72, quantity: 2, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD', motorSkuCode: 'MTR-BATTERY', trimSkuCode: 'TRIM-CASSETTE' },
      { reference: 'Bedroom', widthInches: 35.25, dropInches: 60, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD', trimSkuCode: 'TRIM-FASCIA' },
    ],
  });
  expect(res.status).toBe(200);
  const quote = (await res.json()) as KeptQuote;
  expect(quote.totals.amount_cents).toBe(261099);
  await approve({ api: stack.api, temporal: stack.temporal, sales: admin }, quote.quote_id);
  expect((await approvalSettled(stack.temporal.client, quote.quote_id)).state).toBe('completed');
  return quote;
}

async function newJob(body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', '/api/v1/work-orders', admin, { assignedTechnicianId: tenant.users.tech!.id, scheduledDate: '2026-12-03', siteAddress: `${Math.random()} Birch Ave`, ...body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function draw(jobId: string, sku: string, quantity: string, vanId?: string): Promise<void> {
  const res = await call('POST', `/v1/fsm/jobs/${jobId}/material-draws`, tech, { sku, quantity, ...(vanId ? { van_id: vanId } : {}) });
  expect(res.status).toBe(201);
}

async function startJob(jobId: string): Promise<void> {
  for (const status of ['dispatched', 'in_progress']) expect((await call('PATCH', `/v1/fsm/jobs/${jobId}`, admin, { status })).status).toBe(200);
}

const complete = (jobId: string) => call('PATCH', `/v1/fsm/jobs/${jobId}`, tech, { status: 'complete' });

const invoicesAt = (jobId: string) => (stripe.inspect.invoices(KEY) as Json[]).filter((i) => i.metadata.job_id === jobId);
const quoteInvoiceAt = (quoteId: string) => (stripe.inspect.invoices(KEY) as Json[]).find((i) => i.metadata.quote_id === quoteId && !i.metadata.job_id && !i.metadata.change_order_id);
const amounts = (invoice: Json) => (invoice.lines.data as { amount: number; metadata: Record<string, string> }[]).map((l) => [l.metadata.is_tax === 'true' ? 'tax' : 'line', l.amount]);
const jobEvents = async (jobId: string): Promise<Json[]> =>
  (await stack.owner.query(`select envelope->'data' as data from outbox_events where event = 'invoice.generated' and envelope->'data'->>'sourceId' = $1 order by created_at, id`, [jobId])).rows.map((r) => r.data);
const syncRow = async (jobId: string) => (await stack.owner.query(`select status, attempts, external_id, quote_id from sync_records where entity_type = 'job_invoice' and local_id = $1`, [jobId])).rows[0];

/** The latest `erpSync` of the quote's own invoice as its approval announced it. */
const quoteErpSync = async (quoteId: string) =>
  (
    await stack.owner.query(
      `select envelope->'data'->'erpSync' as erp from outbox_events where event = 'invoice.generated' and envelope->'data'->>'sourceType' = 'quote' and envelope->'data'->>'quoteId' = $1
        order by created_at desc, id desc limit 1`,
      [quoteId],
    )
  ).rows[0]?.erp;
const NOT_APPLICABLE = { target: 'accounting', status: 'not_applicable' };
/** Ontario's HST on a subtotal in cents, half-up to the cent in integers (D25). */
const hstOf = (subtotal: number) => Math.floor((subtotal * 13 + 50) / 100);

/** The figures of docs/pricing.md section 13's worked examples, as the document states them. */
const EXAMPLE_A = exampleInvoice(13, 'Example A');
const EXAMPLE_B = exampleInvoice(13, 'Example B');
const invoiceLines = (stated: { lines: number[]; tax: number }) => [...stated.lines.map((cents) => ['line', cents]), ['tax', stated.tax]];
/** One MTR-WIRED at the sandbox's 0.35 (the quote's margin, and the floor), from example A's table. */
const MTR_WIRED_PRICE = (() => {
  const row = table(example(pricingSection(13), 'Example A')).rows.find((r) => r['SKU'] === 'MTR-WIRED')!;
  return statedCents(Object.values(row).at(-1)!);
})();

const EXAMPLE_A_PARTS = [
  { sku: 'HW-ROLLER-STD', quantity: '8', vanId: 'VAN-1' },
  { sku: 'MTR-BATTERY', quantity: '2', vanId: 'VAN-1' },
  { sku: 'TRIM-FASCIA', quantity: '3', vanId: 'VAN-1' },
  { sku: 'TRIM-FASCIA', quantity: '1.5', vanId: 'VAN-2' },
  { sku: 'MTR-WIRED', quantity: '1', vanId: 'VAN-2' },
];

describe('the completion invoice of a job (issue 30, document 001 sections 6.1-6.2)', () => {
  it('example A: a job with the section 9 quote; the quote invoice announced with partsConsumed; the draws beyond it one more invoice on the quote, net 14, with HST', async () => {
    const quote = await sectionNineQuote();
    const jobId = await newJob({ quoteId: quote.quote_id });
    await startJob(jobId);
    for (const part of EXAMPLE_A_PARTS) await draw(jobId, part.sku, part.quantity, part.vanId);
    expect((await complete(jobId)).status).toBe(200);
    expect(await jobCompletionInvoiceSettled(stack.temporal.client, jobId)).toMatchObject({ state: 'completed', outcome: { status: 'SUCCEEDED' } });

    // At the payments sandbox: the lines of docs/pricing.md section 13, example A, keyed by the job.
    const [extra, ...more] = invoicesAt(jobId);
    expect(more).toHaveLength(0);
    expect(amounts(extra)).toEqual(invoiceLines(EXAMPLE_A));
    expect(extra.total).toBe(EXAMPLE_A.total);
    expect(extra).toMatchObject({ status: 'open', collection_method: 'send_invoice', metadata: { quote_id: quote.quote_id, quote_number: String(quote.quote_number), job_id: jobId } });
    expect(extra.due_date - extra.created).toBe(14 * 86_400);
    expect(await syncRow(jobId)).toMatchObject({ status: 'SUCCEEDED', attempts: 1, external_id: extra.id, quote_id: quote.quote_id });

    // invoice.generated: the quote's invoice with the quote's own figures and the job's parts, then the extra one.
    const quoteInvoice = quoteInvoiceAt(quote.quote_id)!;
    const tax = Math.floor((261099 * 13 + 50) / 100);
    const [reconciled, beyond, ...others] = await jobEvents(jobId);
    expect(others).toHaveLength(0);
    expect(reconciled).toMatchObject({
      id: quoteInvoice.id,
      reference: `Q-${quote.quote_number}`,
      sourceType: 'job',
      sourceId: jobId,
      quoteId: quote.quote_id,
      totals: { subtotal: dollars(261099), taxTotal: dollars(tax), grandTotal: dollars(quoteInvoice.total), currency: 'CAD' },
      partsConsumed: EXAMPLE_A_PARTS,
    });
    expect(quoteInvoice.total).toBe(261099 + tax);
    expect(beyond).toMatchObject({
      id: extra.id,
      sourceType: 'job',
      sourceId: jobId,
      quoteId: quote.quote_id,
      totals: { subtotal: dollars(EXAMPLE_A.subtotal), taxTotal: dollars(EXAMPLE_A.tax), grandTotal: dollars(EXAMPLE_A.total), currency: 'CAD' },
      taxLines: [{ code: 'HST', rate: 0.13, amount: 42.55 }],
      partsConsumed: EXAMPLE_A_PARTS,
    });
    // The quote's own invoice carries the quote's accounting leg; accounting never receives the one beyond it.
    expect(reconciled.erpSync).toEqual(await quoteErpSync(quote.quote_id));
    expect(reconciled.erpSync).not.toEqual(NOT_APPLICABLE);
    expect(beyond.erpSync).toEqual(NOT_APPLICABLE);
    // Announced again, the quote's own invoice is a later revision of its event than every one
    // before it (its approval's, an erpSync correction); the one beyond it is its invoice's first.
    const earlier = (await stack.owner.query(`select (envelope->'data'->>'revision')::int as revision from outbox_events where event = 'invoice.generated' and envelope->'data'->>'id' = $1 and envelope->'data'->>'sourceType' = 'quote'`, [quoteInvoice.id])).rows.map((r) => r.revision as number);
    expect(earlier.length).toBeGreaterThan(0);
    expect(reconciled.revision).toBe(Math.max(...earlier) + 1);
    expect(beyond.revision).toBe(1);
    // The workflow carries the quote's number, as change-order invoices do.
    const described = await stack.temporal.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(jobId)).describe();
    expect(described.searchAttributes['QuoteNumber']).toEqual([quote.quote_number]);
    expect(described.searchAttributes['OrganizationSubdomain']).toEqual([tenant.subdomain]);
  }, 120_000);

  it('a job with a quote that drew nothing beyond it: the quote invoice is announced with the parts, and nothing more is billed', async () => {
    const quote = await sectionNineQuote();
    const jobId = await newJob({ quoteId: quote.quote_id });
    await startJob(jobId);
    await draw(jobId, 'MTR-BATTERY', '2', 'VAN-3');
    expect((await complete(jobId)).status).toBe(200);
    expect(await jobCompletionInvoiceSettled(stack.temporal.client, jobId)).toMatchObject({ state: 'completed', outcome: { status: 'SUCCEEDED' } });
    expect(invoicesAt(jobId)).toHaveLength(0);
    const events = await jobEvents(jobId);
    expect(events.map((e) => [e.id, e.partsConsumed])).toEqual([[quoteInvoiceAt(quote.quote_id)!.id, [{ sku: 'MTR-BATTERY', quantity: '2', vanId: 'VAN-3' }]]]);
  }, 120_000);

  it('example B: a service job with a customer: its time and materials are invoiced with its site region\'s GST', async () => {
    const customer = (await stack.owner.query<{ id: string }>(`insert into customers (organization_id, name, email) values ($1, 'Sam Ortiz', $2) returning id`, [tenant.id, `sam-${Date.now()}@example.test`])).rows[0]!.id;
    const jobId = await newJob({ customerId: customer });
    // The site is in Alberta (D25: a job without a quote takes its site's region).
    await stack.owner.query(`update sites set region = 'CA-AB' where id = (select site_id from work_orders where id = $1)`, [jobId]);
    await startJob(jobId);
    const ended = new Date(Date.now() - 3_600_000);
    const started = new Date(ended.getTime() - 12_000_000);
    expect((await call('POST', `/v1/fsm/jobs/${jobId}/time-entries`, tech, { started_at: started.toISOString(), ended_at: ended.toISOString() })).status).toBe(201);
    await draw(jobId, 'HW-ROLLER-STD', '4.5', 'VAN-1');
    await draw(jobId, 'FAB-SCREEN-3', '12.25');
    expect((await complete(jobId)).status).toBe(200);
    expect(await jobCompletionInvoiceSettled(stack.temporal.client, jobId)).toMatchObject({ state: 'completed', outcome: { status: 'SUCCEEDED' } });

    const [invoice, ...more] = invoicesAt(jobId);
    expect(more).toHaveLength(0);
    expect(amounts(invoice)).toEqual(invoiceLines(EXAMPLE_B));
    expect(invoice.total).toBe(EXAMPLE_B.total);
    expect(invoice.metadata.quote_id).toBeUndefined();
    expect(await syncRow(jobId)).toMatchObject({ status: 'SUCCEEDED', external_id: invoice.id, quote_id: null });
    const [event, ...others] = await jobEvents(jobId);
    expect(others).toHaveLength(0);
    expect(event).toEqual({
      id: invoice.id,
      reference: `J-${jobId}`,
      revision: 1,
      sourceType: 'job',
      sourceId: jobId,
      quoteId: null,
      customerId: customer,
      currency: 'CAD',
      status: 'open',
      totals: { subtotal: dollars(EXAMPLE_B.subtotal), taxTotal: dollars(EXAMPLE_B.tax), grandTotal: dollars(EXAMPLE_B.total), currency: 'CAD' },
      taxLines: [{ code: 'GST', rate: 0.05, amount: dollars(EXAMPLE_B.tax) }],
      partsConsumed: [
        { sku: 'HW-ROLLER-STD', quantity: '4.5', vanId: 'VAN-1' },
        { sku: 'FAB-SCREEN-3', quantity: '12.25', vanId: null },
      ],
      erpSync: NOT_APPLICABLE,
    });
    const described = await stack.temporal.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(jobId)).describe();
    expect(described.searchAttributes['QuoteNumber']).toBeUndefined();
    expect(described.searchAttributes['OrganizationSubdomain']).toEqual([tenant.subdomain]);
  }, 120_000);

  it('D11: a job without a quote or a customer completes from dispatched and from in_progress; its invoice waits for a customer, shown in its money and by ops failed, and is issued once an ADMIN sets customer_id', async () => {
    const workflowOf = (jobId: string) => stack.temporal.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(jobId)).describe();
    const [fromDispatched, fromInProgress] = [await newJob({}), await newJob({})];
    expect((await call('PATCH', `/v1/fsm/jobs/${fromDispatched}`, admin, { status: 'dispatched' })).status).toBe(200);
    await startJob(fromInProgress);
    // The site is in Alberta (D25: a job without a quote takes its site's region): GST alone.
    await stack.owner.query(`update sites set region = 'CA-AB' where id = (select site_id from work_orders where id = $1)`, [fromInProgress]);
    await draw(fromInProgress, 'MTR-WIRED', '1', 'VAN-3');
    for (const jobId of [fromDispatched, fromInProgress]) {
      const done = await complete(jobId);
      expect({ jobId, status: done.status }).toEqual({ jobId, status: 200 });
      expect(((await done.json()) as Json).status).toBe('complete');
    }
    expect((await stack.owner.query('select status, job_status from work_orders where id = any($1)', [[fromDispatched, fromInProgress]])).rows).toEqual([
      { status: 'COMPLETED', job_status: 'complete' },
      { status: 'COMPLETED', job_status: 'complete' },
    ]);

    // What it would bill: one MTR-WIRED at the floor 0.35 (docs/pricing.md section 13, example A), Alberta's 5 % GST.
    const gst = Math.floor((MTR_WIRED_PRICE * 5 + 50) / 100);
    const money = ((await (await call('GET', `/v1/fsm/jobs/${fromInProgress}`, admin)).json()) as Json).completion_invoice;
    expect(money).toEqual({
      status: 'awaiting_customer',
      kind: 'time_and_materials',
      customer_id: null,
      lines: [{ description: expect.stringContaining('MTR-WIRED'), sku: 'MTR-WIRED', quantity: '1', amount: dollars(MTR_WIRED_PRICE) }],
      subtotal: dollars(MTR_WIRED_PRICE),
      tax_lines: [{ code: 'GST', rate: 0.05, amount: dollars(gst) }],
      tax_total: dollars(gst),
      total: dollars(MTR_WIRED_PRICE + gst),
      currency: 'CAD',
      invoice_id: null,
      missing_prices: null,
    });
    // Nobody to bill: no workflow, no call to the payments provider, no invoice event.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await expect(workflowOf(fromInProgress)).rejects.toThrow(/not found/i);
    expect(invoicesAt(fromInProgress)).toHaveLength(0);

    const listed = await ops('failed');
    const line = listed.out.split('\n').find((l) => l.includes(fromInProgress));
    expect(line?.split(/\s{2,}/).slice(0, 6)).toEqual([tenant.subdomain, fromInProgress, 'a customer', (MTR_WIRED_PRICE / 100).toFixed(2), `${(gst / 100).toFixed(2)} GST`, `${((MTR_WIRED_PRICE + gst) / 100).toFixed(2)} CAD`]);
    expect(listed.out).toMatch(/waiting for a customer/);
    const notRetried = await ops('retry', '--job', fromInProgress);
    expect({ code: notRetried.code, out: notRetried.out }).toMatchObject({ code: 2, out: expect.stringMatching(/waits for a customer/) });

    // Only an ADMIN sets it, and only a customer of the tenant.
    expect((await call('PATCH', `/v1/fsm/jobs/${fromInProgress}`, tech, { customer_id: randomUUID() })).status).toBe(403);
    const unknown = await call('PATCH', `/v1/fsm/jobs/${fromInProgress}`, admin, { customer_id: randomUUID() });
    expect(unknown.status).toBe(422);
    expect(Object.keys(((await unknown.json()) as Json).errors)).toEqual(['customer_id']);

    const customer = (await stack.owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Rae Lindqvist') returning id`, [tenant.id])).rows[0]!.id;
    const given = await call('PATCH', `/v1/fsm/jobs/${fromInProgress}`, admin, { customer_id: customer });
    expect(given.status).toBe(200);
    expect(((await given.json()) as Json)).toMatchObject({ status: 'complete', customer_id: customer, completion_invoice: { customer_id: customer, subtotal: dollars(MTR_WIRED_PRICE) } });
    expect(await jobCompletionInvoiceSettled(stack.temporal.client, fromInProgress)).toMatchObject({ state: 'completed', outcome: { status: 'SUCCEEDED' } });
    const [invoice, ...more] = invoicesAt(fromInProgress);
    expect(more).toHaveLength(0);
    expect(amounts(invoice)).toEqual([['line', MTR_WIRED_PRICE], ['tax', gst]]);
    expect((await jobEvents(fromInProgress)).map((e) => [e.id, e.customerId, e.totals.grandTotal, e.partsConsumed])).toEqual([[invoice.id, customer, dollars(MTR_WIRED_PRICE + gst), [{ sku: 'MTR-WIRED', quantity: '1', vanId: 'VAN-3' }]]]);
    expect((await (await call('GET', `/v1/fsm/jobs/${fromInProgress}`, admin)).json() as Json).completion_invoice).toMatchObject({ status: 'issued', customer_id: customer, invoice_id: invoice.id });

    // Its event, its audit event, its history entry.
    const changed = (await stack.owner.query(`select envelope->'data' as data from outbox_events where event = 'job.customer_changed' and envelope->'data'->>'job_id' = $1`, [fromInProgress])).rows.map((r) => r.data);
    expect(changed).toEqual([{ job_id: fromInProgress, customer_id: customer, previous_customer_id: null, invoice_released: true, changed_by_user_id: tenant.users.admin!.id, changed_at: expect.any(String) }]);
    const audited = await call('GET', `/api/v1/audit-events?entity_type=work_order&entity_id=${fromInProgress}`, admin);
    expect(((await audited.json()) as Json).data.map((e: Json) => [e.action, e.actor.id, e.changes])).toEqual([['work_order.customer_changed', tenant.users.admin!.id, [{ field: 'customer_id', before: null, after: customer }]]]);
    const history = ((await (await call('GET', `/v1/fsm/jobs/${fromInProgress}/history`, admin)).json()) as Json).data;
    expect(history.at(-1)).toMatchObject({ kind: 'customer', detail: { from: null, to: customer, invoice_released: true } });

    // Billed: the customer no longer changes; naming the same one changes nothing.
    const other = (await stack.owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Other Payer') returning id`, [tenant.id])).rows[0]!.id;
    expect((await call('PATCH', `/v1/fsm/jobs/${fromInProgress}`, admin, { customer_id: other })).status).toBe(409);
    expect((await call('PATCH', `/v1/fsm/jobs/${fromInProgress}`, admin, { customer_id: customer })).status).toBe(200);
    expect((await stack.owner.query(`select count(*)::int as n from outbox_events where event = 'job.customer_changed' and envelope->'data'->>'job_id' = $1`, [fromInProgress])).rows[0].n).toBe(1);
    expect((await ops('failed')).out).not.toContain(fromInProgress);
    // The other one still waits (it logged nothing and drew nothing: a zero invoice, still the office's to issue).
    expect((await (await call('GET', `/v1/fsm/jobs/${fromDispatched}`, admin)).json() as Json).completion_invoice).toMatchObject({ status: 'awaiting_customer', subtotal: 0, lines: [] });
  }, 120_000);

  it('D11 through /api/: a work order made without a customer completes; PATCH /api/v1/work-orders/{id} customerId (ADMIN, the workspace\'s customers) issues its waiting invoice', async () => {
    const toStatus = (jobId: string, status: string) => call('PATCH', `/api/v1/work-orders/${jobId}/status`, admin, { status });
    const edit = (jobId: string, json: unknown, token = admin) => call('PATCH', `/api/v1/work-orders/${jobId}`, token, json);
    const jobId = await newJob({});
    await startJob(jobId);
    await draw(jobId, 'MTR-WIRED', '1', 'VAN-6');
    expect((await toStatus(jobId, 'COMPLETED')).status).toBe(200);
    expect((await stack.owner.query('select customer_id, kind, subtotal_cents::int as subtotal from job_completion_invoices where work_order_id = $1', [jobId])).rows).toEqual([
      { customer_id: null, kind: 'time_and_materials', subtotal: MTR_WIRED_PRICE },
    ]);

    const sales = await stack.api.tokenFor(tenant.users.sales!);
    expect((await edit(jobId, { customerId: randomUUID() }, sales)).status).toBe(403);
    const unknown = await edit(jobId, { customerId: randomUUID() });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Json).error.message).toMatch(/customerId/);
    // A final work order's day, site and notes stay final.
    expect((await edit(jobId, { notes: 'late note' })).status).toBe(409);

    const customer = (await stack.owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Dana Whitfield') returning id`, [tenant.id])).rows[0]!.id;
    const edited = await edit(jobId, { customerId: customer });
    expect(edited.status).toBe(200);
    expect(((await edited.json()) as Json)).toMatchObject({ id: jobId, status: 'COMPLETED', customer_id: customer });
    expect(await jobCompletionInvoiceSettled(stack.temporal.client, jobId)).toMatchObject({ state: 'completed', outcome: { status: 'SUCCEEDED' } });
    const [invoice, ...more] = invoicesAt(jobId);
    expect(more).toHaveLength(0);
    expect(amounts(invoice)[0]).toEqual(['line', MTR_WIRED_PRICE]);
    expect((await jobEvents(jobId)).map((e) => [e.id, e.customerId])).toEqual([[invoice.id, customer]]);
    const notes = (await stack.owner.query('select notes from work_order_history where work_order_id = $1 order by sequence', [jobId])).rows.map((r) => r.notes);
    expect(notes.at(-1)).toMatch(new RegExp(`^Customer: none → ${customer}`));
  }, 120_000);

  it("D11: a job with a quote takes no customer of its own (it is invoiced to its quote's customer)", async () => {
    const kept = await call('POST', '/api/v1/quotes/calculate', admin, {
      laborTierCode: 'STANDARD',
      persist: true,
      customer: newCustomer('Quinn Harlow'),
      lineItems: [{ reference: 'Den', widthInches: 30, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-STD' }],
    });
    expect(kept.status).toBe(200);
    const jobId = await newJob({ quoteId: ((await kept.json()) as KeptQuote).quote_id });
    const customer = (await stack.owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Quoted Elsewhere') returning id`, [tenant.id])).rows[0]!.id;
    const res = await call('PATCH', `/v1/fsm/jobs/${jobId}`, admin, { customer_id: customer });
    expect(res.status).toBe(409);
    expect(((await res.json()) as Json).detail).toMatch(/quote/);
  }, 60_000);

  it('D19: a refused completion invoice waits; ops failed lists it with its workflow; ops retry --job bills it once; a second retry calls nothing', async () => {
    const customer = (await stack.owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Kim Novak') returning id`, [tenant.id])).rows[0]!.id;
    const jobId = await newJob({ customerId: customer });
    await startJob(jobId);
    await draw(jobId, 'MTR-WIRED', '1', 'VAN-9');
    const refusal = stripe.faults.inject({ method: 'POST', path: '/v1/invoices', times: Infinity, action: faults.status(400) });
    expect((await complete(jobId)).status).toBe(200);
    expect(await jobCompletionInvoiceSettled(stack.temporal.client, jobId)).toMatchObject({ state: 'awaiting_repair', outcome: { status: 'FAILED' } });
    expect(await syncRow(jobId)).toMatchObject({ status: 'FAILED', attempts: 1 });
    const described = await stack.temporal.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(jobId)).describe();
    expect(described.searchAttributes['ApprovalState']).toEqual(['awaiting_repair']);

    const listed = await ops('failed');
    const line = listed.out.split('\n').find((l) => l.includes(jobCompletionInvoiceWorkflowId(jobId)));
    expect(line?.split(/\s{2,}/).slice(0, 5)).toEqual([tenant.subdomain, '-', 'payments', '1', `completion invoice of job ${jobId}`]);
    // The last error whole, as recorded (not cut at 80 characters): here the fake's refusal, to its last word.
    const recorded = (await stack.owner.query<{ last_error: string }>(`select last_error from sync_records where entity_type = 'job_invoice' and local_id = $1`, [jobId])).rows[0]!.last_error;
    expect(recorded.length).toBeGreaterThan(80);
    expect(recorded).toContain('Injected 400 for POST /v1/invoices.');
    expect(line?.endsWith(`${jobCompletionInvoiceWorkflowId(jobId)}  ${recorded.replace(/\s+/g, ' ').trim()}`)).toBe(true);

    const stillRefused = await ops('retry', '--job', jobId);
    expect(stillRefused.code).toBe(1);
    expect(stillRefused.out).toMatch(/FAILED again.*still waits/s);

    refusal.cancel();
    const repaired = await ops('retry', '--job', jobId);
    expect({ code: repaired.code, out: repaired.out }).toMatchObject({ code: 0, out: expect.stringMatching(/SUCCEEDED/) });
    const invoices = invoicesAt(jobId);
    expect(invoices).toHaveLength(1);
    expect(await syncRow(jobId)).toMatchObject({ status: 'SUCCEEDED', attempts: 3, external_id: invoices[0].id });
    expect((await jobEvents(jobId)).map((e) => e.id)).toEqual([invoices[0].id]);
    expect(await stack.temporal.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(jobId)).result()).toEqual({ status: 'SUCCEEDED', externalId: invoices[0].id });

    const requests = stripe.requests.all().length;
    const again = await ops('retry', '--job', jobId);
    expect(again.code).toBe(2);
    expect(again.out).toMatch(/already SUCCEEDED.*nothing was called/);
    expect(stripe.requests.all().length).toBe(requests);
  }, 120_000);

  it("D19 for a quoted job: a refused invoice beyond the quote waits, is listed with its quote, repaired once by ops retry --job, and only then is the quote's invoice announced with the parts, once", async () => {
    const quote = await sectionNineQuote();
    const jobId = await newJob({ quoteId: quote.quote_id });
    await startJob(jobId);
    await draw(jobId, 'MTR-WIRED', '1', 'VAN-5');
    const refusal = stripe.faults.inject({ method: 'POST', path: '/v1/invoices', times: Infinity, action: faults.status(400) });
    expect((await complete(jobId)).status).toBe(200);
    expect(await jobCompletionInvoiceSettled(stack.temporal.client, jobId)).toMatchObject({ state: 'awaiting_repair', outcome: { status: 'FAILED' } });
    expect(await syncRow(jobId)).toMatchObject({ status: 'FAILED', attempts: 1, quote_id: quote.quote_id });
    const handle = stack.temporal.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(jobId));
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.searchAttributes['ApprovalState']).toEqual(['awaiting_repair']);
    expect(described.searchAttributes['QuoteNumber']).toEqual([quote.quote_number]);
    // Nothing is announced while the invoice waits: not even the quote's own invoice with the parts.
    expect(await jobEvents(jobId)).toEqual([]);

    const listed = await ops('failed');
    const line = listed.out.split('\n').find((l) => l.includes(jobCompletionInvoiceWorkflowId(jobId)));
    expect(line?.split(/\s{2,}/).slice(0, 5)).toEqual([tenant.subdomain, String(quote.quote_number), 'payments', '1', `completion invoice of job ${jobId}`]);

    refusal.cancel();
    const repaired = await ops('retry', '--job', jobId);
    expect({ code: repaired.code, out: repaired.out }).toMatchObject({ code: 0, out: expect.stringMatching(new RegExp(`SUCCEEDED: the completion invoice of job ${jobId} \\(quote ${quote.quote_number}, `)) });
    const [extra, ...more] = invoicesAt(jobId);
    expect(more).toHaveLength(0);
    // MTR-WIRED beyond the quote at the quote's 0.35, as in example A, and Ontario's HST.
    expect(amounts(extra)).toEqual([['line', MTR_WIRED_PRICE], ['tax', hstOf(MTR_WIRED_PRICE)]]);
    expect(extra.metadata).toMatchObject({ quote_id: quote.quote_id, quote_number: String(quote.quote_number), job_id: jobId });
    expect(await syncRow(jobId)).toMatchObject({ status: 'SUCCEEDED', attempts: 2, external_id: extra.id });
    expect(await handle.result()).toEqual({ status: 'SUCCEEDED', externalId: extra.id });

    const parts = [{ sku: 'MTR-WIRED', quantity: '1', vanId: 'VAN-5' }];
    const announced = (events: Json[]) => events.map((e) => [e.id, e.partsConsumed, e.erpSync.status === 'not_applicable']);
    const expected = [
      [quoteInvoiceAt(quote.quote_id)!.id, parts, false],
      [extra.id, parts, true],
    ];
    expect(announced(await jobEvents(jobId))).toEqual(expected);

    const requests = stripe.requests.all().length;
    const again = await ops('retry', '--job', jobId);
    expect(again.code).toBe(2);
    expect(again.out).toMatch(/already SUCCEEDED.*nothing was called/);
    expect(stripe.requests.all().length).toBe(requests);
    expect(announced(await jobEvents(jobId))).toEqual(expected);
  }, 120_000);

  it("D11 for a quoted job: a draw beyond the quote of a SKU no revision prices completes it; the invoice beyond the quote waits for that SKU, then ops retry --job prices it at the quote's margin and issues it", async () => {
    const quote = await sectionNineQuote();
    const jobId = await newJob({ quoteId: quote.quote_id });
    await startJob(jobId);
    await stack.owner.query(
      `insert into material_draws (organization_id, work_order_id, sku_code, quantity, unit, van_id, drawn_by_user_id) values ($1, $2, 'SKU-LEGACY-8', 1, 'each', 'VAN-5', $3)`,
      [tenant.id, jobId, tenant.users.tech!.id],
    );
    expect((await complete(jobId)).status).toBe(200);
    const money = async () => ((await (await call('GET', `/v1/fsm/jobs/${jobId}`, admin)).json()) as Json).completion_invoice;
    expect(await money()).toMatchObject({ status: 'awaiting_price', kind: 'beyond_quote', lines: [], missing_prices: { price_book: false, labour_tier: null, skus: ['SKU-LEGACY-8'] } });
    const line = (await ops('failed')).out.split('\n').find((l) => l.includes(jobId));
    expect(line?.split(/\s{2,}/).slice(0, 3)).toEqual([tenant.subdomain, jobId, 'prices: SKU SKU-LEGACY-8 priced by no revision']);
    expect((await ops('retry', '--job', jobId)).code).toBe(2);

    const book = (await (await call('GET', `/v1/pricebooks/${tenant.id}`, admin)).json()) as { revision: string };
    const published = await call('POST', `/v1/pricebooks/${tenant.id}/revisions`, admin, {
      base_revision: book.revision,
      changes: [{ op: 'upsert_sku', sku: { code: 'SKU-LEGACY-8', component: 'hardware', description: 'Legacy end cap', unit: 'each', unit_cost_cents: '1000' } }],
    });
    expect(published.status).toBe(201);
    const issued = await ops('retry', '--job', jobId);
    expect({ code: issued.code, out: issued.out }).toMatchObject({ code: 0, out: expect.stringMatching(/SUCCEEDED/) });
    // The quote's applied margin 0.35: 1000 / 0.65 = 1538.46… → 1539; Ontario's HST 200.07 → 200.
    const [extra, ...more] = invoicesAt(jobId);
    expect(more).toHaveLength(0);
    expect(amounts(extra)).toEqual([['line', 1539], ['tax', 200]]);
    expect(extra.metadata).toMatchObject({ quote_id: quote.quote_id, job_id: jobId });
    expect(await money()).toMatchObject({ status: 'issued', missing_prices: null, invoice_id: extra.id });
  }, 180_000);

  it('a SKU drawn while active and deactivated in the price book before completion is still billed, at the newest revision that had it (D21)', async () => {
    const customer = (await stack.owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Ari Moss') returning id`, [tenant.id])).rows[0]!.id;
    const jobId = await newJob({ customerId: customer });
    await startJob(jobId);
    await draw(jobId, 'TRIM-CASSETTE', '2', 'VAN-4');
    const book = (await (await call('GET', `/v1/pricebooks/${tenant.id}`, admin)).json()) as { revision: string };
    const published = await call('POST', `/v1/pricebooks/${tenant.id}/revisions`, admin, { base_revision: book.revision, changes: [{ op: 'deactivate_sku', code: 'TRIM-CASSETTE' }] });
    expect(published.status).toBe(201);
    expect((await complete(jobId)).status).toBe(200);
    expect(await jobCompletionInvoiceSettled(stack.temporal.client, jobId)).toMatchObject({ state: 'completed', outcome: { status: 'SUCCEEDED' } });
    // 2 * 1475 = 2950, raised to the floor 0.35: 2950 / 0.65 = 4538.46… → 4539; HST 590.07 → 590.
    expect(amounts(invoicesAt(jobId)[0])).toEqual([['line', 4539], ['tax', 590]]);
  }, 120_000);

  it('D11: a service job with a customer completes through /api/ in a workspace with no price book, then none with a STANDARD tier; its invoice waits for prices, listed with the reason, and ops retry --job prices it on the price book then current and issues it', async () => {
    // A workspace of its own: no price book at all (payments are the worker's, as for every tenant).
    const other = await createTenant(stack.owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    const [otherAdmin, otherTech] = [await stack.api.tokenFor(other.users.admin!), await stack.api.tokenFor(other.users.tech!)];
    const customer = (await stack.owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Lee Park') returning id`, [other.id])).rows[0]!.id;
    const made = await call('POST', '/api/v1/work-orders', otherAdmin, { assignedTechnicianId: other.users.tech!.id, scheduledDate: '2026-12-03', siteAddress: '12 Aspen Rd', customerId: customer });
    expect(made.status).toBe(201);
    const jobId = ((await made.json()) as { id: string }).id;
    await stack.owner.query(`update sites set region = 'CA-AB' where id = (select site_id from work_orders where id = $1)`, [jobId]);
    for (const status of ['dispatched', 'in_progress']) expect((await call('PATCH', `/v1/fsm/jobs/${jobId}`, otherAdmin, { status })).status).toBe(200);
    // Two hours logged.
    const ended = new Date(Date.now() - 3_600_000);
    expect((await call('POST', `/v1/fsm/jobs/${jobId}/time-entries`, otherTech, { started_at: new Date(ended.getTime() - 7_200_000).toISOString(), ended_at: ended.toISOString() })).status).toBe(201);

    const done = await call('PATCH', `/api/v1/work-orders/${jobId}/status`, otherAdmin, { status: 'COMPLETED' });
    expect(done.status).toBe(200);
    expect((await stack.owner.query('select status, job_status from work_orders where id = $1', [jobId])).rows).toEqual([{ status: 'COMPLETED', job_status: 'complete' }]);
    const money = async () => ((await (await call('GET', `/v1/fsm/jobs/${jobId}`, otherAdmin)).json()) as Json).completion_invoice;
    expect(await money()).toEqual({
      status: 'awaiting_price',
      kind: 'time_and_materials',
      customer_id: customer,
      lines: [],
      subtotal: 0,
      tax_lines: expect.any(Array),
      tax_total: 0,
      total: 0,
      currency: 'CAD',
      invoice_id: null,
      missing_prices: { price_book: true, labour_tier: 'STANDARD', skus: [] },
    });
    // Not priced: no workflow, no call to the payments provider.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await expect(stack.temporal.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(jobId)).describe()).rejects.toThrow(/not found/i);
    expect(invoicesAt(jobId)).toHaveLength(0);

    const listed = await ops('failed');
    const line = listed.out.split('\n').find((l) => l.includes(jobId));
    expect(line?.split(/\s{2,}/).slice(0, 6)).toEqual([other.subdomain, jobId, 'prices: no price book; no STANDARD labour tier', '-', '-', '-']);
    expect(listed.out).toMatch(/1 completion invoice waiting for prices|completion invoices waiting for prices/);
    const requests = stripe.requests.all().length;
    const noBook = await ops('retry', '--job', jobId);
    expect({ code: noBook.code, out: noBook.out }).toMatchObject({ code: 2, out: expect.stringMatching(/still waits for prices: no price book; no STANDARD labour tier\. Nothing was called/) });

    // A price book without a STANDARD tier: still waiting, now for the tier alone.
    await giveRateCard(other.id, { ...SANDBOX_RATE_CARD, labourTiers: SANDBOX_RATE_CARD.labourTiers.filter((tier) => tier.code !== 'STANDARD') });
    const noTier = await ops('retry', '--job', jobId);
    expect({ code: noTier.code, out: noTier.out }).toMatchObject({ code: 2, out: expect.stringMatching(/still waits for prices: no STANDARD labour tier\. Nothing was called/) });
    expect((await money()).missing_prices).toEqual({ price_book: false, labour_tier: 'STANDARD', skus: [] });
    expect(stripe.requests.all().length).toBe(requests);

    // The office adds the tier (90.00 an hour); the retry prices the two hours on that revision and issues it.
    const book = (await (await call('GET', `/v1/pricebooks/${other.id}`, otherAdmin)).json()) as { revision: string };
    const published = await call('POST', `/v1/pricebooks/${other.id}/revisions`, otherAdmin, {
      base_revision: book.revision,
      changes: [{ op: 'upsert_labour_tier', tier: { code: 'STANDARD', name: 'Standard installation', hourly_rate_cents: 9000, multiplier: '1' } }],
    });
    expect(published.status).toBe(201);
    const issued = await ops('retry', '--job', jobId);
    expect({ code: issued.code, out: issued.out }).toMatchObject({ code: 0, out: expect.stringMatching(/Priced.*subtotal 180\.00 CAD.*SUCCEEDED/s) });
    const [invoice, ...more] = invoicesAt(jobId);
    expect(more).toHaveLength(0);
    // 2 h at 90.00 = 180.00; Alberta's GST 5 % = 9.00.
    expect(amounts(invoice)).toEqual([['line', 18000], ['tax', 900]]);
    expect(await syncRow(jobId)).toMatchObject({ status: 'SUCCEEDED', attempts: 1, external_id: invoice.id, quote_id: null });
    expect((await jobEvents(jobId)).map((e) => [e.id, e.customerId, e.totals.grandTotal])).toEqual([[invoice.id, customer, dollars(18900)]]);
    expect(await money()).toMatchObject({ status: 'issued', missing_prices: null, subtotal: 180, invoice_id: invoice.id, lines: [{ sku: null, quantity: '2.00', amount: 180 }] });
    expect((await ops('failed')).out).not.toContain(jobId);
    const again = await ops('retry', '--job', jobId);
    expect({ code: again.code, out: again.out }).toMatchObject({ code: 2, out: expect.stringMatching(/already SUCCEEDED/) });
  }, 180_000);

  it('D11: a job whose draw names a SKU no price book revision prices completes; its invoice waits for that SKU, and is priced and issued by ops retry --job once the price book has it', async () => {
    const customer = (await stack.owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Jo Varga') returning id`, [tenant.id])).rows[0]!.id;
    const jobId = await newJob({ customerId: customer });
    await stack.owner.query(`update sites set region = 'CA-AB' where id = (select site_id from work_orders where id = $1)`, [jobId]);
    await startJob(jobId);
    // A draw of a SKU no revision ever priced (carried over from an older system).
    await stack.owner.query(
      `insert into material_draws (organization_id, work_order_id, sku_code, quantity, unit, van_id, drawn_by_user_id) values ($1, $2, 'SKU-LEGACY-7', 2, 'each', 'VAN-8', $3)`,
      [tenant.id, jobId, tenant.users.tech!.id],
    );
    expect((await complete(jobId)).status).toBe(200);
    const money = async () => ((await (await call('GET', `/v1/fsm/jobs/${jobId}`, admin)).json()) as Json).completion_invoice;
    expect(await money()).toMatchObject({ status: 'awaiting_price', kind: 'time_and_materials', customer_id: customer, lines: [], subtotal: 0, invoice_id: null, missing_prices: { price_book: false, labour_tier: null, skus: ['SKU-LEGACY-7'] } });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await expect(stack.temporal.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(jobId)).describe()).rejects.toThrow(/not found/i);

    const line = (await ops('failed')).out.split('\n').find((l) => l.includes(jobId));
    expect(line?.split(/\s{2,}/).slice(0, 6)).toEqual([tenant.subdomain, jobId, 'prices: SKU SKU-LEGACY-7 priced by no revision', '-', '-', '-']);
    const requests = stripe.requests.all().length;
    const waiting = await ops('retry', '--job', jobId);
    expect({ code: waiting.code, out: waiting.out }).toMatchObject({ code: 2, out: expect.stringMatching(/still waits for prices: SKU SKU-LEGACY-7 priced by no revision\. Nothing was called/) });
    expect(stripe.requests.all().length).toBe(requests);

    // The office prices the SKU at 10.00 each; the retry bills it at the floor 0.35.
    const book = (await (await call('GET', `/v1/pricebooks/${tenant.id}`, admin)).json()) as { revision: string };
    const published = await call('POST', `/v1/pricebooks/${tenant.id}/revisions`, admin, {
      base_revision: book.revision,
      changes: [{ op: 'upsert_sku', sku: { code: 'SKU-LEGACY-7', component: 'hardware', description: 'Legacy bracket', unit: 'each', unit_cost_cents: '1000' } }],
    });
    expect(published.status).toBe(201);
    const issued = await ops('retry', '--job', jobId);
    expect({ code: issued.code, out: issued.out }).toMatchObject({ code: 0, out: expect.stringMatching(/SUCCEEDED/) });
    // 2 * 10.00 = 20.00 cost; 2000 / 0.65 = 3076.92… → 3077; GST 153.85 → 154.
    const [invoice, ...more] = invoicesAt(jobId);
    expect(more).toHaveLength(0);
    expect(amounts(invoice)).toEqual([['line', 3077], ['tax', 154]]);
    expect(await money()).toMatchObject({ status: 'issued', missing_prices: null, lines: [{ sku: 'SKU-LEGACY-7', quantity: '2', amount: 30.77 }] });
    expect((await jobEvents(jobId)).map((e) => [e.id, e.partsConsumed])).toEqual([[invoice.id, [{ sku: 'SKU-LEGACY-7', quantity: '2', vanId: 'VAN-8' }]]]);
  }, 120_000);

  // Last: it publishes a price book revision that would change every figure above.
  it("draws beyond a quote priced at 0.40 are priced on the quote's revision at 0.40 after a newer revision changed their costs", async () => {
    type Revision = { revision: string; current: boolean; skus: { code: string; unit_cost_cents: string }[] };
    const book = async (): Promise<Revision> => (await (await call('GET', `/v1/pricebooks/${tenant.id}`, admin)).json()) as Revision;
    const priced = await book();
    const res = await call('POST', '/api/v1/quotes/calculate', admin, {
      laborTierCode: 'STANDARD',
      targetMargin: 0.4,
      persist: true,
      customer: newCustomer('Noor Haddad'),
      lineItems: [{ reference: 'Bedroom', widthInches: 35.25, dropInches: 60, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD', trimSkuCode: 'TRIM-FASCIA' }],
    });
    expect(res.status).toBe(200);
    const quote = (await res.json()) as Omit<KeptQuote, 'line_items'> & { applied_margin: string; margin_floor: string; line_items: { components: { sku_code: string | null; quantity: string }[] }[] };
    // Nothing was published meanwhile: the quote was priced on `priced`, at a margin above the floor.
    expect((await book()).revision).toBe(priced.revision);
    expect(new Decimal(quote.applied_margin).eq('0.4')).toBe(true);
    expect(new Decimal(quote.margin_floor).lt(quote.applied_margin)).toBe(true);
    await approve({ api: stack.api, temporal: stack.temporal, sales: admin }, quote.quote_id);
    expect((await approvalSettled(stack.temporal.client, quote.quote_id)).state).toBe('completed');

    // A newer revision through the price book API: every active cost 20 % up.
    const published = await call('POST', `/v1/pricebooks/${tenant.id}/revisions`, admin, { base_revision: priced.revision, changes: [{ op: 'adjust_costs', percent: '20' }] });
    expect(published.status).toBe(201);
    const newer = (await published.json()) as Revision;
    expect(newer.current).toBe(true);

    const jobId = await newJob({ quoteId: quote.quote_id });
    await startJob(jobId);
    const drawn = [
      { sku: 'TRIM-FASCIA', quantity: '4.5', vanId: 'VAN-7' },
      { sku: 'MTR-WIRED', quantity: '1', vanId: 'VAN-7' },
    ];
    for (const part of drawn) await draw(jobId, part.sku, part.quantity, part.vanId);
    expect((await complete(jobId)).status).toBe(200);
    expect(await jobCompletionInvoiceSettled(stack.temporal.client, jobId)).toMatchObject({ state: 'completed', outcome: { status: 'SUCCEEDED' } });

    // The documented rule (docs/pricing.md section 13), on a revision's costs: the excess over the
    // quote's bill of materials, times the unit cost, half-up to a cent; cost / (1 - margin), up to a cent.
    const quoted = (code: string) =>
      quote.line_items.flatMap((l) => l.components).filter((c) => c.sku_code === code).reduce((sum, c) => sum.plus(c.quantity), new Decimal(0));
    const linesOn = (revision: Revision, margin: string) =>
      drawn.map(({ sku, quantity }) => {
        const cost = new Decimal(quantity).minus(quoted(sku)).times(revision.skus.find((s) => s.code === sku)!.unit_cost_cents).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
        return cost.div(new Decimal(1).minus(margin)).toDecimalPlaces(0, Decimal.ROUND_UP).toNumber();
      });
    const expected = linesOn(priced, '0.4');
    // Either shortcut would bill other figures: the newer revision's costs, or the floor.
    expect(linesOn(newer, '0.4')).not.toEqual(expected);
    expect(linesOn(priced, quote.margin_floor)).not.toEqual(expected);

    const [extra, ...more] = invoicesAt(jobId);
    expect(more).toHaveLength(0);
    const subtotal = expected.reduce((sum, cents) => sum + cents, 0);
    expect(amounts(extra)).toEqual([...expected.map((cents) => ['line', cents]), ['tax', hstOf(subtotal)]]);
    expect(extra.total).toBe(subtotal + hstOf(subtotal));
    const [, beyond] = await jobEvents(jobId);
    expect(beyond).toMatchObject({
      id: extra.id,
      quoteId: quote.quote_id,
      totals: { subtotal: dollars(subtotal), taxTotal: dollars(hstOf(subtotal)), grandTotal: dollars(subtotal + hstOf(subtotal)), currency: 'CAD' },
      partsConsumed: drawn,
      erpSync: NOT_APPLICABLE,
    });
  }, 120_000);
});
