// A local Stripe API (v1 subset: customers, invoice items, invoices, credit notes, Checkout Sessions, events)
// for tests. Point stripe-node at it with
//   new Stripe(key, { host: '127.0.0.1', port, protocol: 'http' })
// where `port` comes from the URL returned by start(). Each distinct test-mode secret key is its
// own Stripe account. See scripts/sandboxes/faults.ts for fault injection and the request log.
import { HttpFake, json } from './core/http-fake';
import { randomAlnum } from './core/random';
import type { FakeRequest, FakeResponse, StartedFake } from './core/http-fake';
import type { FaultInjector, RequestLog } from './faults';
import { completeSessionAsCustomer, renderSession } from './stripe/checkout';
import { renderCreditNote } from './stripe/credit-notes';
import { renderCustomer } from './stripe/customers';
import { StripeApiError } from './stripe/errors';
import { renderInvoice, renderInvoiceItem } from './stripe/invoice-render';
import { payInvoiceAsCustomer } from './stripe/invoices';
import { contextFor, createStripeRouter, renderEvent } from './stripe/router';
import type { RouterDeps } from './stripe/router';
import { StripeAccount } from './stripe/store';
import type { EventRec } from './stripe/store';
import { deliverStripeEvent, signStripeEvent } from './stripe/webhooks';
import { hostedPage } from './stripe/hosted-pages';
import type { DeliveryResult, StripeEventJson } from './stripe/webhooks';

export {
  buildStripeEvent, signStripeEvent, signedInvoicePaidEvent, stripeSignatureHeader, deliverStripeEvent, STRIPE_API_VERSION,
} from './stripe/webhooks';
export type { SignedStripeEvent, StripeEventJson, DeliveryResult } from './stripe/webhooks';

export interface StripeFakeOptions {
  /** Accepted secret keys. Omitted: any `sk_test_`/`rk_test_` key is accepted, each being its own account. */
  apiKeys?: readonly string[];
  /** Currency for invoices/items when neither the request nor the customer sets one. Default 'cad'. */
  defaultCurrency?: string;
  /** Stripe Search is eventually consistent; writes become searchable after this many ms. Default 0. */
  searchIndexLagMs?: number;
  /** How long idempotency keys are remembered. Stripe keeps them at least 24 hours. */
  idempotencyTtlMs?: number;
  /** Clock in epoch ms, for tests that move time (session expiry, key pruning). */
  now?: () => number;
  /**
   * Serve the hosted invoice and Checkout pages on the fake's own origin, where a test card pays
   * (stripe/hosted-pages.ts), and answer those pages' URLs. npm start's sandbox does; by default
   * the URLs are the provider's own hosts, as the real API answers them.
   */
  hostedPages?: boolean;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  secret: string;
  /** Event types to deliver; ['*'] for all. */
  enabledEvents: readonly string[];
  /** Only events of this account's key; omitted = every account. */
  apiKey?: string;
}

const KEY_SHAPE = /^(sk|rk)_test_[A-Za-z0-9]{8,247}$/;

export class StripeFake {
  readonly #http: HttpFake;
  readonly #accounts = new Map<string, StripeAccount>();
  readonly #opts: Required<Omit<StripeFakeOptions, 'apiKeys' | 'hostedPages'>> & { apiKeys: readonly string[] | undefined; hostedPages: boolean };
  readonly #deps: RouterDeps;
  readonly #endpoints: WebhookEndpoint[] = [];
  readonly #deliveries: DeliveryResult[] = [];
  readonly #inFlight = new Set<Promise<void>>();

  constructor(opts: StripeFakeOptions = {}) {
    this.#opts = {
      apiKeys: opts.apiKeys,
      defaultCurrency: opts.defaultCurrency ?? 'cad',
      searchIndexLagMs: opts.searchIndexLagMs ?? 0,
      idempotencyTtlMs: opts.idempotencyTtlMs ?? 24 * 3600 * 1000,
      now: opts.now ?? Date.now,
      hostedPages: opts.hostedPages ?? false,
    };
    this.#deps = {
      accountFor: (key) => this.#accountFor(key),
      nowMs: () => this.#opts.now(),
      searchIndexLagMs: this.#opts.searchIndexLagMs,
      idempotencyTtlMs: this.#opts.idempotencyTtlMs,
      defaultCurrency: this.#opts.defaultCurrency,
      onEvent: (account, e) => this.#dispatchEvent(account, e),
      ...(this.#opts.hostedPages ? { hostedOrigin: () => this.#http.url } : {}),
    };
    const api = createStripeRouter(this.#deps);
    const pages = { accounts: () => this.#accounts.values(), ctx: (account: StripeAccount) => this.#ctx(account) };
    const route = this.#opts.hostedPages ? (req: FakeRequest) => hostedPage(pages, req) ?? api(req) : api;
    this.#http = new HttpFake(
      {
        handle: route,
        faultResponse: (status, req) => this.#faultResponse(status, req),
        idempotencyKey: (req) => (req.method === 'POST' ? req.header('idempotency-key') : undefined),
      },
      () => this.#opts.now(),
    );
  }

  get faults(): FaultInjector {
    return this.#http.faults;
  }

  get requests(): RequestLog {
    return this.#http.requests;
  }

  /** Base URL once started, e.g. http://127.0.0.1:40123. */
  get url(): string {
    return this.#http.url;
  }

  start(port = 0): Promise<StartedFake> {
    return this.#http.start(port);
  }

