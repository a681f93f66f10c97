// /v1/invoices: drafts (optionally pulling in pending items), finalization (number, hosted URLs,
// customer snapshot; zero-amount invoices close as paid), payment out of band or by the simulated
// customer, void, send, list and line pagination. due_date = created + days_until_due.
import { randomAlnum } from '../core/random';
import { checkExpand, matchesRange, pageInOrder, paginate, paginationFields } from './context';
import type { StripeContext } from './context';
import { invalidRequest, missingParam, paramError } from './errors';
import { fields } from './form';
import type { ObjectSpec } from './form';
import { mergeMetadata, requireCustomer } from './customers';
import { ensureCurrency, invoiceItemsOf, renderInvoice, renderLine, requireInvoice, totals } from './invoice-render';
import type { CustomerRec, InvoiceRec, Metadata } from './store';

// Invoice references that are always null in the fake; expanding them yields null, as in Stripe.
const INVOICE_EXPANDABLE = ['customer', 'default_payment_method', 'default_source', 'on_behalf_of', 'test_clock', 'latest_revision', 'application'];

export const invoiceCreateSpec: ObjectSpec = fields(
  {
    auto_advance: { kind: 'boolean' },
    collection_method: { kind: 'string', enum: ['charge_automatically', 'send_invoice'] },
    currency: { kind: 'string' },
    custom_fields: {
      kind: 'array',
      maxItems: 4,
      of: { kind: 'object', fields: { name: { kind: 'string', required: true, maxLength: 40 }, value: { kind: 'string', required: true, maxLength: 140 } } },
    },
    customer: { kind: 'string' },
    days_until_due: { kind: 'integer', min: 0, max: 730 },
    description: { kind: 'string', maxLength: 1500 },
    due_date: { kind: 'integer' },
    expand: { kind: 'expand' },
    footer: { kind: 'string', maxLength: 5000 },
    metadata: { kind: 'metadata' },
    number: { kind: 'string', maxLength: 26 },
    pending_invoice_items_behavior: { kind: 'string', enum: ['exclude', 'include'] },
    statement_descriptor: { kind: 'string', maxLength: 22 },
  },
  [
    'account_tax_ids', 'application_fee_amount', 'automatic_tax', 'automatically_finalizes_at', 'customer_account',
    'default_payment_method', 'default_source', 'default_tax_rates', 'discounts', 'effective_at', 'from_invoice', 'issuer',
    'on_behalf_of', 'payment_settings', 'rendering', 'shipping_cost', 'shipping_details', 'subscription', 'transfer_data',
  ],
);

export const invoiceFinalizeSpec: ObjectSpec = fields({ auto_advance: { kind: 'boolean' }, expand: { kind: 'expand' } });
export const invoicePaySpec: ObjectSpec = fields(
  { paid_out_of_band: { kind: 'boolean' }, expand: { kind: 'expand' } },
  ['forgive', 'mandate', 'off_session', 'payment_method', 'source'],
);
export const invoiceListSpec: ObjectSpec = fields(
  {
    ...paginationFields,
    collection_method: { kind: 'string', enum: ['charge_automatically', 'send_invoice'] },
    created: { kind: 'range' },
    customer: { kind: 'string' },
    due_date: { kind: 'range' },
    status: { kind: 'string', enum: ['draft', 'open', 'paid', 'uncollectible', 'void'] },
  },
  ['customer_account', 'subscription'],
);

export const invoiceLinesSpec: ObjectSpec = fields({ ...paginationFields });

