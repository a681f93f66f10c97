import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { ApiHarness } from '../../scripts/harness/api-harness';
import { startApprovalStack, type ApprovalStack } from '../../scripts/harness/approval-stack';
import { createTenant, giveRateCard, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import type { TemporalHarness } from '../../scripts/harness/temporal-harness';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { approvalWorkflowId } from '../../infra/temporal/contracts';
import { changeOrderInvoiceSettled } from '../../scripts/harness/approval-progress';

/**
 * A quote's invoice stays its own after change orders on its job are billed (D12): the quote's
 * invoice, re-invoicing and checkout read the quote's invoice, never a change order's invoice or
 * credit note, whether that change order was invoiced, credited or failed.
 */
const KEY = 'sk_test_quoteInvoiceAfterChangeOrders01';

let stack: ApprovalStack;
let stripe: StripeFake;
let closeStripe: () => Promise<void>;
let owner: pg.Pool;
let api: ApiHarness;
let temporal: TemporalHarness;
let tenant: Tenant;
let admin: string;

beforeAll(async () => {
  stripe = new StripeFake({ apiKeys: [KEY] });
  const started = await stripe.start();
  closeStripe = started.close;
  stack = await startApprovalStack({ payments: { secretKey: KEY, baseUrl: started.url }, env: { CHECKOUT_RETURN_ORIGINS: 'https://office.example.test' } });
  ({ owner, api, temporal } = stack);
  tenant = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  admin = await api.tokenFor(tenant.users.admin!);
}, 120_000);
afterEach(() => stripe.faults.clear());
afterAll(async () => {
  await stack.close();
  await closeStripe();
});

type Invoice = { id: string; metadata: Record<string, string> };
const quoteInvoiceId = (quoteId: string) => (stripe.inspect.invoices(KEY) as unknown as Invoice[]).find((i) => i.metadata.quote_id === quoteId && !i.metadata.change_order_id)!.id;

async function jobOfApprovedQuote() {
  const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: admin, json: twoWindows({ persist: true, customer: { name: 'Sam Ortiz', email: 'sam@example.test' } }) });
  const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
  expect((await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token: admin })).status).toBe(200);
  await temporal.client.workflow.getHandle(approvalWorkflowId(quoteId)).result();
  const job = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { quoteId, assignedTechnicianId: tenant.users.tech!.id } });
  expect(job.status).toBe(201);
  return { quoteId, jobId: ((await job.json()) as { id: string }).id };
}

async function changeOrder(jobId: string, labourHours: number): Promise<string> {
  const raised = await api.request(`/v1/fsm/jobs/${jobId}/change-orders`, { method: 'POST', token: admin, json: { reason: 'The customer changed the scope on site', labour_hours: labourHours } });
  expect(raised.status).toBe(201);
  const id = ((await raised.json()) as { change_order_id: string }).change_order_id;
  const approved = await api.request(`/v1/fsm/change-orders/${id}/approve`, { method: 'POST', token: admin, json: { approved_by: { name: 'Sam Ortiz', role: 'Homeowner', method: 'in_person' } } });
  expect(approved.status).toBe(200);
  await changeOrderInvoiceSettled(temporal.client, id);
  return id;
}

async function expectQuoteInvoiceReadable(quoteId: string, firstCheckout: boolean) {
  const invoiceId = quoteInvoiceId(quoteId);
  const read = await api.request(`/api/v1/quotes/${quoteId}/invoice`, { token: admin });
  expect({ status: read.status, invoice: ((await read.json()) as { invoice_id?: string }).invoice_id }).toEqual({ status: 200, invoice: invoiceId });
  const again = await api.request(`/api/v1/quotes/${quoteId}/invoice`, { method: 'POST', token: admin });
  expect({ status: again.status, invoice: ((await again.json()) as { invoice_id?: string }).invoice_id }).toEqual({ status: 200, invoice: invoiceId });
  const checkout = await api.request(`/api/v1/quotes/${quoteId}/checkout-session`, { method: 'POST', token: admin, json: {} });
  // One open session for the quote: made on the first call, reused on the next (section 4.3).
  expect(checkout.status).toBe(firstCheckout ? 201 : 200);
}

describe("a quote's invoice after change orders on its job (D12)", () => {
  it('stays readable, re-invoiceable and payable after an invoiced, a credited and a failed change order', async () => {
    const { quoteId, jobId } = await jobOfApprovedQuote();
    const kinds: [string, number][] = [
      ['invoiced', 2],
      ['credited', -1],
      // More credit than the invoice holds: refused by the provider and recorded FAILED.
      ['failed', -1000],
    ];
    for (const [index, [kind, hours]] of kinds.entries()) {
      const id = await changeOrder(jobId, hours);
      const { rows } = await owner.query(`select status from sync_records where local_id = $1 and provider = 'PAYMENTS'`, [id]);
      expect({ kind, status: rows[0]?.status }).toEqual({ kind, status: kind === 'failed' ? 'FAILED' : 'SUCCEEDED' });
      await expectQuoteInvoiceReadable(quoteId, index === 0);
    }
  }, 120_000);
});
