// /v1/customers: create, retrieve, update, delete, list (email filter) and search.
import { randomAlnum } from '../core/random';
import { checkExpand, matchesRange, paginate, paginationFields } from './context';
import type { StripeContext } from './context';
import { invalidRequest, noSuch, paramError } from './errors';
import { fields } from './form';
import type { ObjectSpec, ParamSpec } from './form';
import { parseSearchQuery, searchMatches } from './search';
import type { AddressRec, CustomerRec, Metadata, SearchableCustomer } from './store';

const address: ParamSpec = {
  kind: 'object',
  emptyable: true,
  fields: {
    city: { kind: 'string', emptyable: true },
    country: { kind: 'string', emptyable: true },
    line1: { kind: 'string', emptyable: true },
    line2: { kind: 'string', emptyable: true },
    postal_code: { kind: 'string', emptyable: true },
    state: { kind: 'string', emptyable: true },
  },
};

const writable: Record<string, ParamSpec> = {
  address,
  description: { kind: 'string', emptyable: true },
  email: { kind: 'string', emptyable: true, maxLength: 512 },
  metadata: { kind: 'metadata' },
  name: { kind: 'string', emptyable: true, maxLength: 256 },
  phone: { kind: 'string', emptyable: true, maxLength: 20 },
  preferred_locales: { kind: 'array', of: { kind: 'string' } },
  expand: { kind: 'expand' },
};

export const customerCreateSpec: ObjectSpec = fields(
  { ...writable, invoice_prefix: { kind: 'string' }, next_invoice_sequence: { kind: 'integer', min: 1 } },
  ['balance', 'business_name', 'cash_balance', 'individual_name', 'invoice_settings', 'payment_method', 'shipping', 'source', 'tax', 'tax_exempt', 'tax_id_data', 'test_clock', 'validate'],
);
const customerUpdateSpec: ObjectSpec = fields(
  { ...writable, invoice_prefix: { kind: 'string' }, next_invoice_sequence: { kind: 'integer', min: 1 } },
  ['balance', 'business_name', 'cash_balance', 'default_source', 'individual_name', 'invoice_settings', 'shipping', 'source', 'tax', 'tax_exempt', 'validate'],
);
const customerListSpec: ObjectSpec = fields({ ...paginationFields, email: { kind: 'string', maxLength: 512 }, created: { kind: 'range' } }, ['test_clock']);
const customerSearchSpec: ObjectSpec = fields({
  query: { kind: 'string', required: true },
  limit: { kind: 'integer', min: 1, max: 100 },
  page: { kind: 'string' },
  expand: { kind: 'expand' },
});

function toAddress(v: unknown): AddressRec | null {
  if (v === null || v === undefined) return null;
  const a = v as Record<string, string | null | undefined>;
  return {
    city: a['city'] ?? null,
    country: a['country'] ?? null,
    line1: a['line1'] ?? null,
    line2: a['line2'] ?? null,
    postal_code: a['postal_code'] ?? null,
    state: a['state'] ?? null,
  };
}

function searchDoc(c: CustomerRec): SearchableCustomer | null {
  return c.deleted ? null : { email: c.email, name: c.name, phone: c.phone, metadata: { ...c.metadata }, created: c.created };
}

function reindex(ctx: StripeContext, c: CustomerRec): void {
  c.searchVersions.push({ visibleAt: ctx.nowMs + ctx.searchIndexLagMs, doc: searchDoc(c) });
}

// Expandable references that are always null here; expanding a null reference yields null.
const NULL_EXPANDABLE = ['default_source', 'invoice_settings.default_payment_method', 'test_clock'];

export function mergeMetadata(current: Metadata, update: Metadata | undefined): Metadata {
  if (update === undefined) return current;
  if (Object.keys(update).length === 0) return {};
  const out = { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (v === '') delete out[k];
    else out[k] = v;
  }
  return out;
}

