// /v1/checkout/sessions in `payment` mode: create with inline price_data, retrieve (optionally
// expanding line_items), list with filters, line items, expire; sessions also expire on their own
// at `expires_at`, and a test hook completes one as if the customer had paid.
import { checkExpand, matchesRange, pageInOrder, paginate, paginationFields } from './context';
import type { StripeContext } from './context';
import { invalidRequest, missingParam, noSuch, paramError } from './errors';
import { fields } from './form';
import type { ObjectSpec } from './form';
import { lineAmount } from './invoice-render';
import { mergeMetadata, renderCustomer, requireCustomer } from './customers';
import type { CheckoutSessionRec, Metadata, PriceRec, SessionLineRec } from './store';

const TAX_BEHAVIOR = ['exclusive', 'inclusive', 'unspecified'] as const;

// `invoice`, `payment_link`, `setup_intent` and `subscription` are always null in payment-mode
// sessions without invoice creation, so expanding them yields null as it does in Stripe.
const SESSION_EXPANDABLE = ['line_items', 'customer', 'payment_intent', 'invoice', 'payment_link', 'setup_intent', 'subscription'];

export const sessionCreateSpec: ObjectSpec = fields(
  {
    cancel_url: { kind: 'string', maxLength: 5000 },
    client_reference_id: { kind: 'string', maxLength: 200 },
    currency: { kind: 'string' },
    customer: { kind: 'string' },
    customer_email: { kind: 'string' },
    expand: { kind: 'expand' },
    expires_at: { kind: 'integer' },
    invoice_creation: { kind: 'object', fields: { enabled: { kind: 'boolean', required: true } }, unmodeled: ['invoice_data'] },
    line_items: {
      kind: 'array',
      maxItems: 100,
      of: {
        kind: 'object',
        fields: {
          metadata: { kind: 'metadata' },
          price: { kind: 'string' },
          price_data: {
            kind: 'object',
            fields: {
              currency: { kind: 'string', required: true },
              product: { kind: 'string' },
              product_data: {
                kind: 'object',
                fields: { name: { kind: 'string', required: true }, description: { kind: 'string' }, metadata: { kind: 'metadata' } },
                unmodeled: ['images', 'tax_code', 'tax_details', 'unit_label'],
              },
              tax_behavior: { kind: 'string', enum: TAX_BEHAVIOR },
              unit_amount: { kind: 'integer', min: 0 },
              unit_amount_decimal: { kind: 'decimal' },
            },
            unmodeled: ['recurring'],
          },
          quantity: { kind: 'integer', min: 0, max: 999_999 },
        },
        unmodeled: ['adjustable_quantity', 'tax_rates'],
      },
    },
    locale: { kind: 'string' },
    metadata: { kind: 'metadata' },
    mode: { kind: 'string', enum: ['payment', 'setup', 'subscription'], required: true },
    payment_intent_data: {
      kind: 'object',
      fields: { description: { kind: 'string' }, metadata: { kind: 'metadata' } },
      unmodeled: ['application_fee_amount', 'capture_method', 'on_behalf_of', 'receipt_email', 'setup_future_usage', 'shipping', 'statement_descriptor', 'statement_descriptor_suffix', 'transfer_data', 'transfer_group'],
    },
    success_url: { kind: 'string', maxLength: 5000 },
    ui_mode: { kind: 'string', enum: ['hosted_page', 'embedded_page', 'elements', 'form'] },
  },
  [
    'adaptive_pricing', 'after_expiration', 'allow_promotion_codes', 'allowed_payment_method_types', 'automatic_tax',
    'billing_address_collection', 'branding_settings', 'consent_collection', 'custom_fields', 'custom_text', 'customer_account',
    'customer_creation', 'customer_update', 'discounts', 'excluded_payment_method_types', 'integration_identifier',
    'managed_payments', 'name_collection', 'optional_items', 'origin_context', 'payment_method_collection',
    'payment_method_configuration', 'payment_method_data', 'payment_method_options', 'permissions', 'phone_number_collection',
    'redirect_on_completion', 'return_url', 'saved_payment_method_options', 'setup_intent_data', 'shipping_address_collection',
    'shipping_options', 'submit_type', 'subscription_data', 'tax_id_collection', 'wallet_options',
  ],
);

