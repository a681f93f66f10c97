import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startPaymentsStack, type PaymentsStack } from '../../scripts/harness/approval-stack';
import type { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { quoteTax } from '../../domain/tax/quote-tax';
import { approvedChangeOrder as raiseAndApprove, approvedQuote, jobOf, type ChangeOrderCaller } from '../support/change-orders';

/**
 * D12 for a change order that takes work away: its sell is below zero, and the payments leg is a
 * credit note on the quote's invoice (docs/decisions.md, "Change orders"), made exactly once.
 */
const KEY = 'sk_test_changeOrderCredit001';

let stack: PaymentsStack;
let stripe: StripeFake;
let caller: ChangeOrderCaller;
let organizationId: string;

beforeAll(async () => {
  stack = await startPaymentsStack({ key: KEY });
  stripe = stack.fake;
  const tenant = stack.tenant;
  organizationId = tenant.id;
  caller = { api: stack.api, temporal: stack.temporal, admin: await stack.api.tokenFor(tenant.users.admin!), technicianId: tenant.users.tech!.id };
}, 120_000);
afterEach(() => stripe.faults.clear());
afterAll(() => stack.close());

type Invoice = { id: string; status: string; total: number; amount_due: number; amount_paid: number; amount_remaining: number; pre_payment_credit_notes_amount: number; post_payment_credit_notes_amount: number; metadata: Record<string, string> };
type CreditNote = { id: string; invoice: string; total: number; pre_payment_amount: number; post_payment_amount: number; out_of_band_amount: number | null; reason: string; metadata: Record<string, string>; lines: { data: { description: string; unit_amount: number; quantity: number }[] } };

const invoiceOf = (quoteId: string) => (stripe.inspect.invoices(KEY) as unknown as Invoice[]).find((i) => i.metadata.quote_id === quoteId && !i.metadata.change_order_id)!;
const creditNotesOf = (changeOrderId: string) => (stripe.inspect.creditNotes(KEY) as unknown as CreditNote[]).filter((n) => n.metadata.change_order_id === changeOrderId);

/** An approved quote, invoiced, on a job; `pay` has the customer pay its invoice first. */
async function jobOfApprovedQuote(options: { pay?: boolean } = {}) {
  const { quoteId } = await approvedQuote(caller);
  if (options.pay) stripe.payInvoiceAsCustomer(KEY, invoiceOf(quoteId).id);
  return { quoteId, jobId: await jobOf(caller, quoteId) };
}

/** Raises and approves a change order of `labour_hours` alone; answers it and its payments leg's outcome. */
async function approvedChangeOrder(jobId: string, labourHours: number) {
  const { changeOrder, settled } = await raiseAndApprove(caller, jobId, labourHours, 'The customer keeps the old valance: less install time');
  const credit = -Math.round(changeOrder.delta.sell * 100);
  return { changeOrder, outcome: settled.outcome, credit, tax: quoteTax(null, credit).total_cents };
}

const syncRecordOf = async (changeOrderId: string) =>
  (await stack.owner.query(`select status, external_id, amount_cents::int as amount_cents, last_error, entity_type from sync_records where local_id = $1 and provider = 'PAYMENTS'`, [changeOrderId])).rows[0];

describe('D12: a change order for less is a credit note on the quote\'s invoice', () => {
  it('on an open invoice: one credit note for the credit and its 13 % tax lowers what is owed; recorded, and no invoice.generated', async () => {
    const { quoteId, jobId } = await jobOfApprovedQuote();
    const before = invoiceOf(quoteId);
    const { changeOrder, outcome, credit, tax } = await approvedChangeOrder(jobId, -1.5);
    expect(credit).toBeGreaterThan(0);
    const notes = creditNotesOf(changeOrder.change_order_id);
    expect(notes).toHaveLength(1);
    const note = notes[0]!;
    expect(outcome).toEqual({ status: 'SUCCEEDED', externalId: note.id });
    expect(note).toMatchObject({ invoice: before.id, total: credit + tax, pre_payment_amount: credit + tax, post_payment_amount: 0, out_of_band_amount: null, reason: 'order_change' });
    expect(note.metadata).toMatchObject({ quote_id: quoteId, change_order_id: changeOrder.change_order_id, change_order_sequence: '1', organization_id: organizationId });
    expect(note.lines.data.map((l) => [l.description, l.quantity, l.unit_amount])).toEqual([
      ['Change order 1: The customer keeps the old valance: less install time', 1, credit],
      ['HST (13%)', 1, tax],
    ]);
    expect(invoiceOf(quoteId)).toMatchObject({ status: 'open', total: before.total, amount_due: before.total - credit - tax, pre_payment_credit_notes_amount: credit + tax });
    expect(await syncRecordOf(changeOrder.change_order_id)).toEqual({ status: 'SUCCEEDED', external_id: note.id, amount_cents: -(credit + tax), last_error: null, entity_type: 'change_order_invoice' });
    // No invoice was made for it: the only invoice.generated of the quote is its own invoice's.
    const generated = await stack.owner.query(`select payload::json->'data'->>'id' as id from outbox_events where organization_id = $1 and event = 'invoice.generated' and payload::json->'data'->>'quoteId' = $2`, [organizationId, quoteId]);
    expect(generated.rows.map((r) => r.id)).toEqual([before.id]);
    const approvedEvent = await stack.owner.query(`select payload::json->'data' as data from outbox_events where organization_id = $1 and event = 'change_order.approved' and payload::json->'data'->>'change_order_id' = $2`, [organizationId, changeOrder.change_order_id]);
    expect(approvedEvent.rows[0].data).toMatchObject({ invoice: true });
  }, 90_000);

  it('on a paid invoice: the credit is recorded as credited out of band (the office refunds it), the invoice stays paid', async () => {
    const { quoteId, jobId } = await jobOfApprovedQuote({ pay: true });
    const paid = invoiceOf(quoteId);
    const { changeOrder, outcome, credit, tax } = await approvedChangeOrder(jobId, -2);
    const [note] = creditNotesOf(changeOrder.change_order_id);
    expect(outcome).toEqual({ status: 'SUCCEEDED', externalId: note!.id });
    expect(note).toMatchObject({ total: credit + tax, pre_payment_amount: 0, post_payment_amount: credit + tax, out_of_band_amount: credit + tax });
    expect(invoiceOf(quoteId)).toMatchObject({ status: 'paid', amount_paid: paid.total, amount_remaining: 0, post_payment_credit_notes_amount: credit + tax });
  }, 90_000);

  it('made exactly once when the answer to the create is lost: the next attempt finds it on the invoice', async () => {
    const { quoteId, jobId } = await jobOfApprovedQuote();
    // stripe-node sends a request whose connection closed once more by itself (a replay, by its
    // key); losing both answers fails the activity attempt, and the next one must not create again.
    stripe.faults.inject({ method: 'POST', path: '/v1/credit_notes', times: 2, action: faults.loseResponse() });
    const { changeOrder, outcome, credit, tax } = await approvedChangeOrder(jobId, -1);
    expect(stripe.faults.pending()).toEqual([]);
    const notes = creditNotesOf(changeOrder.change_order_id);
    expect(notes).toHaveLength(1);
    expect(outcome).toEqual({ status: 'SUCCEEDED', externalId: notes[0]!.id });
    const posts = stripe.requests.find('POST', '/v1/credit_notes').filter((r) => r.idempotencyKey?.startsWith(`change-order-${changeOrder.change_order_id}-`));
    expect(posts.map((r) => [r.outcome, r.replayed])).toEqual([
      ['lost', false],
      ['lost', true],
    ]);
    // The next attempt listed the invoice's credit notes after the lost ones, and found it there.
    expect(stripe.requests.find('GET', '/v1/credit_notes').filter((r) => r.seq > posts[1]!.seq && r.query.invoice === invoiceOf(quoteId).id)).toHaveLength(1);
    expect(invoiceOf(quoteId).amount_due).toBe(invoiceOf(quoteId).total - credit - tax);
  }, 90_000);

  it('a credit beyond what the invoice can still be credited is refused and recorded FAILED with the reason; nothing is credited', async () => {
    const { quoteId, jobId } = await jobOfApprovedQuote();
    const { changeOrder, outcome } = await approvedChangeOrder(jobId, -1000);
    expect(outcome).toMatchObject({ status: 'FAILED', error: expect.stringMatching(/can still be credited/) });
    expect(creditNotesOf(changeOrder.change_order_id)).toEqual([]);
    expect(invoiceOf(quoteId).pre_payment_credit_notes_amount).toBe(0);
    expect(await syncRecordOf(changeOrder.change_order_id)).toMatchObject({ status: 'FAILED', external_id: null, last_error: expect.stringMatching(/credit the rest by hand/) });
  }, 90_000);
});
