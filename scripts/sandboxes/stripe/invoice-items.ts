// /v1/invoiceitems: items attached to a draft invoice (`invoice`) or left pending for the
// customer's next invoice that asks for them (`pending_invoice_items_behavior=include`).
import { checkExpand, matchesRange, paginate, paginationFields } from './context';
import type { StripeContext } from './context';
import { invalidRequest, missingParam, noSuch, paramError } from './errors';
import { fields } from './form';
import type { ObjectSpec } from './form';
import { mergeMetadata, renderCustomer, requireCustomer } from './customers';
import { ensureCurrency, lineAmount, renderInvoice, renderInvoiceItem, requireInvoice } from './invoice-render';
import type { CustomerRec, InvoiceItemRec, InvoiceRec, Metadata } from './store';

const ITEM_EXPANDABLE = ['customer', 'invoice', 'test_clock'];

export const invoiceItemCreateSpec: ObjectSpec = fields(
  {
    amount: { kind: 'integer' },
    currency: { kind: 'string' },
    customer: { kind: 'string' },
    description: { kind: 'string' },
    discountable: { kind: 'boolean' },
    expand: { kind: 'expand' },
    invoice: { kind: 'string' },
    metadata: { kind: 'metadata' },
    period: {
      kind: 'object',
      fields: { start: { kind: 'integer', required: true }, end: { kind: 'integer', required: true } },
    },
    price_data: {
      kind: 'object',
      fields: {
        currency: { kind: 'string', required: true },
        product: { kind: 'string', required: true },
        tax_behavior: { kind: 'string', enum: ['exclusive', 'inclusive', 'unspecified'] },
        unit_amount: { kind: 'integer' },
        unit_amount_decimal: { kind: 'decimal' },
      },
    },
    pricing: { kind: 'object', fields: { price: { kind: 'string' } } },
    quantity: { kind: 'integer', min: 0 },
    quantity_decimal: { kind: 'decimal' },
    tax_behavior: { kind: 'string', enum: ['exclusive', 'inclusive', 'unspecified'] },
    unit_amount_decimal: { kind: 'decimal' },
  },
  ['customer_account', 'discounts', 'subscription', 'tax_code', 'tax_rates'],
);

export const invoiceItemListSpec: ObjectSpec = fields(
  { ...paginationFields, created: { kind: 'range' }, customer: { kind: 'string' }, invoice: { kind: 'string' }, pending: { kind: 'boolean' } },
  ['customer_account'],
);

