import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { ApiHarness } from '../../scripts/harness/api-harness';
import { startApprovalStack, type ApprovalStack } from '../../scripts/harness/approval-stack';
import type { Tenant } from '../../scripts/harness/owner-db';
import type { TemporalHarness } from '../../scripts/harness/temporal-harness';
import { PUBLIC_BASE_URL, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { approvalSettled } from '../../scripts/harness/approval-progress';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';
import { changeOrderInvoiceWorkflowId } from '../../infra/temporal/contracts';
import { TAX_REGIONS } from '../../domain/tax/canadian-sales-tax';
import { jobCompletionInvoiceSettled } from '../../scripts/harness/approval-progress';

/**
 * D25, end to end: a `/v1/quotes` quote taxed for its province is invoiced, checked out, mirrored
 * to accounting and described in `invoice.generated` with the same tax lines, through real
 * Temporal, the Stripe fake and the QuickBooks fake. Every expected figure is the quote's own
 * answer (`taxLines`, `totals`), never recomputed here.
 */
const KEY = 'sk_test_regionalTax0001';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
interface TaxLine { code: string; rate: number; amount: number }
interface V1Quote { id: string; reference: string; taxRegion: string; taxLines: TaxLine[]; totals: { subtotal: number; taxTotal: number; grandTotal: number } }

let stripe: StripeFake;
let closeStripe: () => Promise<void>;
let stack: ApprovalStack;
let owner: pg.Pool;
let fakes: IntegrationFakes;
let temporal: TemporalHarness;
let api: ApiHarness;
let tenant: Tenant;
let sales: string;
let admin: string;
let customerId: string;

beforeAll(async () => {
  stripe = new StripeFake({ apiKeys: [KEY] });
  const started = await stripe.start();
  closeStripe = started.close;
  stack = await startApprovalStack({ payments: { secretKey: KEY, baseUrl: started.url }, env: { CHECKOUT_RETURN_ORIGINS: PUBLIC_BASE_URL } });
  ({ owner, fakes, temporal, api, tenant, sales } = stack);
  admin = await api.tokenFor(tenant.users.admin!);
  for (const p of SANDBOX_PRODUCTS) {
    await owner.query(
      'insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)',
      [tenant.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null],
    );
  }
  const { rows } = await owner.query<{ id: string }>(`insert into customers (organization_id, name, email) values ($1, 'Dana Okafor', 'dana.okafor@example.test') returning id`, [tenant.id]);
  customerId = rows[0]!.id;
}, 120_000);
afterAll(async () => {
  await stack.close();
  await closeStripe();
});

const cents = (dollars: number) => Math.round(dollars * 100);
/** The figures an invoice of the quote shows: the quote's own totals. */
const figuresOf = (quote: V1Quote) => ({ subtotal: quote.totals.subtotal, taxTotal: quote.totals.taxTotal, grandTotal: quote.totals.grandTotal, currency: 'CAD' });

/** A `/v1/quotes` quote of `region`, approved, its legs settled. */
async function approvedV1Quote(region: string): Promise<V1Quote> {
  const res = await api.request('/v1/quotes', {
    method: 'POST',
    token: sales,
    json: {
      customerId,
      currency: 'CAD',
      taxRegion: region,
      pricebookId: tenant.id,
      lines: [
        { sku: 'ROLLER-SCREEN', quantity: 2, configuration: { finishedWidthIn: 72.5, finishedHeightIn: 60, controlSide: 'left', motorised: true, motorSku: 'MTR-BATTERY' } },
        { sku: 'ROLLER-BLACKOUT-HD-FASCIA', quantity: 1, configuration: { finishedWidthIn: 35.25, finishedHeightIn: 48, controlSide: 'right', motorised: false } },
      ],
    },
  });
  expect(res.status).toBe(201);
  const quote = (await res.json()) as V1Quote;
  expect((await api.request(`/api/v1/quotes/${quote.id}/approve`, { method: 'POST', token: sales })).status).toBe(200);
  expect((await approvalSettled(temporal.client, quote.id)).state).toBe('completed');
  return quote;
}

/** What the payments sandbox holds of the quote's invoice: its tax lines (label and cents) and its total. */
function invoiceAtStripe(quoteId: string) {
  const invoices = stripe.inspect.invoices(KEY).filter((i) => (i.metadata as Record<string, string>).quote_id === quoteId) as Json[];
  expect(invoices).toHaveLength(1);
  const lines = invoices[0].lines.data as { description: string; amount: number; metadata: Record<string, string> }[];
  return { total: invoices[0].total as number, tax: lines.filter((l) => l.metadata.is_tax === 'true').map((l) => [l.description, l.amount]) };
}

async function invoiceGenerated(quoteId: string, sourceType = 'quote'): Promise<Json> {
  // The latest revision of each invoice's event (a later one may correct its erpSync, defect 4 of issue 30).
  const { rows } = await owner.query(
    `select distinct on (envelope->'data'->>'id') envelope from outbox_events where event = 'invoice.generated' and envelope->'data'->>'quoteId' = $1 and envelope->'data'->>'sourceType' = $2
      order by envelope->'data'->>'id', created_at desc`,
    [
    quoteId,
    sourceType,
  ]);
  expect(rows).toHaveLength(1);
  return rows[0].envelope.data;
}

/** How many revisions of one invoice's `invoice.generated` were recorded. */
const revisionsOf = async (invoiceId: string) =>
  Number((await owner.query(`select count(*) from outbox_events where event = 'invoice.generated' and envelope->'data'->>'id' = $1`, [invoiceId])).rows[0].count);

/** Raises and approves a change order of `labourHours` alone on the job; answers its sell in cents once its payments leg ended. */
async function approvedChangeOrder(jobId: string, labourHours: number): Promise<{ id: string; sellCents: number }> {
  const raised = await api.request(`/v1/fsm/jobs/${jobId}/change-orders`, { method: 'POST', token: admin, json: { reason: labourHours > 0 ? 'A second bracket per shade' : 'The old valance stays', labour_hours: labourHours } });
  expect(raised.status).toBe(201);
  const changeOrder = (await raised.json()) as { change_order_id: string; delta: { sell: number } };
  const approved = await api.request(`/v1/fsm/change-orders/${changeOrder.change_order_id}/approve`, { method: 'POST', token: admin, json: { approved_by: { name: 'Dana Okafor', role: 'Homeowner', method: 'in_person' } } });
  expect(approved.status).toBe(200);
  expect(await temporal.client.workflow.getHandle(changeOrderInvoiceWorkflowId(changeOrder.change_order_id)).result()).toMatchObject({ status: 'SUCCEEDED' });
  return { id: changeOrder.change_order_id, sellCents: cents(changeOrder.delta.sell) };
}

async function invoiceAtAccounting(quote: V1Quote): Promise<Json> {
  const realm = (await owner.query(`select external_account_id from integration_connections where organization_id = $1 and provider = 'ACCOUNTING'`, [tenant.id])).rows[0].external_account_id as string;
  const invoices = fakes.qbo.inspect.invoices(realm).filter((i) => i['DocNumber'] === quote.reference) as Json[];
  expect(invoices).toHaveLength(1);
  return invoices[0];
}

describe('a /v1/quotes quote is taxed by its region everywhere (D25)', () => {
  it('Alberta: the quote, its invoice at the payments sandbox, its checkout page, invoice.generated and the accounting invoice all carry 5 % GST', async () => {
    const quote = await approvedV1Quote('CA-AB');
    expect(quote.taxLines).toEqual([{ code: 'GST', rate: 0.05, amount: expect.any(Number) }]);
    const gst = cents(quote.taxLines[0]!.amount);
    // 5 % of the subtotal, half-up to the cent, in integers.
    expect(gst).toBe(Math.floor((cents(quote.totals.subtotal) * 5 + 50) / 100));
    expect(cents(quote.totals.taxTotal)).toBe(gst);

    // The payments sandbox: one tax line, GST at 5 %, and the quote's grand total.
    expect(invoiceAtStripe(quote.id)).toEqual({ total: cents(quote.totals.grandTotal), tax: [['GST (5%)', gst]] });
    const view = (await (await api.request(`/api/v1/quotes/${quote.id}/invoice`, { token: sales })).json()) as Json;
    expect(view).toMatchObject({ subtotal_cents: cents(quote.totals.subtotal), tax_cents: gst, total_cents: cents(quote.totals.grandTotal) });
    expect(view.lines.filter((l: Json) => l.is_tax)).toEqual([{ description: 'GST (5%)', amount_cents: gst, is_tax: true }]);

    // invoice.generated: the quote's figures.
    const event = await invoiceGenerated(quote.id);
    expect(event.totals).toEqual(figuresOf(quote));
    expect(event.taxLines).toEqual(quote.taxLines);

    // The accounting leg: QuickBooks charged the same GST on the same subtotal.
    const accounting = await invoiceAtAccounting(quote);
    expect(accounting.TxnTaxDetail.TaxLine.map((l: Json) => [l.TaxLineDetail.TaxPercent, cents(l.Amount)])).toEqual([[5, gst]]);
    expect(cents(accounting.TxnTaxDetail.TotalTax)).toBe(gst);
    expect(cents(accounting.TotalAmt)).toBe(cents(quote.totals.grandTotal));

    // The checkout page charges the same grand total, its tax line GST's.
    const checkout = await api.request(`/api/v1/quotes/${quote.id}/checkout-session`, { method: 'POST', token: sales, json: {} });
    expect(checkout.status).toBe(201);
    const session = (await checkout.json()) as Json;
    expect(session.amount_total_cents).toBe(cents(quote.totals.grandTotal));
    const stored = stripe.inspect.checkoutSessions(KEY).find((s) => s.id === session.session_id) as Json;
    expect(stored.line_items.data.filter((l: Json) => l.description === 'GST (5%)').map((l: Json) => l.amount_total)).toEqual([gst]);
  });

  it('Quebec: two lines, GST and QST, on the invoice, in invoice.generated and at accounting', async () => {
    const quote = await approvedV1Quote('CA-QC');
    expect(quote.taxLines.map((l) => [l.code, l.rate])).toEqual([['GST', 0.05], ['QST', 0.09975]]);
    const [gst, qst] = quote.taxLines.map((l) => cents(l.amount)) as [number, number];
    expect(cents(quote.totals.taxTotal)).toBe(gst + qst);

    expect(invoiceAtStripe(quote.id)).toEqual({ total: cents(quote.totals.grandTotal), tax: [['GST (5%)', gst], ['QST (9.975%)', qst]] });
    const event = await invoiceGenerated(quote.id);
    expect(event.totals).toEqual(figuresOf(quote));
    expect(event.taxLines).toEqual(quote.taxLines);

    const accounting = await invoiceAtAccounting(quote);
    expect(accounting.TxnTaxDetail.TaxLine.map((l: Json) => [l.TaxLineDetail.TaxPercent, cents(l.Amount)])).toEqual([[5, gst], [9.975, qst]]);
    expect(cents(accounting.TotalAmt)).toBe(cents(quote.totals.grandTotal));
  });

  // Every region of D14's table: what the customer is charged and told equals the quote's own answer.
  it.each(TAX_REGIONS)(
    "%s: the quote's invoice at the payments sandbox and at accounting, invoice.generated, its checkout page, its job's change-order invoice and credit note, and the completed job's invoices carry the quote's figures",
    async (region) => {
      const quote = await approvedV1Quote(region);
      const taxCents = quote.taxLines.map((l) => cents(l.amount));
      const atStripe = invoiceAtStripe(quote.id);
      expect(atStripe.total).toBe(cents(quote.totals.grandTotal));
      expect(atStripe.tax.map(([, amount]) => amount)).toEqual(taxCents);
      const event = await invoiceGenerated(quote.id);
      expect(event.totals).toEqual(figuresOf(quote));
      expect(event.taxLines).toEqual(quote.taxLines);
      expect(cents((await invoiceAtAccounting(quote)).TotalAmt)).toBe(cents(quote.totals.grandTotal));
      /** The label of each of the quote's taxes, as its invoice at the payments sandbox shows it. */
      const taxLabels = atStripe.tax.map(([label]) => label);
      /**
       * Each of the quote's taxes on a change order's subtotal in cents: the quote's rate (a fraction
       * of at most five places, D14) applied to it, half-up to the cent, in integers (D25).
       */
      const taxOn = (subtotal: number) => quote.taxLines.map((l) => Math.floor((subtotal * Math.round(l.rate * 100_000) + 50_000) / 100_000));
      const sum = (amounts: number[]) => amounts.reduce((total, amount) => total + amount, 0);

      // Its job: a change order for more, invoiced; one for less, credited.
      const job = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { quoteId: quote.id } });
      expect(job.status).toBe(201);
      const jobId = ((await job.json()) as { id: string }).id;
      await owner.query(`update work_orders set job_status = 'in_progress' where id = $1`, [jobId]);

      const more = await approvedChangeOrder(jobId, 2);
      expect(more.sellCents).toBeGreaterThan(0);
      const moreTax = taxOn(more.sellCents);
      const invoices = stripe.inspect.invoices(KEY).filter((i) => (i.metadata as Record<string, string>).change_order_id === more.id) as Json[];
      expect(invoices).toHaveLength(1);
      const lines = invoices[0].lines.data as { description: string; amount: number; metadata: Record<string, string> }[];
      expect(lines.filter((l) => l.metadata.is_tax === 'true').map((l) => [l.description, l.amount])).toEqual(taxLabels.map((label, i) => [label, moreTax[i]]));
      expect(invoices[0].total).toBe(more.sellCents + sum(moreTax));
      const changeOrderEvent = await invoiceGenerated(quote.id, 'change_order');
      expect(changeOrderEvent.taxLines).toEqual(quote.taxLines.map((l, i) => ({ code: l.code, rate: l.rate, amount: moreTax[i]! / 100 })));
      expect(changeOrderEvent.totals).toEqual({ subtotal: more.sellCents / 100, taxTotal: sum(moreTax) / 100, grandTotal: invoices[0].total / 100, currency: 'CAD' });
      // Accounting never receives a change order's invoice: its event says so, and is never revised.
      expect(changeOrderEvent.erpSync).toEqual({ target: 'accounting', status: 'not_applicable' });
      expect(await revisionsOf(invoices[0].id)).toBe(1);

      const less = await approvedChangeOrder(jobId, -1);
      const credit = -less.sellCents;
      expect(credit).toBeGreaterThan(0);
      const creditTax = taxOn(credit);
      const notes = stripe.inspect.creditNotes(KEY).filter((n) => (n.metadata as Record<string, string>).change_order_id === less.id) as Json[];
      expect(notes).toHaveLength(1);
      expect(notes[0].lines.data.map((l: Json) => [l.description, l.unit_amount]).slice(1)).toEqual(taxLabels.map((label, i) => [label, creditTax[i]]));
      expect(notes[0].total).toBe(credit + sum(creditTax));

      // After its change orders, the quote's checkout page charges the quote's own grand total and taxes.
      const checkout = await api.request(`/api/v1/quotes/${quote.id}/checkout-session`, { method: 'POST', token: sales, json: {} });
      expect(checkout.status).toBe(201);
      const session = (await checkout.json()) as Json;
      expect(session.amount_total_cents).toBe(cents(quote.totals.grandTotal));
      const stored = stripe.inspect.checkoutSessions(KEY).find((s) => s.id === session.session_id) as Json;
      expect(taxLabels.map((label) => stored.line_items.data.filter((l: Json) => l.description === label).map((l: Json) => l.amount_total))).toEqual(taxCents.map((amount) => [amount]));

      // Issue 30: its job completes having drawn one motor beyond the quote.
      expect((await api.request(`/v1/fsm/jobs/${jobId}/material-draws`, { method: 'POST', token: admin, json: { sku: 'MTR-WIRED', quantity: '1', van_id: 'VAN-1' } })).status).toBe(201);
      expect((await api.request(`/v1/fsm/jobs/${jobId}`, { method: 'PATCH', token: admin, json: { status: 'complete' } })).status).toBe(200);
      expect((await jobCompletionInvoiceSettled(temporal.client, jobId)).outcome).toMatchObject({ status: 'SUCCEEDED' });
      const { rows } = await owner.query(`select envelope->'data' as data from outbox_events where event = 'invoice.generated' and envelope->'data'->>'sourceId' = $1 order by created_at, id`, [jobId]);
      const [reconciled, beyond] = rows.map((r) => r.data as Json);
      // The quote's invoice again, with the quote's own figures and its accounting leg.
      expect(reconciled.totals).toEqual(figuresOf(quote));
      expect(reconciled.taxLines).toEqual(quote.taxLines);
      expect(reconciled.erpSync).toEqual(event.erpSync);
      // The invoice beyond it: the quote's region's taxes, at the quote's rates, as the payments sandbox charged them.
      const extra = (stripe.inspect.invoices(KEY) as Json[]).find((i) => i.metadata.job_id === jobId);
      const extraLines = extra.lines.data as { amount: number; metadata: Record<string, string> }[];
      expect(beyond.taxLines.map((l: TaxLine) => [l.code, l.rate])).toEqual(quote.taxLines.map((l) => [l.code, l.rate]));
      expect(beyond.taxLines.map((l: TaxLine) => cents(l.amount))).toEqual(extraLines.filter((l) => l.metadata.is_tax === 'true').map((l) => l.amount));
      expect(cents(beyond.totals.subtotal)).toBe(extraLines.filter((l) => l.metadata.is_tax !== 'true').reduce((sum, l) => sum + l.amount, 0));
      expect(cents(beyond.totals.grandTotal)).toBe(extra.total);
      expect(beyond.erpSync).toEqual({ target: 'accounting', status: 'not_applicable' });
    },
    60_000,
  );
});
