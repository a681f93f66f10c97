// /v1/credit_notes: a credit note lowers a finalized invoice. The part up to what is still owed
// on it comes off amount_due (pre-payment; an open invoice credited to zero is closed as paid);
// the rest (post-payment) must be accounted for, here with out_of_band_amount (credited outside
// Stripe). Refunds and customer-balance credits need charges and balances, which the fake does
// not model, so those parameters fail loudly rather than pretend.
import { randomAlnum } from '../core/random';
import { checkExpand, matchesRange, paginate, paginationFields } from './context';
import type { StripeContext } from './context';
import { invalidRequest, missingParam, noSuch, paramError } from './errors';
import { fields } from './form';
import type { ObjectSpec } from './form';
import { mergeMetadata } from './customers';
import { amountRemaining, renderInvoice, requireInvoice, totals } from './invoice-render';
import { markPaid } from './invoices';
import type { CreditNoteLineRec, CreditNoteRec, Metadata } from './store';

export const CREDIT_NOTE_REASONS = ['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory'] as const;

export const creditNoteCreateSpec: ObjectSpec = fields(
  {
    invoice: { kind: 'string', required: true },
    amount: { kind: 'integer', min: 0 },
    lines: {
      kind: 'array',
      of: {
        kind: 'object',
        fields: {
          type: { kind: 'string', enum: ['custom_line_item', 'invoice_line_item'], required: true },
          description: { kind: 'string', maxLength: 5000 },
          quantity: { kind: 'integer', min: 1 },
          unit_amount: { kind: 'integer', min: 0 },
        },
        unmodeled: ['amount', 'discount_amounts', 'invoice_line_item', 'metadata', 'period', 'tax_amounts', 'tax_rates', 'unit_amount_decimal'],
      },
    },
    memo: { kind: 'string', maxLength: 5000 },
    metadata: { kind: 'metadata' },
    reason: { kind: 'string', enum: CREDIT_NOTE_REASONS },
    out_of_band_amount: { kind: 'integer', min: 0 },
    email_type: { kind: 'string', enum: ['credit_note', 'none'] },
    expand: { kind: 'expand' },
  },
  ['credit_amount', 'effective_at', 'refund_amount', 'refunds', 'shipping_cost'],
);

export const creditNoteListSpec: ObjectSpec = fields({ ...paginationFields, created: { kind: 'range' }, customer: { kind: 'string' }, invoice: { kind: 'string' } }, ['customer_account']);

function renderLine(line: CreditNoteLineRec): Record<string, unknown> {
  return {
    id: line.id,
    object: 'credit_note_line_item',
    amount: line.amount,
    description: line.description,
    discount_amount: 0,
    discount_amounts: [],
    invoice_line_item: null,
    livemode: false,
    metadata: {},
    pretax_credit_amounts: [],
    quantity: line.quantity,
    tax_rates: [],
    taxes: [],
    type: 'custom_line_item',
    unit_amount: line.unitAmount,
    unit_amount_decimal: String(line.unitAmount),
  };
}

export function renderCreditNote(ctx: StripeContext, cn: CreditNoteRec): Record<string, unknown> {
  const type = cn.postPaymentAmount === 0 ? 'pre_payment' : cn.prePaymentAmount === 0 ? 'post_payment' : 'mixed';
  return {
    id: cn.id,
    object: 'credit_note',
    amount: cn.total,
    amount_shipping: 0,
    created: cn.created,
    currency: cn.currency,
    customer: cn.customer,
    customer_account: null,
    customer_balance_transaction: null,
    discount_amount: 0,
    discount_amounts: [],
    effective_at: cn.created,
    invoice: cn.invoice,
    lines: { object: 'list', data: cn.lines.map(renderLine), has_more: false, url: `/v1/credit_notes/${cn.id}/lines` },
    livemode: false,
    memo: cn.memo,
    metadata: { ...cn.metadata },
    number: cn.number,
    out_of_band_amount: cn.outOfBandAmount > 0 ? cn.outOfBandAmount : null,
    pdf: `https://pay.stripe.com/credit_notes/${ctx.account.id}/test_${cn.id.slice(3)}/pdf`,
    post_payment_amount: cn.postPaymentAmount,
    pre_payment_amount: cn.prePaymentAmount,
    pretax_credit_amounts: [],
    reason: cn.reason,
    refunds: [],
    shipping_cost: null,
    status: 'issued',
    subtotal: cn.total,
    subtotal_excluding_tax: cn.total,
    total: cn.total,
    total_excluding_tax: cn.total,
    total_taxes: [],
    type,
    voided_at: null,
  };
}

function linesOf(raw: Array<Record<string, unknown>>): CreditNoteLineRec[] {
  return raw.map((line, i) => {
    if (line['type'] === 'invoice_line_item') {
      throw paramError(`stripe-fake does not emulate parameter: lines[${i}][type]=invoice_line_item (Stripe accepts it; extend scripts/sandboxes/stripe to use it)`, `lines[${i}][type]`);
    }
    const description = line['description'] as string | undefined;
    if (description === undefined) throw missingParam(`lines[${i}][description]`);
    const unitAmount = line['unit_amount'] as number | undefined;
    if (unitAmount === undefined) throw missingParam(`lines[${i}][unit_amount]`);
    const quantity = (line['quantity'] as number | undefined) ?? 1;
    return { id: `cnli_${randomAlnum(24)}`, description, quantity, unitAmount, amount: unitAmount * quantity };
  });
}

