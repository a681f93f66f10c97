// Rendering of invoice items, invoice lines and invoices as the API returns them, and the
// invoice totals: the sum of the lines. Like Stripe, an invoice item that represents tax is an
// ordinary line; only tax_rates/automatic_tax (not emulated) produce `total_taxes`.
import { noSuch, paramError } from './errors';
import type { StripeContext } from './context';
import { renderCustomer } from './customers';
import type { CustomerRec, InvoiceItemRec, InvoiceRec } from './store';

const CURRENCY = /^[a-z]{3}$/;

/** quantity × unit amount (a decimal string of cents), rounded half away from zero to whole cents. */
export function lineAmount(quantity: number, unitAmountDecimal: string): number {
  const [intPart, frac = ''] = unitAmountDecimal.replace('-', '').split('.');
  const negative = unitAmountDecimal.startsWith('-');
  const scale = 10n ** BigInt(frac.length);
  const scaled = BigInt(`${intPart}${frac}`) * BigInt(quantity);
  const rounded = (scaled * 2n + scale) / (2n * scale);
  return Number(negative ? -rounded : rounded);
}

function renderPricing(item: InvoiceItemRec): Record<string, unknown> {
  return {
    type: 'price_details',
    price_details: { price: item.price, product: item.product },
    unit_amount_decimal: item.unitAmountDecimal,
  };
}

export function renderInvoiceItem(item: InvoiceItemRec): Record<string, unknown> {
  return {
    id: item.id,
    object: 'invoiceitem',
    amount: item.amount,
    currency: item.currency,
    customer: item.customer,
    customer_account: null,
    date: item.created,
    description: item.description,
    discountable: item.discountable,
    discounts: [],
    invoice: item.invoice,
    livemode: false,
    metadata: { ...item.metadata },
    net_amount: item.amount,
    parent: null,
    period: { ...item.period },
    pricing: renderPricing(item),
    proration: false,
    quantity: item.quantity,
    quantity_decimal: String(item.quantity),
    tax_rates: [],
    test_clock: null,
  };
}

export function renderLine(item: InvoiceItemRec, invoiceId: string): Record<string, unknown> {
  return {
    id: item.lineId,
    object: 'line_item',
    amount: item.amount,
    currency: item.currency,
    description: item.description,
    discount_amounts: [],
    discountable: item.discountable,
    discounts: [],
    invoice: invoiceId,
    livemode: false,
    metadata: { ...item.metadata },
    parent: {
      type: 'invoice_item_details',
      invoice_item_details: { invoice_item: item.id, proration: false, proration_details: { credited_items: null }, subscription: null },
      subscription_item_details: null,
    },
    period: { ...item.period },
    pretax_credit_amounts: [],
    pricing: renderPricing(item),
    quantity: item.quantity,
    quantity_decimal: String(item.quantity),
    subscription: null,
    subtotal: item.amount,
    taxes: [],
  };
}

export function invoiceItemsOf(ctx: StripeContext, inv: InvoiceRec): InvoiceItemRec[] {
  return inv.items.map((id) => ctx.account.invoiceItems.get(id)).filter((x): x is InvoiceItemRec => x !== undefined);
}

/** A credit note issued before payment lowers amount_due (never below zero); one after it does not. */
export function totals(ctx: StripeContext, inv: InvoiceRec): { subtotal: number; total: number; amountDue: number } {
  const subtotal = invoiceItemsOf(ctx, inv).reduce((sum, i) => sum + i.amount, 0);
  return { subtotal, total: subtotal, amountDue: Math.max(0, subtotal - inv.prePaymentCreditNotes) };
}

/** What is still owed: amount_due less what was paid (a paid invoice paid all of it); nothing once void. */
export function amountRemaining(ctx: StripeContext, inv: InvoiceRec): number {
  return inv.status === 'void' ? 0 : totals(ctx, inv).amountDue - inv.amountPaid;
}

const INLINE_LINES = 10;

export function renderInvoice(ctx: StripeContext, inv: InvoiceRec, expand: readonly string[] = []): Record<string, unknown> {
  const { subtotal, total, amountDue } = totals(ctx, inv);
  const items = invoiceItemsOf(ctx, inv);
  const customer = ctx.account.customers.get(inv.customer) as CustomerRec;
  const snap = inv.customerSnapshot ?? { email: customer.email, name: customer.name, phone: customer.phone, address: customer.address };
  const finalized = inv.status !== 'draft';
  const acct = ctx.account.id;
  return {
    id: inv.id,
    object: 'invoice',
    account_country: 'CA',
    account_name: 'Stripe fake account',
    account_tax_ids: null,
    amount_due: amountDue,
    amount_overpaid: 0,
    amount_paid: inv.amountPaid,
    amount_remaining: amountRemaining(ctx, inv),
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: inv.status === 'paid' && !inv.paidOutOfBand,
    auto_advance: inv.autoAdvance,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: inv.status === 'draft' && inv.autoAdvance ? inv.created + 3600 : null,
    billing_reason: 'manual',
    collection_method: inv.collectionMethod,
    confirmation_secret: null,
    created: inv.created,
    currency: inv.currency,
    custom_fields: inv.customFields,
    customer: expand.includes('customer') ? renderCustomer(customer) : inv.customer,
    customer_account: null,
    customer_address: snap.address,
    customer_email: snap.email,
    customer_name: snap.name,
    customer_phone: snap.phone,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: inv.description,
    discounts: [],
    due_date: inv.dueDate,
    effective_at: inv.finalizedAt,
    ending_balance: finalized ? 0 : null,
    footer: inv.footer,
    from_invoice: null,
    hosted_invoice_url: inv.hostedToken ? `${ctx.hostedOrigin ?? 'https://invoice.stripe.com'}/i/${acct}/test_${inv.hostedToken}?s=ap` : null,
    invoice_pdf: inv.hostedToken ? `${ctx.hostedOrigin ? `${ctx.hostedOrigin}/invoice` : 'https://pay.stripe.com/invoice'}/${acct}/test_${inv.hostedToken}/pdf?s=ap` : null,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: {
      object: 'list',
      data: items.slice(0, INLINE_LINES).map((i) => renderLine(i, inv.id)),
      has_more: items.length > INLINE_LINES,
      total_count: items.length,
      url: `/v1/invoices/${inv.id}/lines`,
    },
    livemode: false,
    metadata: { ...inv.metadata },
    next_payment_attempt: null,
    number: inv.number,
    on_behalf_of: null,
    parent: null,
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    period_end: inv.created,
    period_start: inv.created,
    post_payment_credit_notes_amount: inv.postPaymentCreditNotes,
    pre_payment_credit_notes_amount: inv.prePaymentCreditNotes,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: inv.statementDescriptor,
    status: inv.status,
    status_transitions: {
      finalized_at: inv.finalizedAt,
      marked_uncollectible_at: inv.markedUncollectibleAt,
      paid_at: inv.paidAt,
      voided_at: inv.voidedAt,
    },
    subtotal,
    subtotal_excluding_tax: subtotal,
    test_clock: null,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: inv.created,
  };
}

export function requireInvoice(ctx: StripeContext, id: string, param = 'id', status = 404): InvoiceRec {
  const inv = ctx.account.invoices.get(id);
  if (!inv) throw noSuch('invoice', id, param, status);
  return inv;
}


export function ensureCurrency(raw: string, param: string): string {
  const c = raw.toLowerCase();
  if (!CURRENCY.test(c)) throw paramError(`Invalid currency: ${raw}. Stripe currently supports these currencies: usd, cad, eur, gbp, ...`, param);
  return c;
}

