// Request pipeline of the Stripe fake: API-key authentication, Connect header rejection,
// content type, Idempotency-Key replay/conflict detection, parameter decoding and validation,
// routing to endpoint handlers, and Stripe's response headers and error envelope.
import { json } from '../core/http-fake';
import type { FakeRequest, FakeResponse } from '../core/http-fake';
import { randomAlnum } from '../core/random';
import { expandOnly, matchesRange, paginate, paginationFields } from './context';
import type { StripeContext } from './context';
import {
  createCustomer, customerSpecs, deleteCustomer, listCustomers, retrieveCustomer, searchCustomers, updateCustomer,
} from './customers';
import { StripeApiError, invalidRequest } from './errors';
import { createCreditNote, creditNoteCreateSpec, creditNoteListSpec, listCreditNotes, retrieveCreditNote } from './credit-notes';
import { decodeForm, fields, parseParams } from './form';
import type { FormObject, ObjectSpec } from './form';
import { createInvoiceItem, invoiceItemCreateSpec, invoiceItemListSpec, listInvoiceItems, retrieveInvoiceItem } from './invoice-items';
import {
  createInvoice, finalizeInvoice, invoiceCreateSpec, invoiceFinalizeSpec, invoiceLinesSpec, invoiceListSpec, invoicePaySpec,
  listInvoiceLines, listInvoices, payInvoice, retrieveInvoice, sendInvoice, voidInvoice,
} from './invoices';
import {
  createSession, expireSession, listSessionLineItems, listSessions, retrieveSession, sessionCreateSpec, sessionLineItemsSpec,
  sessionListSpec,
} from './checkout';
import type { EventRec, StripeAccount } from './store';
import { STRIPE_API_VERSION, buildStripeEvent } from './webhooks';
import type { StripeEventJson } from './webhooks';

type Handler = (ctx: StripeContext, params: Record<string, unknown>, ids: string[]) => unknown;

interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  pattern: RegExp;
  spec: ObjectSpec;
  handler: Handler;
}

const ID = '([^/]+)';
const empty = fields({});

export function renderEvent(e: EventRec): StripeEventJson {
  return buildStripeEvent(e.type, e.object, {
    id: e.id,
    created: e.created,
    ...(e.previousAttributes ? { previousAttributes: e.previousAttributes } : {}),
    requestId: e.requestId,
    idempotencyKey: e.idempotencyKey,
  });
}

const eventListSpec = fields(
  { ...paginationFields, created: { kind: 'range' }, type: { kind: 'string' }, types: { kind: 'array', of: { kind: 'string' }, maxItems: 20 } },
  ['delivery_success'],
);

function listEvents(ctx: StripeContext, p: Record<string, unknown>): unknown {
  const types = p['types'] as string[] | undefined;
  const type = p['type'] as string | undefined;
  const matchType = (t: string) => {
    if (types) return types.includes(t);
    if (!type) return true;
    // `type` accepts a trailing wildcard such as `invoice.*`.
    return type.endsWith('.*') ? t.startsWith(type.slice(0, -1)) : t === type;
  };
  const items = ctx.account.events.filter((e) => matchType(e.type) && matchesRange(e.created, p['created']));
  return paginate(items, p, '/v1/events', 'event', renderEvent);
}

function retrieveEvent(ctx: StripeContext, id: string): unknown {
  const e = ctx.account.events.find((x) => x.id === id);
  if (!e) throw new StripeApiError(404, 'invalid_request_error', `No such event: '${id}'`, { code: 'resource_missing', param: 'id' });
  return renderEvent(e);
}