export function renderCustomer(c: CustomerRec): Record<string, unknown> {
  if (c.deleted) return { id: c.id, object: 'customer', deleted: true };
  return {
    id: c.id,
    object: 'customer',
    address: c.address,
    balance: 0,
    business_name: null,
    created: c.created,
    currency: c.currency,
    customer_account: null,
    default_source: null,
    delinquent: false,
    description: c.description,
    discount: null,
    email: c.email,
    individual_name: null,
    invoice_prefix: c.invoicePrefix,
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: { ...c.metadata },
    name: c.name,
    next_invoice_sequence: c.nextInvoiceSequence,
    phone: c.phone,
    preferred_locales: [...c.preferredLocales],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

export function requireCustomer(ctx: StripeContext, id: string, param: string, status = 400): CustomerRec {
  const c = ctx.account.customers.get(id);
  if (!c || c.deleted) throw noSuch('customer', id, param, status);
  return c;
}

export function createCustomer(ctx: StripeContext, p: Record<string, unknown>): Record<string, unknown> {
  checkExpand(ctx.expand, NULL_EXPANDABLE);
  const prefix = (p['invoice_prefix'] as string | undefined) ?? randomAlnum(8, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
  if (!/^[A-Z0-9]{3,12}$/.test(prefix)) {
    throw paramError('Invoice prefix must be between 3 and 12 uppercase letters or numbers.', 'invoice_prefix');
  }
  const c: CustomerRec = {
    id: ctx.account.newId('cus', 14),
    seq: ctx.account.nextSeq(),
    created: ctx.nowSeconds,
    email: (p['email'] as string | null | undefined) ?? null,
    name: (p['name'] as string | null | undefined) ?? null,
    phone: (p['phone'] as string | null | undefined) ?? null,
    description: (p['description'] as string | null | undefined) ?? null,
    address: toAddress(p['address']),
    metadata: mergeMetadata({}, p['metadata'] as Metadata | undefined),
    currency: null,
    invoicePrefix: prefix,
    nextInvoiceSequence: (p['next_invoice_sequence'] as number | undefined) ?? 1,
    preferredLocales: (p['preferred_locales'] as string[] | undefined) ?? [],
    deleted: false,
    searchVersions: [],
  };
  ctx.account.customers.set(c.id, c);
  reindex(ctx, c);
  const out = renderCustomer(c);
  ctx.emit('customer.created', out);
  return out;
}

export function retrieveCustomer(ctx: StripeContext, id: string): Record<string, unknown> {
  checkExpand(ctx.expand, NULL_EXPANDABLE);
  const c = ctx.account.customers.get(id);
  // A deleted customer is still retrievable and comes back as the deleted stub.
  if (!c) throw noSuch('customer', id, 'id', 404);
  return renderCustomer(c);
}

export function updateCustomer(ctx: StripeContext, id: string, p: Record<string, unknown>): Record<string, unknown> {
  checkExpand(ctx.expand, NULL_EXPANDABLE);
  const c = requireCustomer(ctx, id, 'id', 404);
  const before = renderCustomer(c);
  for (const key of ['email', 'name', 'phone', 'description'] as const) {
    if (key in p) c[key] = (p[key] as string | null) ?? null;
  }
  if ('address' in p) c.address = toAddress(p['address']);
  if ('preferred_locales' in p) c.preferredLocales = p['preferred_locales'] as string[];
  if ('invoice_prefix' in p) c.invoicePrefix = p['invoice_prefix'] as string;
  if ('next_invoice_sequence' in p) c.nextInvoiceSequence = p['next_invoice_sequence'] as number;
  c.metadata = mergeMetadata(c.metadata, p['metadata'] as Metadata | undefined);
  reindex(ctx, c);
  const out = renderCustomer(c);
  const previous: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(before)) if (JSON.stringify(v) !== JSON.stringify(out[k])) previous[k] = v;
  ctx.emit('customer.updated', out, previous);
  return out;
}

export function deleteCustomer(ctx: StripeContext, id: string): Record<string, unknown> {
  const c = requireCustomer(ctx, id, 'id', 404);
  const last = renderCustomer(c);
  c.deleted = true;
  reindex(ctx, c);
  ctx.emit('customer.deleted', last);
  return renderCustomer(c);
}

export function listCustomers(ctx: StripeContext, p: Record<string, unknown>): unknown {
  checkExpand(ctx.expand, NULL_EXPANDABLE.map((e) => `data.${e}`));
  const email = p['email'] as string | undefined;
  const items = [...ctx.account.customers.values()].filter(
    // The email filter is documented as case-sensitive.
    (c) => !c.deleted && (email === undefined || c.email === email) && matchesRange(c.created, p['created']),
  );
  return paginate(items, p, '/v1/customers', 'customer', renderCustomer);
}

export function searchCustomers(ctx: StripeContext, p: Record<string, unknown>): unknown {
  checkExpand(ctx.expand, ['total_count', ...NULL_EXPANDABLE.map((e) => `data.${e}`)]);
  const query = parseSearchQuery(p['query'] as string);
  const limit = (p['limit'] as number | undefined) ?? 10;
  let offset = 0;
  const page = p['page'] as string | undefined;
  if (page !== undefined) {
    const decoded = /^o(\d+)$/.exec(Buffer.from(page, 'base64url').toString());
    if (!decoded) throw invalidRequest('Invalid page token', { param: 'page' });
    offset = Number(decoded[1]);
  }
  const hits = [...ctx.account.customers.values()]
    .filter((c) => {
      const visible = c.searchVersions.filter((v) => v.visibleAt <= ctx.nowMs).at(-1);
      return visible?.doc ? searchMatches(query, visible.doc) : false;
    })
    .sort((a, b) => b.created - a.created || b.seq - a.seq);
  const data = hits.slice(offset, offset + limit);
  const hasMore = hits.length > offset + limit;
  const out: Record<string, unknown> = {
    object: 'search_result',
    data: data.map(renderCustomer),
    has_more: hasMore,
    next_page: hasMore ? Buffer.from(`o${offset + limit}`).toString('base64url') : null,
    url: '/v1/customers/search',
  };
  if (ctx.expand.includes('total_count')) out['total_count'] = hits.length;
  return out;
}

export const customerSpecs = { customerCreateSpec, customerUpdateSpec, customerListSpec, customerSearchSpec };
