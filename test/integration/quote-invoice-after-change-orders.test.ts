import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startPaymentsStack, type PaymentsStack } from '../../scripts/harness/approval-stack';
import { approvedChangeOrder, approvedQuote, jobOf, type ChangeOrderCaller } from '../support/change-orders';

/**
 * A quote's invoice stays its own after change orders on its job are billed (D12): the quote's
 * invoice, re-invoicing and checkout read the quote's invoice, never a change order's invoice or
 * credit note, whether that change order was invoiced, credited or failed.
 */
const KEY = 'sk_test_quoteInvoiceAfterChangeOrders01';

let stack: PaymentsStack;
let caller: ChangeOrderCaller;

beforeAll(async () => {
  stack = await startPaymentsStack({ key: KEY, env: { CHECKOUT_RETURN_ORIGINS: 'https://office.example.test' } });
  const tenant = stack.tenant;
  caller = { api: stack.api, temporal: stack.temporal, admin: await stack.api.tokenFor(tenant.users.admin!), technicianId: tenant.users.tech!.id };
}, 120_000);
afterAll(() => stack.close());

type Invoice = { id: string; metadata: Record<string, string> };
const quoteInvoiceId = (quoteId: string) => (stack.fake.inspect.invoices(KEY) as unknown as Invoice[]).find((i) => i.metadata.quote_id === quoteId && !i.metadata.change_order_id)!.id;

async function expectQuoteInvoiceReadable(quoteId: string, firstCheckout: boolean) {
  const { api, admin } = caller;
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
    const { quoteId } = await approvedQuote(caller, { name: 'Sam Ortiz', email: 'sam@example.test' });
    const jobId = await jobOf(caller, quoteId);
    const kinds: [string, number][] = [
      ['invoiced', 2],
      ['credited', -1],
      // More credit than the invoice holds: refused by the provider and recorded FAILED.
      ['failed', -1000],
    ];
    for (const [index, [kind, hours]] of kinds.entries()) {
      const { changeOrder } = await approvedChangeOrder(caller, jobId, hours);
      const { rows } = await stack.owner.query(`select status from sync_records where local_id = $1 and provider = 'PAYMENTS'`, [changeOrder.change_order_id]);
      expect({ kind, status: rows[0]?.status }).toEqual({ kind, status: kind === 'failed' ? 'FAILED' : 'SUCCEEDED' });
      await expectQuoteInvoiceReadable(quoteId, index === 0);
    }
  }, 120_000);
});