export const sessionListSpec: ObjectSpec = fields(
  {
    ...paginationFields,
    created: { kind: 'range' },
    customer: { kind: 'string' },
    customer_details: { kind: 'object', fields: { email: { kind: 'string', required: true } } },
    payment_intent: { kind: 'string' },
    status: { kind: 'string', enum: ['complete', 'expired', 'open'] },
  },
  ['customer_account', 'payment_link', 'subscription'],
);

export const sessionLineItemsSpec: ObjectSpec = fields({ ...paginationFields });

interface LineParam {
  price?: string;
  price_data?: {
    currency: string;
    product?: string;
    product_data?: { name: string; description?: string; metadata?: Metadata };
    tax_behavior?: string;
    unit_amount?: number;
    unit_amount_decimal?: string;
  };
  quantity?: number;
}

function renderPrice(price: PriceRec): Record<string, unknown> {
  return {
    id: price.id,
    object: 'price',
    active: false,
    billing_scheme: 'per_unit',
    created: price.created,
    currency: price.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: null,
    product: price.product,
    recurring: null,
    tax_behavior: price.taxBehavior ?? 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: 'one_time',
    unit_amount: price.unitAmount,
    unit_amount_decimal: price.unitAmountDecimal,
  };
}

function renderLineItem(ctx: StripeContext, s: CheckoutSessionRec, line: SessionLineRec): Record<string, unknown> {
  const price = ctx.account.prices.get(line.price) as PriceRec;
  return {
    id: line.id,
    object: 'item',
    adjustable_quantity: null,
    amount_discount: 0,
    amount_subtotal: line.amount,
    amount_tax: 0,
    amount_total: line.amount,
    currency: s.currency,
    description: line.description,
    metadata: {},
    price: renderPrice(price),
    quantity: line.quantity,
  };
}

/** Sessions past `expires_at` are expired whenever they are next observed. */
function refresh(ctx: StripeContext, s: CheckoutSessionRec): void {
  if (s.status === 'open' && ctx.nowSeconds >= s.expiresAt) {
    s.status = 'expired';
    ctx.emit('checkout.session.expired', renderSession(ctx, s, []));
  }
}

export function renderSession(ctx: StripeContext, s: CheckoutSessionRec, expand: readonly string[]): Record<string, unknown> {
  const amount = s.lines.reduce((sum, l) => sum + l.amount, 0);
  const out: Record<string, unknown> = {
    id: s.id,
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: amount,
    amount_total: amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: s.cancelUrl,
    client_reference_id: s.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: s.created,
    currency: s.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: s.customer,
    customer_account: null,
    customer_creation: s.customer ? null : 'if_required',
    customer_details: s.completedEmail ? { address: null, email: s.completedEmail, name: null, phone: null, tax_exempt: 'none', tax_ids: [] } : null,
    customer_email: s.customerEmail,
    discounts: [],
    expires_at: s.expiresAt,
    integration_identifier: null,
    invoice: null,
    invoice_creation: s.mode === 'payment' ? { enabled: s.invoiceCreation, invoice_data: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: null, metadata: {}, rendering_options: null } } : null,
    livemode: false,
    locale: s.locale,
    managed_payments: null,
    metadata: { ...s.metadata },
    mode: s.mode,
    origin_context: null,
    payment_intent: s.paymentIntent,
    payment_link: null,
    payment_method_collection: 'if_required',
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: ['card'],
    payment_status: s.paymentStatus,
    permissions: null,
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: s.status,
    submit_type: null,
    subscription: null,
    success_url: s.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted_page',
    // Real sessions also carry a #fragment; the path is what identifies the session.
    url: s.status === 'open' ? `${ctx.hostedOrigin ?? 'https://checkout.stripe.com'}/c/pay/${s.id}` : null,
    wallet_options: null,
  };
  if (expand.includes('payment_intent') && s.paymentIntent) {
    throw paramError('stripe-fake does not emulate PaymentIntent objects, so payment_intent cannot be expanded once set', 'expand');
  }
  if (expand.includes('customer') && s.customer) {
    const c = ctx.account.customers.get(s.customer);
    if (c) out['customer'] = renderCustomer(c);
  }
  if (expand.includes('line_items')) {
    out['line_items'] = {
      object: 'list',
      data: s.lines.slice(0, 10).map((l) => renderLineItem(ctx, s, l)),
      has_more: s.lines.length > 10,
      url: `/v1/checkout/sessions/${s.id}/line_items`,
    };
  }
  return out;
}

function requireSession(ctx: StripeContext, id: string): CheckoutSessionRec {
  const s = ctx.account.sessions.get(id);
  if (!s) throw noSuch('checkout.session', id, 'session', 404);
  refresh(ctx, s);
  return s;
}