const routes: Route[] = [
  { method: 'POST', pattern: /^\/v1\/customers$/, spec: customerSpecs.customerCreateSpec, handler: (c, p) => createCustomer(c, p) },
  { method: 'GET', pattern: /^\/v1\/customers$/, spec: customerSpecs.customerListSpec, handler: (c, p) => listCustomers(c, p) },
  { method: 'GET', pattern: /^\/v1\/customers\/search$/, spec: customerSpecs.customerSearchSpec, handler: (c, p) => searchCustomers(c, p) },
  { method: 'GET', pattern: new RegExp(`^/v1/customers/${ID}$`), spec: expandOnly, handler: (c, _p, [id]) => retrieveCustomer(c, id as string) },
  { method: 'POST', pattern: new RegExp(`^/v1/customers/${ID}$`), spec: customerSpecs.customerUpdateSpec, handler: (c, p, [id]) => updateCustomer(c, id as string, p) },
  { method: 'DELETE', pattern: new RegExp(`^/v1/customers/${ID}$`), spec: empty, handler: (c, _p, [id]) => deleteCustomer(c, id as string) },
  { method: 'POST', pattern: /^\/v1\/invoiceitems$/, spec: invoiceItemCreateSpec, handler: (c, p) => createInvoiceItem(c, p) },
  { method: 'GET', pattern: /^\/v1\/invoiceitems$/, spec: invoiceItemListSpec, handler: (c, p) => listInvoiceItems(c, p) },
  { method: 'GET', pattern: new RegExp(`^/v1/invoiceitems/${ID}$`), spec: expandOnly, handler: (c, _p, [id]) => retrieveInvoiceItem(c, id as string) },
  { method: 'POST', pattern: /^\/v1\/invoices$/, spec: invoiceCreateSpec, handler: (c, p) => createInvoice(c, p) },
  { method: 'GET', pattern: /^\/v1\/invoices$/, spec: invoiceListSpec, handler: (c, p) => listInvoices(c, p) },
  { method: 'GET', pattern: new RegExp(`^/v1/invoices/${ID}$`), spec: expandOnly, handler: (c, _p, [id]) => retrieveInvoice(c, id as string) },
  { method: 'GET', pattern: new RegExp(`^/v1/invoices/${ID}/lines$`), spec: invoiceLinesSpec, handler: (c, p, [id]) => listInvoiceLines(c, id as string, p) },
  { method: 'POST', pattern: new RegExp(`^/v1/invoices/${ID}/finalize$`), spec: invoiceFinalizeSpec, handler: (c, p, [id]) => finalizeInvoice(c, id as string, p) },
  { method: 'POST', pattern: new RegExp(`^/v1/invoices/${ID}/pay$`), spec: invoicePaySpec, handler: (c, p, [id]) => payInvoice(c, id as string, p) },
  { method: 'POST', pattern: new RegExp(`^/v1/invoices/${ID}/void$`), spec: expandOnly, handler: (c, _p, [id]) => voidInvoice(c, id as string) },
  { method: 'POST', pattern: new RegExp(`^/v1/invoices/${ID}/send$`), spec: expandOnly, handler: (c, _p, [id]) => sendInvoice(c, id as string) },
  { method: 'POST', pattern: /^\/v1\/credit_notes$/, spec: creditNoteCreateSpec, handler: (c, p) => createCreditNote(c, p) },
  { method: 'GET', pattern: /^\/v1\/credit_notes$/, spec: creditNoteListSpec, handler: (c, p) => listCreditNotes(c, p) },
  { method: 'GET', pattern: new RegExp(`^/v1/credit_notes/${ID}$`), spec: expandOnly, handler: (c, _p, [id]) => retrieveCreditNote(c, id as string) },
  { method: 'POST', pattern: /^\/v1\/checkout\/sessions$/, spec: sessionCreateSpec, handler: (c, p) => createSession(c, p) },
  { method: 'GET', pattern: /^\/v1\/checkout\/sessions$/, spec: sessionListSpec, handler: (c, p) => listSessions(c, p) },
  { method: 'GET', pattern: new RegExp(`^/v1/checkout/sessions/${ID}$`), spec: expandOnly, handler: (c, _p, [id]) => retrieveSession(c, id as string) },
  { method: 'POST', pattern: new RegExp(`^/v1/checkout/sessions/${ID}/expire$`), spec: expandOnly, handler: (c, _p, [id]) => expireSession(c, id as string) },
  { method: 'GET', pattern: new RegExp(`^/v1/checkout/sessions/${ID}/line_items$`), spec: sessionLineItemsSpec, handler: (c, p, [id]) => listSessionLineItems(c, id as string, p) },
  { method: 'GET', pattern: /^\/v1\/events$/, spec: eventListSpec, handler: (c, p) => listEvents(c, p) },
  { method: 'GET', pattern: new RegExp(`^/v1/events/${ID}$`), spec: expandOnly, handler: (c, _p, [id]) => retrieveEvent(c, id as string) },
];