  async close(): Promise<void> {
    await this.flushWebhooks();
    await this.#http.close();
  }

  /** Options for `new Stripe(key, clientOptions())`. */
  clientOptions(): { host: string; port: number; protocol: 'http' } {
    return { host: '127.0.0.1', port: Number(new URL(this.url).port), protocol: 'http' };
  }

  #accountFor(key: string): StripeAccount | undefined {
    const allowed = this.#opts.apiKeys ? this.#opts.apiKeys.includes(key) : KEY_SHAPE.test(key);
    if (!allowed) return undefined;
    let account = this.#accounts.get(key);
    if (!account) {
      account = new StripeAccount(key);
      this.#accounts.set(key, account);
    }
    return account;
  }

  #faultResponse(status: number, req: FakeRequest): FakeResponse {
    const headers = { 'request-id': `req_${randomAlnum(14)}` };
    const nowSeconds = Math.floor(this.#opts.now() / 1000);
    const reqId = headers['request-id'];
    let err: StripeApiError;
    if (status === 429) {
      err = new StripeApiError(429, 'invalid_request_error', 'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.', { code: 'rate_limit' });
    } else if (status >= 500) {
      err = new StripeApiError(status, 'api_error', `An unknown error occurred while handling ${req.method} ${req.path}; please retry.`);
    } else if (status === 409) {
      err = new StripeApiError(409, 'invalid_request_error', 'There was a conflict with another request; please retry.', { code: 'lock_timeout' });
    } else {
      err = new StripeApiError(status, 'invalid_request_error', `Injected ${status} for ${req.method} ${req.path}.`);
    }
    return json(status, err.body(reqId, nowSeconds), headers);
  }

  #accountsFor(apiKey: string | undefined): StripeAccount[] {
    if (apiKey === undefined) return [...this.#accounts.values()];
    const a = this.#accounts.get(apiKey);
    return a ? [a] : [];
  }

  #ctx(account: StripeAccount) {
    return contextFor(account, this.#deps, (e) => {
      account.events.push(e);
      this.#dispatchEvent(account, e);
    });
  }

  #requireAccount(apiKey: string): StripeAccount {
    const a = this.#accountFor(apiKey);
    if (!a) throw new Error(`not an accepted key: ${apiKey}`);
    return a;
  }

  /** Read-only views of the state, rendered as the API would return them. Omit apiKey for all accounts. */
  readonly inspect = {
    customers: (apiKey?: string) => this.#accountsFor(apiKey).flatMap((a) => [...a.customers.values()].map(renderCustomer)),
    invoiceItems: (apiKey?: string) => this.#accountsFor(apiKey).flatMap((a) => [...a.invoiceItems.values()].map(renderInvoiceItem)),
    invoices: (apiKey?: string) =>
      this.#accountsFor(apiKey).flatMap((a) => {
        const ctx = this.#ctx(a);
        return [...a.invoices.values()].map((i) => renderInvoice(ctx, i));
      }),
    checkoutSessions: (apiKey?: string) =>
      this.#accountsFor(apiKey).flatMap((a) => {
        const ctx = this.#ctx(a);
        return [...a.sessions.values()].map((s) => renderSession(ctx, s, ['line_items']));
      }),
    creditNotes: (apiKey?: string) =>
      this.#accountsFor(apiKey).flatMap((a) => {
        const ctx = this.#ctx(a);
        return [...a.creditNotes.values()].map((cn) => renderCreditNote(ctx, cn));
      }),
    events: (apiKey?: string) => this.#accountsFor(apiKey).flatMap((a) => a.events.map(renderEvent)),
  };

  /** The customer pays an open invoice on the hosted page; returns the resulting invoice. */
  payInvoiceAsCustomer(apiKey: string, invoiceId: string): Record<string, unknown> {
    const account = this.#requireAccount(apiKey);
    return payInvoiceAsCustomer(this.#ctx(account), invoiceId);
  }

  /** The customer completes and pays an open Checkout Session; returns the session. */
  completeCheckoutSession(apiKey: string, sessionId: string, opts: { email?: string } = {}): Record<string, unknown> {
    const account = this.#requireAccount(apiKey);
    return completeSessionAsCustomer(this.#ctx(account), sessionId, opts.email);
  }

  /** Registers a loopback URL that receives signed events as they happen, like a Dashboard endpoint. */
  addWebhookEndpoint(endpoint: Omit<WebhookEndpoint, 'id'>): WebhookEndpoint {
    const full = { ...endpoint, id: `we_${this.#endpoints.length + 1}` };
    this.#endpoints.push(full);
    return full;
  }

  deliveries(): readonly DeliveryResult[] {
    return this.#deliveries;
  }

  /** Resolves when every webhook delivery started so far has finished. */
  async flushWebhooks(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  #dispatchEvent(account: StripeAccount, e: EventRec): void {
    const event: StripeEventJson = renderEvent(e);
    for (const ep of this.#endpoints) {
      if (ep.apiKey !== undefined && this.#accounts.get(ep.apiKey) !== account) continue;
      if (!ep.enabledEvents.includes('*') && !ep.enabledEvents.includes(e.type)) continue;
      const signed = signStripeEvent(event, ep.secret, Math.floor(this.#opts.now() / 1000));
      const p = deliverStripeEvent(ep.url, signed).then((r) => {
        this.#deliveries.push(r);
      });
      this.#inFlight.add(p);
      void p.finally(() => this.#inFlight.delete(p));
    }
  }
}