export function createSession(ctx: StripeContext, p: Record<string, unknown>): Record<string, unknown> {
  checkExpand(ctx.expand, SESSION_EXPANDABLE);
  if (p['mode'] !== 'payment') throw paramError(`stripe-fake only emulates mode=payment (got ${String(p['mode'])})`, 'mode');
  if (p['ui_mode'] !== undefined && p['ui_mode'] !== 'hosted_page') throw paramError('stripe-fake only emulates ui_mode=hosted_page', 'ui_mode');
  if ((p['invoice_creation'] as { enabled: boolean } | undefined)?.enabled === true) {
    throw paramError('stripe-fake does not emulate post-payment invoices (invoice_creation[enabled]=true)', 'invoice_creation[enabled]');
  }
  const lines = p['line_items'] as LineParam[] | undefined;
  if (!lines || lines.length === 0) throw missingParam('line_items');
  if (p['customer'] !== undefined && p['customer_email'] !== undefined) {
    throw paramError('You may only specify one of these parameters: customer, customer_email.', 'customer_email');
  }
  const expiresAt = (p['expires_at'] as number | undefined) ?? ctx.nowSeconds + 86_400;
  if (expiresAt < ctx.nowSeconds + 1800) throw paramError('The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.', 'expires_at');
  if (expiresAt > ctx.nowSeconds + 86_400) throw paramError('The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.', 'expires_at');
  lines.forEach((l, i) => {
    if (l.price !== undefined && l.price_data !== undefined) throw paramError(`You may only specify one of these parameters: price, price_data.`, `line_items[${i}][price_data]`);
    if (l.price === undefined && l.price_data === undefined) throw missingParam(`line_items[${i}][price_data]`);
    if (l.quantity === undefined) throw missingParam(`line_items[${i}][quantity]`);
    const pd = l.price_data;
    if (pd) {
      if ((pd.product === undefined) === (pd.product_data === undefined)) {
        throw paramError('You must specify exactly one of `product` or `product_data`.', `line_items[${i}][price_data][product_data]`);
      }
      if ((pd.unit_amount === undefined) === (pd.unit_amount_decimal === undefined)) {
        throw paramError('You must specify exactly one of `unit_amount` or `unit_amount_decimal`.', `line_items[${i}][price_data][unit_amount]`);
      }
    }
  });
  const customer = p['customer'] !== undefined ? requireCustomer(ctx, p['customer'] as string, 'customer') : undefined;
  const builtLines: SessionLineRec[] = [];
  let currency: string | undefined = p['currency'] !== undefined ? (p['currency'] as string).toLowerCase() : undefined;
  lines.forEach((l, i) => {
    if (l.price !== undefined) {
      if (!ctx.account.prices.has(l.price)) throw noSuch('price', l.price, `line_items[${i}][price]`);
      throw invalidRequest(`The price specified (${l.price}) is inactive. This field only accepts active prices.`, { param: `line_items[${i}][price]` });
    }
    const pd = l.price_data as NonNullable<LineParam['price_data']>;
    const lineCurrency = pd.currency.toLowerCase();
    if (currency !== undefined && currency !== lineCurrency) {
      throw invalidRequest(`All line items must use the same currency; line_items[${i}] uses ${lineCurrency}, not ${currency}.`, { param: `line_items[${i}][price_data][currency]` });
    }
    currency = lineCurrency;
    let productId = pd.product;
    let name: string;
    if (productId !== undefined) {
      const product = ctx.account.products.get(productId);
      if (!product) throw noSuch('product', productId, `line_items[${i}][price_data][product]`);
      name = product.name;
    } else {
      const pdata = pd.product_data as { name: string; description?: string; metadata?: Metadata };
      productId = ctx.account.newId('prod', 14);
      ctx.account.products.set(productId, { id: productId, created: ctx.nowSeconds, name: pdata.name, description: pdata.description ?? null, metadata: pdata.metadata ?? {} });
      name = pdata.name;
    }
    const unitDecimal = pd.unit_amount_decimal ?? String(pd.unit_amount);
    const priceId = ctx.account.newId('price');
    ctx.account.prices.set(priceId, {
      id: priceId,
      created: ctx.nowSeconds,
      currency: lineCurrency,
      product: productId,
      unitAmount: pd.unit_amount ?? (/^\d+$/.test(unitDecimal) ? Number(unitDecimal) : null),
      unitAmountDecimal: unitDecimal,
      taxBehavior: pd.tax_behavior ?? null,
    });
    const quantity = l.quantity as number;
    builtLines.push({ id: ctx.account.newId('li'), price: priceId, quantity, description: name, amount: lineAmount(quantity, unitDecimal) });
  });
  const pid = p['payment_intent_data'] as { description?: string; metadata?: Metadata } | undefined;
  const s: CheckoutSessionRec = {
    id: `cs_test_${ctx.account.newId('x', 58).slice(2)}`,
    seq: ctx.account.nextSeq(),
    created: ctx.nowSeconds,
    expiresAt,
    mode: 'payment',
    status: 'open',
    paymentStatus: 'unpaid',
    currency: currency as string,
    customer: customer?.id ?? null,
    customerEmail: (p['customer_email'] as string | undefined) ?? null,
    clientReferenceId: (p['client_reference_id'] as string | undefined) ?? null,
    successUrl: (p['success_url'] as string | undefined) ?? null,
    cancelUrl: (p['cancel_url'] as string | undefined) ?? null,
    metadata: mergeMetadata({}, p['metadata'] as Metadata | undefined),
    lines: builtLines,
    paymentIntent: null,
    paymentIntentData: pid ? { description: pid.description ?? null, metadata: pid.metadata ?? {} } : null,
    invoiceCreation: (p['invoice_creation'] as { enabled: boolean } | undefined)?.enabled ?? false,
    locale: (p['locale'] as string | undefined) ?? null,
    completedEmail: null,
  };
  ctx.account.sessions.set(s.id, s);
  return renderSession(ctx, s, ctx.expand);
}