export function createCreditNote(ctx: StripeContext, p: Record<string, unknown>): Record<string, unknown> {
  checkExpand(ctx.expand, []);
  const inv = requireInvoice(ctx, p['invoice'] as string, 'invoice', 400);
  const rawLines = p['lines'] as Array<Record<string, unknown>> | undefined;
  const amount = p['amount'] as number | undefined;
  if (rawLines === undefined && amount === undefined) throw paramError('One of `amount`, `lines`, or `shipping_cost` must be provided.', 'amount', 'parameter_missing');
  const lines = rawLines ? linesOf(rawLines) : [];
  const linesTotal = lines.reduce((sum, line) => sum + line.amount, 0);
  if (rawLines !== undefined && amount !== undefined && amount !== linesTotal) {
    throw paramError(`The amount (${amount}) must equal the sum of the lines (${linesTotal}).`, 'amount');
  }
  if (inv.status !== 'open' && inv.status !== 'paid') {
    throw invalidRequest(`You can only create a credit note for an open or paid invoice, but this invoice is ${inv.status}.`, { code: 'invoice_not_editable', param: 'invoice' });
  }
  const total = amount ?? linesTotal;
  if (total <= 0) throw invalidRequest('The credit note total must be greater than zero.', { param: rawLines ? 'lines' : 'amount' });
  const { total: invoiceTotal, amountDue } = totals(ctx, inv);
  const creditable = invoiceTotal - inv.prePaymentCreditNotes - inv.postPaymentCreditNotes;
  if (total > creditable) {
    throw invalidRequest(`The credit note total (${total}) exceeds what invoice ${inv.id} can still be credited (${creditable} of its ${invoiceTotal}).`, { param: rawLines ? 'lines' : 'amount' });
  }
  const before = { amountDue, remaining: amountDue - inv.amountPaid, pre: inv.prePaymentCreditNotes, post: inv.postPaymentCreditNotes };
  const pre = inv.status === 'open' ? Math.min(total, before.remaining) : 0;
  const post = total - pre;
  const outOfBand = (p['out_of_band_amount'] as number | undefined) ?? 0;
  if (outOfBand !== post) {
    throw invalidRequest(
      `The sum of refund_amount, credit_amount and out_of_band_amount (${outOfBand}) must equal the credit note's post-payment amount (${post}): the invoice has ${before.remaining} remaining to pay.`,
      { param: 'out_of_band_amount' },
    );
  }

  inv.creditNotes++;
  inv.prePaymentCreditNotes += pre;
  inv.postPaymentCreditNotes += post;
  const cn: CreditNoteRec = {
    id: ctx.account.newId('cn'),
    seq: ctx.account.nextSeq(),
    created: ctx.nowSeconds,
    invoice: inv.id,
    customer: inv.customer,
    currency: inv.currency,
    number: `${inv.number}-CN-${String(inv.creditNotes).padStart(2, '0')}`,
    lines: lines.length > 0 ? lines : [{ id: `cnli_${randomAlnum(24)}`, description: 'Credit', quantity: 1, unitAmount: total, amount: total }],
    total,
    prePaymentAmount: pre,
    postPaymentAmount: post,
    outOfBandAmount: outOfBand,
    memo: (p['memo'] as string | undefined) ?? null,
    reason: (p['reason'] as string | undefined) ?? null,
    metadata: mergeMetadata({}, p['metadata'] as Metadata | undefined),
  };
  ctx.account.creditNotes.set(cn.id, cn);
  const rendered = renderCreditNote(ctx, cn);
  ctx.emit('credit_note.created', rendered);
  ctx.emit(
    'invoice.updated',
    renderInvoice(ctx, inv),
    pre > 0
      ? { amount_due: before.amountDue, amount_remaining: before.remaining, pre_payment_credit_notes_amount: before.pre }
      : { post_payment_credit_notes_amount: before.post },
  );
  // An open invoice credited down to nothing owed is closed as paid, with no payment (so no
  // payment attempt and no invoice.payment_succeeded, as when paid out of band).
  if (inv.status === 'open' && amountRemaining(ctx, inv) === 0) markPaid(ctx, inv, true);
  return rendered;
}

export function retrieveCreditNote(ctx: StripeContext, id: string): Record<string, unknown> {
  checkExpand(ctx.expand, []);
  const cn = ctx.account.creditNotes.get(id);
  if (!cn) throw noSuch('credit note', id, 'id', 404);
  return renderCreditNote(ctx, cn);
}

export function listCreditNotes(ctx: StripeContext, p: Record<string, unknown>): unknown {
  checkExpand(ctx.expand, []);
  const items = [...ctx.account.creditNotes.values()].filter(
    (cn) =>
      (p['invoice'] === undefined || cn.invoice === p['invoice']) && (p['customer'] === undefined || cn.customer === p['customer']) && matchesRange(cn.created, p['created']),
  );
  return paginate(items, p, '/v1/credit_notes', 'credit note', (cn) => renderCreditNote(ctx, cn));
}