export function createInvoice(ctx: StripeContext, p: Record<string, unknown>): Record<string, unknown> {
  checkExpand(ctx.expand, INVOICE_EXPANDABLE);
  const customerId = p['customer'] as string | undefined;
  if (!customerId) throw missingParam('customer');
  const method = (p['collection_method'] as 'charge_automatically' | 'send_invoice' | undefined) ?? 'charge_automatically';
  const days = p['days_until_due'] as number | undefined;
  const due = p['due_date'] as number | undefined;
  if (method === 'send_invoice') {
    if (days === undefined && due === undefined) {
      throw paramError('Invoices with `collection_method=send_invoice` must have either `days_until_due` or `due_date` set.', 'days_until_due', 'parameter_missing');
    }
    if (days !== undefined && due !== undefined) throw paramError('You may only specify one of these parameters: days_until_due, due_date.', 'due_date');
  } else if (days !== undefined || due !== undefined) {
    throw paramError(`\`${days !== undefined ? 'days_until_due' : 'due_date'}\` can only be set when \`collection_method=send_invoice\`.`, days !== undefined ? 'days_until_due' : 'due_date');
  }
  if (due !== undefined && due <= ctx.nowSeconds) throw paramError('The `due_date` must be in the future.', 'due_date');
  const customer = requireCustomer(ctx, customerId, 'customer');
  const include = p['pending_invoice_items_behavior'] === 'include';
  const pending = [...ctx.account.invoiceItems.values()]
    .filter((i) => i.customer === customer.id && i.invoice === null)
    .sort((a, b) => a.seq - b.seq);
  const explicitCurrency = p['currency'] !== undefined ? ensureCurrency(p['currency'] as string, 'currency') : undefined;
  const currency = explicitCurrency ?? customer.currency ?? (include ? pending[0]?.currency : undefined) ?? ctx.defaultCurrency;
  const inv: InvoiceRec = {
    id: ctx.account.newId('in'),
    seq: ctx.account.nextSeq(),
    created: ctx.nowSeconds,
    customer: customer.id,
    currency,
    collectionMethod: method,
    daysUntilDue: days ?? null,
    dueDate: method === 'send_invoice' ? due ?? ctx.nowSeconds + (days as number) * 86_400 : null,
    autoAdvance: (p['auto_advance'] as boolean | undefined) ?? false,
    status: 'draft',
    number: (p['number'] as string | undefined) ?? null,
    description: (p['description'] as string | undefined) ?? null,
    footer: (p['footer'] as string | undefined) ?? null,
    statementDescriptor: (p['statement_descriptor'] as string | undefined) ?? null,
    metadata: mergeMetadata({}, p['metadata'] as Metadata | undefined),
    customFields: (p['custom_fields'] as Array<{ name: string; value: string }> | undefined) ?? null,
    items: [],
    finalizedAt: null,
    paidAt: null,
    voidedAt: null,
    markedUncollectibleAt: null,
    paidOutOfBand: false,
    amountPaid: 0,
    prePaymentCreditNotes: 0,
    postPaymentCreditNotes: 0,
    creditNotes: 0,
    hostedToken: null,
    customerSnapshot: null,
    sentAt: null,
  };
  if (include) {
    for (const item of pending) {
      if (item.currency !== currency) continue;
      item.invoice = inv.id;
      inv.items.push(item.id);
    }
  }
  ctx.account.invoices.set(inv.id, inv);
  customer.currency ??= currency;
  ctx.emit('invoice.created', renderInvoice(ctx, inv));
  return renderInvoice(ctx, inv, ctx.expand);
}

export function retrieveInvoice(ctx: StripeContext, id: string): Record<string, unknown> {
  checkExpand(ctx.expand, INVOICE_EXPANDABLE);
  return renderInvoice(ctx, requireInvoice(ctx, id), ctx.expand);
}

function finalizeRec(ctx: StripeContext, inv: InvoiceRec, autoAdvance: boolean | undefined): void {
  const customer = ctx.account.customers.get(inv.customer) as CustomerRec;
  if (inv.number === null) {
    inv.number = `${customer.invoicePrefix}-${String(customer.nextInvoiceSequence).padStart(4, '0')}`;
    customer.nextInvoiceSequence++;
  }
  inv.status = 'open';
  inv.finalizedAt = ctx.nowSeconds;
  if (autoAdvance !== undefined) inv.autoAdvance = autoAdvance;
  inv.hostedToken = randomAlnum(96);
  inv.customerSnapshot = { email: customer.email, name: customer.name, phone: customer.phone, address: customer.address };
  ctx.emit('invoice.finalized', renderInvoice(ctx, inv));
  if (totals(ctx, inv).amountDue === 0) {
    // Stripe closes zero-amount invoices as paid when they are finalized.
    markPaid(ctx, inv, false);
  }
}

export function markPaid(ctx: StripeContext, inv: InvoiceRec, outOfBand: boolean): void {
  inv.status = 'paid';
  inv.paidAt = ctx.nowSeconds;
  inv.paidOutOfBand = outOfBand;
  inv.amountPaid = totals(ctx, inv).amountDue;
  const out = renderInvoice(ctx, inv);
  ctx.emit('invoice.paid', out);
  if (!outOfBand) ctx.emit('invoice.payment_succeeded', out);
}

export function finalizeInvoice(ctx: StripeContext, id: string, p: Record<string, unknown>): Record<string, unknown> {
  checkExpand(ctx.expand, INVOICE_EXPANDABLE);
  const inv = requireInvoice(ctx, id);
  if (inv.status !== 'draft') {
    throw invalidRequest("This invoice is already finalized, you can't re-finalize a non-draft invoice.", { code: 'invoice_not_editable' });
  }
  finalizeRec(ctx, inv, p['auto_advance'] as boolean | undefined);
  return renderInvoice(ctx, inv, ctx.expand);
}