export function retrieveSession(ctx: StripeContext, id: string): Record<string, unknown> {
  checkExpand(ctx.expand, SESSION_EXPANDABLE);
  return renderSession(ctx, requireSession(ctx, id), ctx.expand);
}

export function expireSession(ctx: StripeContext, id: string): Record<string, unknown> {
  checkExpand(ctx.expand, SESSION_EXPANDABLE);
  const s = requireSession(ctx, id);
  if (s.status !== 'open') {
    throw invalidRequest(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${s.status}".`);
  }
  s.status = 'expired';
  const out = renderSession(ctx, s, ctx.expand);
  ctx.emit('checkout.session.expired', renderSession(ctx, s, []));
  return out;
}

export function listSessions(ctx: StripeContext, p: Record<string, unknown>): unknown {
  checkExpand(ctx.expand, SESSION_EXPANDABLE.map((e) => `data.${e}`));
  const email = (p['customer_details'] as { email: string } | undefined)?.email;
  const sessions = [...ctx.account.sessions.values()];
  for (const s of sessions) refresh(ctx, s);
  const items = sessions.filter(
    (s) =>
      (p['customer'] === undefined || s.customer === p['customer']) &&
      (p['payment_intent'] === undefined || s.paymentIntent === p['payment_intent']) &&
      (p['status'] === undefined || s.status === p['status']) &&
      (email === undefined || s.completedEmail === email || s.customerEmail === email) &&
      matchesRange(s.created, p['created']),
  );
  const expand = ctx.expand.map((e) => e.slice('data.'.length));
  return paginate(items, p, '/v1/checkout/sessions', 'checkout.session', (s) => renderSession(ctx, s, expand));
}

export function listSessionLineItems(ctx: StripeContext, id: string, p: Record<string, unknown>): unknown {
  const s = requireSession(ctx, id);
  return pageInOrder(s.lines, (l) => l.id, p, `/v1/checkout/sessions/${s.id}/line_items`, 'line item', (l) => renderLineItem(ctx, s, l));
}

/** Simulates the customer completing the hosted page and paying. */
export function completeSessionAsCustomer(ctx: StripeContext, id: string, email: string | undefined): Record<string, unknown> {
  const s = requireSession(ctx, id);
  if (s.status !== 'open') throw new Error(`checkout session ${id} is ${s.status}; only open sessions can be completed`);
  s.status = 'complete';
  s.paymentStatus = 'paid';
  s.paymentIntent = ctx.account.newId('pi');
  const customerEmail = email ?? s.customerEmail ?? (s.customer ? ctx.account.customers.get(s.customer)?.email ?? null : null);
  s.completedEmail = customerEmail ?? 'customer@example.com';
  const out = renderSession(ctx, s, []);
  ctx.emit('checkout.session.completed', out);
  return out;
}