export function createInvoiceItem(ctx: StripeContext, p: Record<string, unknown>): Record<string, unknown> {
  checkExpand(ctx.expand, ITEM_EXPANDABLE);
  const customerId = p['customer'] as string | undefined;
  if (!customerId) throw missingParam('customer');
  const pricingSources = ['amount', 'unit_amount_decimal', 'price_data', 'pricing'].filter((k) => p[k] !== undefined);
  if (pricingSources.length === 0) throw paramError('You must specify either `amount`, `unit_amount_decimal`, `price_data`, or `pricing[price]`.', 'amount');
  if (pricingSources.length > 1) {
    throw paramError(`You may only specify one of these parameters: ${pricingSources.join(', ')}.`, pricingSources[1] as string);
  }
  if (p['amount'] !== undefined && (p['quantity'] !== undefined || p['quantity_decimal'] !== undefined)) {
    throw paramError('When `amount` is specified, `quantity` cannot be.', 'quantity');
  }
  if (p['quantity'] !== undefined && p['quantity_decimal'] !== undefined) {
    throw paramError('You may only specify one of these parameters: quantity, quantity_decimal.', 'quantity_decimal');
  }
  if (p['quantity_decimal'] !== undefined && !/^\d+$/.test(p['quantity_decimal'] as string)) {
    // Fractional quantities change rounding rules the fake does not reproduce.
    throw paramError('stripe-fake only emulates whole-number quantity_decimal values', 'quantity_decimal');
  }
  // Execution starts here: from now on errors are saved for idempotent replay.
  const customer = requireCustomer(ctx, customerId, 'customer');
  if (p['pricing'] !== undefined) {
    const price = (p['pricing'] as { price?: string }).price;
    if (!price) throw missingParam('pricing[price]');
    const rec = ctx.account.prices.get(price);
    if (!rec) throw noSuch('price', price, 'pricing[price]');
    // Only inline (price_data) prices exist in the fake, and Stripe marks those inactive.
    throw invalidRequest(`The price specified (${price}) is inactive. This field only accepts active prices.`, { param: 'pricing[price]' });
  }
  const priceData = p['price_data'] as { currency: string; product: string; tax_behavior?: string; unit_amount?: number; unit_amount_decimal?: string } | undefined;
  if (priceData && !ctx.account.products.has(priceData.product)) throw noSuch('product', priceData.product, 'price_data[product]');
  let currency = priceData ? ensureCurrency(priceData.currency, 'price_data[currency]') : p['currency'] !== undefined ? ensureCurrency(p['currency'] as string, 'currency') : customer.currency ?? ctx.defaultCurrency;
  let invoice: InvoiceRec | undefined;
  if (p['invoice'] !== undefined) {
    invoice = requireInvoice(ctx, p['invoice'] as string, 'invoice', 400);
    if (invoice.status !== 'draft') {
      throw invalidRequest(`You can only add invoice items to draft invoices, but invoice ${invoice.id} has status ${invoice.status}.`, { code: 'invoice_not_editable', param: 'invoice' });
    }
    if (invoice.customer !== customer.id) {
      throw invalidRequest(`The invoice ${invoice.id} belongs to customer ${invoice.customer}, not ${customer.id}.`, { param: 'invoice' });
    }
    if (p['currency'] === undefined && !priceData) currency = invoice.currency;
    if (currency !== invoice.currency) {
      throw invalidRequest(`The currency of an invoice item (${currency}) must match the currency of its invoice (${invoice.currency}).`, { param: 'currency' });
    }
  }
  const quantity = (p['quantity'] as number | undefined) ?? (p['quantity_decimal'] !== undefined ? Number(p['quantity_decimal']) : 1);
  let unitAmountDecimal: string;
  let amount: number;
  if (p['amount'] !== undefined) {
    amount = p['amount'] as number;
    unitAmountDecimal = String(amount);
  } else {
    const unit = priceData
      ? priceData.unit_amount_decimal ?? (priceData.unit_amount !== undefined ? String(priceData.unit_amount) : undefined)
      : (p['unit_amount_decimal'] as string);
    if (unit === undefined) throw missingParam('price_data[unit_amount]');
    unitAmountDecimal = unit;
    amount = lineAmount(quantity, unit);
  }
  const description = (p['description'] as string | undefined) ?? null;
  let product = priceData?.product;
  if (!product) {
    // Amount-based items get an implicit product and price, as Stripe's `pricing.price_details` shows.
    product = ctx.account.newId('prod', 14);
    ctx.account.products.set(product, { id: product, created: ctx.nowSeconds, name: description ?? 'Invoice item', description: null, metadata: {} });
  }
  const price = ctx.account.newId('price');
  ctx.account.prices.set(price, {
    id: price,
    created: ctx.nowSeconds,
    currency,
    product,
    unitAmount: /^-?\d+$/.test(unitAmountDecimal) ? Number(unitAmountDecimal) : null,
    unitAmountDecimal,
    taxBehavior: priceData?.tax_behavior ?? (p['tax_behavior'] as string | undefined) ?? null,
  });
  const period = (p['period'] as { start: number; end: number } | undefined) ?? { start: ctx.nowSeconds, end: ctx.nowSeconds };
  const item: InvoiceItemRec = {
    id: ctx.account.newId('ii'),
    seq: ctx.account.nextSeq(),
    created: ctx.nowSeconds,
    customer: customer.id,
    amount,
    currency,
    description,
    invoice: invoice?.id ?? null,
    metadata: mergeMetadata({}, p['metadata'] as Metadata | undefined),
    quantity,
    unitAmountDecimal,
    price,
    product,
    period,
    discountable: (p['discountable'] as boolean | undefined) ?? amount >= 0,
    taxBehavior: (p['tax_behavior'] as string | undefined) ?? null,
    lineId: ctx.account.newId('il'),
  };
  ctx.account.invoiceItems.set(item.id, item);
  if (invoice) invoice.items.push(item.id);
  customer.currency ??= currency;
  ctx.emit('invoiceitem.created', renderInvoiceItem(item));
  return expandInvoiceItem(ctx, item, ctx.expand);
}

function expandInvoiceItem(ctx: StripeContext, item: InvoiceItemRec, expand: readonly string[]): Record<string, unknown> {
  const out = renderInvoiceItem(item);
  if (expand.includes('customer')) out['customer'] = renderCustomer(ctx.account.customers.get(item.customer) as CustomerRec);
  const invoice = item.invoice ? ctx.account.invoices.get(item.invoice) : undefined;
  if (expand.includes('invoice') && invoice) out['invoice'] = renderInvoice(ctx, invoice);
  return out;
}

export function listInvoiceItems(ctx: StripeContext, p: Record<string, unknown>): unknown {
  checkExpand(ctx.expand, ITEM_EXPANDABLE.map((e) => `data.${e}`));
  const expand = ctx.expand.map((e) => e.slice('data.'.length));
  const items = [...ctx.account.invoiceItems.values()].filter(
    (i) =>
      (p['customer'] === undefined || i.customer === p['customer']) &&
      (p['invoice'] === undefined || i.invoice === p['invoice']) &&
      (p['pending'] === undefined || (i.invoice === null) === p['pending']) &&
      matchesRange(i.created, p['created']),
  );
  return paginate(items, p, '/v1/invoiceitems', 'invoiceitem', (i) => expandInvoiceItem(ctx, i, expand));
}

export function retrieveInvoiceItem(ctx: StripeContext, id: string): Record<string, unknown> {
  checkExpand(ctx.expand, ITEM_EXPANDABLE);
  const item = ctx.account.invoiceItems.get(id);
  if (!item) throw noSuch('invoiceitem', id, 'id', 404);
  return expandInvoiceItem(ctx, item, ctx.expand);
}