export function payInvoice(ctx: StripeContext, id: string, p: Record<string, unknown>): Record<string, unknown> {
  checkExpand(ctx.expand, INVOICE_EXPANDABLE);
  const inv = requireInvoice(ctx, id);
  if (inv.status === 'paid') throw invalidRequest('Invoice is already paid');
  if (inv.status === 'void' || inv.status === 'uncollectible') {
    throw invalidRequest(`You cannot pay an invoice with status ${inv.status}.`, { code: 'invoice_not_editable' });
  }
  if (p['paid_out_of_band'] !== true) {
    // The fake has no payment methods, so a real charge can never be attempted.
    throw invalidRequest('This customer has no attached payment source or default payment method. Please consider adding a default payment method.', {
      code: 'invoice_no_payment_method_types',
    });
  }
  if (inv.status === 'draft') finalizeRec(ctx, inv, undefined);
  if (inv.status === 'open') markPaid(ctx, inv, true);
  return renderInvoice(ctx, inv, ctx.expand);
}

export function voidInvoice(ctx: StripeContext, id: string): Record<string, unknown> {
  checkExpand(ctx.expand, INVOICE_EXPANDABLE);
  const inv = requireInvoice(ctx, id);
  if (inv.status !== 'open' && inv.status !== 'uncollectible') {
    throw invalidRequest(`You can only void an open or uncollectible invoice, but this invoice is ${inv.status}.`, { code: 'invoice_not_editable' });
  }
  inv.status = 'void';
  inv.voidedAt = ctx.nowSeconds;
  const out = renderInvoice(ctx, inv, ctx.expand);
  ctx.emit('invoice.voided', renderInvoice(ctx, inv));
  return out;
}

export function sendInvoice(ctx: StripeContext, id: string): Record<string, unknown> {
  checkExpand(ctx.expand, INVOICE_EXPANDABLE);
  const inv = requireInvoice(ctx, id);
  if (inv.collectionMethod !== 'send_invoice') {
    throw invalidRequest('You can only manually send an invoice if its collection method is `send_invoice`.');
  }
  if (inv.status !== 'open') throw invalidRequest(`You can only send an open invoice, but this invoice is ${inv.status}.`, { code: 'invoice_not_editable' });
  if (!inv.customerSnapshot?.email) throw invalidRequest("The customer doesn't have an email address, so the invoice can't be sent.", { code: 'email_invalid' });
  inv.sentAt = ctx.nowSeconds;
  ctx.emit('invoice.sent', renderInvoice(ctx, inv));
  return renderInvoice(ctx, inv, ctx.expand);
}

export function listInvoices(ctx: StripeContext, p: Record<string, unknown>): unknown {
  checkExpand(ctx.expand, INVOICE_EXPANDABLE.map((e) => `data.${e}`));
  const items = [...ctx.account.invoices.values()].filter(
    (i) =>
      (p['customer'] === undefined || i.customer === p['customer']) &&
      (p['status'] === undefined || i.status === p['status']) &&
      (p['collection_method'] === undefined || i.collectionMethod === p['collection_method']) &&
      matchesRange(i.created, p['created']) &&
      (p['due_date'] === undefined || (i.dueDate !== null && matchesRange(i.dueDate, p['due_date']))),
  );
  const expand = ctx.expand.map((e) => e.slice('data.'.length));
  return paginate(items, p, '/v1/invoices', 'invoice', (i) => renderInvoice(ctx, i, expand));
}

export function listInvoiceLines(ctx: StripeContext, id: string, p: Record<string, unknown>): unknown {
  const inv = requireInvoice(ctx, id);
  // Lines keep invoice order (oldest first), unlike top-level lists.
  return pageInOrder(invoiceItemsOf(ctx, inv), (i) => i.lineId, p, `/v1/invoices/${inv.id}/lines`, 'line item', (i) => renderLine(i, inv.id));
}

/** Simulates the customer paying the hosted invoice page by card. */
export function payInvoiceAsCustomer(ctx: StripeContext, id: string): Record<string, unknown> {
  const inv = requireInvoice(ctx, id);
  if (inv.status !== 'open') throw new Error(`invoice ${id} is ${inv.status}; only open invoices can be paid`);
  markPaid(ctx, inv, false);
  return renderInvoice(ctx, inv);
}