export interface RouterDeps {
  accountFor(apiKey: string): StripeAccount | undefined;
  nowMs(): number;
  searchIndexLagMs: number;
  idempotencyTtlMs: number;
  defaultCurrency: string;
  onEvent(account: StripeAccount, event: EventRec): void;
  /** The origin of the fake's own hosted pages, when it serves them (the npm start sandbox). */
  hostedOrigin?: () => string | undefined;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function maskKey(key: string): string {
  const prefix = /^(sk|rk|pk)_(test|live)_/.exec(key)?.[0] ?? '';
  return `${prefix}${'*'.repeat(4)}${key.slice(-4)}`;
}

function extractApiKey(req: FakeRequest): string | undefined {
  const auth = req.header('authorization');
  if (!auth) return undefined;
  const bearer = /^Bearer\s+(\S+)$/i.exec(auth);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+(\S+)$/i.exec(auth);
  // curl -u sk_test_x: sends the key as the Basic username.
  if (basic) return Buffer.from(basic[1] as string, 'base64').toString().split(':')[0];
  return '';
}

export function createStripeRouter(deps: RouterDeps): (req: FakeRequest) => FakeResponse {
  return (req) => {
    const requestId = `req_${randomAlnum(14)}`;
    const nowMs = deps.nowMs();
    const nowSeconds = Math.floor(nowMs / 1000);
    const version = req.header('stripe-version') ?? STRIPE_API_VERSION;
    const baseHeaders: Record<string, string> = {
      'request-id': requestId,
      'stripe-version': version,
      'access-control-allow-origin': '*',
      'cache-control': 'no-cache, no-store',
    };
    const key = req.header('idempotency-key');
    if (key !== undefined && req.method === 'POST') baseHeaders['idempotency-key'] = key;
    const fail = (err: StripeApiError): FakeResponse => json(err.status, err.body(requestId, nowSeconds), baseHeaders);

    if (!/^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/.test(version)) {
      return fail(invalidRequest(`Invalid Stripe API version: ${version}`, { param: 'Stripe-Version' }));
    }
    const apiKey = extractApiKey(req);
    const unauthorized = (err: StripeApiError): FakeResponse => {
      const r = fail(err);
      return { ...r, headers: { ...r.headers, 'www-authenticate': 'Basic realm="Stripe"' } };
    };
    if (apiKey === undefined) {
      return unauthorized(
        new StripeApiError(
          401,
          'invalid_request_error',
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        ),
      );
    }
    const account = deps.accountFor(apiKey);
    if (!account) return unauthorized(new StripeApiError(401, 'invalid_request_error', `Invalid API Key provided: ${maskKey(apiKey)}`));
    const connected = req.header('stripe-account');
    if (connected) {
      // The fake models no Connect platform, so every connected account is foreign to the key.
      return fail(
        new StripeApiError(
          403,
          'permission_error',
          `The provided key '${maskKey(apiKey)}' does not have access to account '${connected}' (or that account does not exist). Application access may have been revoked.`,
        ),
      );
    }

    const route = routes.find((r) => r.method === req.method && r.pattern.test(req.path));
    if (!route) {
      return fail(
        invalidRequest(`Unrecognized request URL (${req.method}: ${req.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`),
      );
    }
    const ids = (route.pattern.exec(req.path) ?? []).slice(1).map((s) => decodeURIComponent(s));

    let raw: FormObject;
    try {
      if (req.method === 'POST') {
        const type = (req.header('content-type') ?? '').split(';')[0]?.trim() ?? '';
        if (req.body.length > 0 && type !== 'application/x-www-form-urlencoded') {
          return fail(invalidRequest(`Invalid request: unsupported Content-Type ${type}. If error persists and you need assistance, please contact support@stripe.com.`));
        }
        raw = decodeForm(req.body.toString('utf8'));
      } else {
        raw = decodeForm(req.url.search.slice(1));
      }
    } catch (err) {
      if (err instanceof StripeApiError) return fail(err);
      throw err;
    }

    const useIdempotency = req.method === 'POST' && key !== undefined;
    const storeKey = `${key}`;
    const fingerprint = canonical(raw);
    if (useIdempotency) {
      if (storeKey.length > 255) return fail(invalidRequest('Idempotency keys can be at most 255 characters long.', { param: 'Idempotency-Key' }));
      const stored = account.idempotency.get(storeKey);
      if (stored && nowMs - stored.storedAt < deps.idempotencyTtlMs) {
        if (stored.method !== req.method || stored.path !== req.path) {
          return fail(
            new StripeApiError(
              400,
              'idempotency_error',
              `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${stored.method} ${stored.path}' vs '${req.method} ${req.path}'). Try using a key other than '${key}' if you meant to execute a different request.`,
            ),
          );
        }
        if (stored.fingerprint !== fingerprint) {
          return fail(
            new StripeApiError(
              400,
              'idempotency_error',
              `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            ),
          );
        }
        return {
          ...stored.response,
          headers: { ...stored.response.headers, ...baseHeaders, 'idempotent-replayed': 'true', 'original-request': stored.requestId },
          replayed: true,
        };
      }
    }

    const events: EventRec[] = [];
    let response: FakeResponse;
    let save = true;
    try {
      const params = parseParams(route.spec, raw);
      const ctx: StripeContext = {
        account,
        nowMs,
        nowSeconds,
        requestId,
        idempotencyKey: key ?? null,
        searchIndexLagMs: deps.searchIndexLagMs,
        hostedOrigin: deps.hostedOrigin?.(),
        defaultCurrency: deps.defaultCurrency,
        expand: (params['expand'] as string[] | undefined) ?? [],
        emit(type, object, previousAttributes) {
          events.push({
            id: account.newId('evt'),
            seq: account.nextSeq(),
            created: nowSeconds,
            type,
            object: structuredClone(object),
            previousAttributes: previousAttributes ? structuredClone(previousAttributes) : undefined,
            requestId,
            idempotencyKey: key ?? null,
          });
        },
      };
      response = json(200, route.handler(ctx, params, ids), baseHeaders);
    } catch (err) {
      if (!(err instanceof StripeApiError)) throw err;
      save = err.replayable;
      response = fail(err);
    }
    for (const e of events) {
      account.events.push(e);
      deps.onEvent(account, e);
    }
    if (useIdempotency && save) {
      account.idempotency.set(storeKey, { method: req.method, path: req.path, fingerprint, response, requestId, storedAt: nowMs });
    }
    return response;
  };
}

export function contextFor(account: StripeAccount, deps: RouterDeps, onEmit: (e: EventRec) => void): StripeContext {
  const nowMs = deps.nowMs();
  const nowSeconds = Math.floor(nowMs / 1000);
  return {
    account,
    nowMs,
    nowSeconds,
    requestId: '',
    idempotencyKey: null,
    searchIndexLagMs: deps.searchIndexLagMs,
    hostedOrigin: deps.hostedOrigin?.(),
    defaultCurrency: deps.defaultCurrency,
    expand: [],
    emit(type, object, previousAttributes) {
      onEmit({
        id: account.newId('evt'),
        seq: account.nextSeq(),
        created: nowSeconds,
        type,
        object: structuredClone(object),
        previousAttributes: previousAttributes ? structuredClone(previousAttributes) : undefined,
        requestId: null,
        idempotencyKey: null,
      });
    },
  };
}
