import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomUUID } from 'node:crypto';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import type { Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import type { TemporalHarness } from '../../scripts/harness/temporal-harness';
import { startPaymentsStack, type PaymentsStack } from '../../scripts/harness/approval-stack';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { CheckoutSession, InvoiceView } from '../../api/payments/schemas';
import { quoteTax } from '../../domain/tax/quote-tax';
import { signPayload } from '../../infra/webhooks/signature';
import * as quotes from '../../scripts/harness/approved-quote';

const KEY = 'sk_test_paymentsSuite0001';
const WEBHOOK_SECRET = `whsec_${randomUUID().replaceAll('-', '')}`;
const ORIGIN = 'https://shades.example.test';
let stack: PaymentsStack;
let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let fake: StripeFake;
let tenant: Tenant;
let sales: string;

beforeAll(async () => {
  stack = await startPaymentsStack({ key: KEY, env: { PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET, CHECKOUT_RETURN_ORIGINS: `${ORIGIN}, https://other.example.test` } });
  ({ owner, temporal, api, fake, tenant, sales } = stack);
}, 120_000);
afterEach(() => fake.faults.clear());
afterAll(() => stack.close());

async function approvedQuote(options: { failPayments?: boolean } = {}) {
  if (options.failPayments) fake.faults.inject({ method: 'POST', path: '/v1/invoices', times: 1, action: faults.status(400) });
  return quotes.approvedQuote(stack, quotes.newCustomer('Riley Chen'));
}
const invoicesAtFake = (quoteId: string) => fake.inspect.invoices(KEY).filter((i) => (i.metadata as Record<string, string>).quote_id === quoteId);
const payments = (quoteId: string) => owner.query(`select status, attempts, last_error, external_id from sync_records where quote_id = $1 and provider = 'PAYMENTS'`, [quoteId]).then((r) => r.rows[0]);

describe('POST /api/v1/quotes/{id}/invoice', () => {
  it('502 while the provider refuses (attempt counted), 201 once healed, then 200 unchanged; payments leg only', async () => {
    const quote = await approvedQuote({ failPayments: true });
    expect(await payments(quote.quote_id)).toMatchObject({ status: 'FAILED', attempts: 1 });

    fake.faults.inject({ method: 'POST', path: '/v1/invoices', times: 1, action: faults.status(400) });
    const refused = await api.request(`/api/v1/quotes/${quote.quote_id}/invoice`, { method: 'POST', token: sales });
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('provider_error');
    expect(await payments(quote.quote_id)).toMatchObject({ status: 'FAILED', attempts: 2 });

    const created = await api.request(`/api/v1/quotes/${quote.quote_id}/invoice`, { method: 'POST', token: sales });
    expect(created.status).toBe(201);
    const view = InvoiceView.parse(await created.json());
    expect(view).toMatchObject({ quote_number: quote.quote_number, created: true, status: 'open', mode: 'test', currency: 'cad' });
    expect(view.tax_cents).toBe(quoteTax(null, quote.totals.amount_cents).total_cents);
    expect(view.total_cents).toBe(quote.totals.amount_cents + view.tax_cents!);
    expect(view.lines.filter((l) => l.is_tax)).toHaveLength(1);
    expect(await payments(quote.quote_id)).toMatchObject({ status: 'SUCCEEDED', attempts: 3, external_id: view.invoice_id });

    const again = await api.request(`/api/v1/quotes/${quote.quote_id}/invoice`, { method: 'POST', token: sales });
    expect(again.status).toBe(200);
    expect(InvoiceView.parse(await again.json())).toMatchObject({ invoice_id: view.invoice_id, created: false });
    expect(invoicesAtFake(quote.quote_id)).toHaveLength(1);
    // It never repeats the event or the other legs.
    expect((await owner.query(`select count(*)::int as n from outbox_events where envelope->'data'->>'quote_id' = $1`, [quote.quote_id])).rows[0].n).toBe(1);
    expect((await owner.query(`select provider, status from sync_records where quote_id = $1 and provider <> 'PAYMENTS'`, [quote.quote_id])).rows.map((r) => r.status)).toEqual(['SKIPPED', 'SKIPPED']);
  });

  it('400 for a quote that is not approved, 404 for an unknown one, 403 for a TECHNICIAN', async () => {
    const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: sales, json: twoWindows({ persist: true }) });
    const draft = ((await res.json()) as { quote_id: string }).quote_id;
    expect((await api.request(`/api/v1/quotes/${draft}/invoice`, { method: 'POST', token: sales })).status).toBe(400);
    expect((await api.request(`/api/v1/quotes/${randomUUID()}/invoice`, { method: 'POST', token: sales })).status).toBe(404);
    expect((await api.request(`/api/v1/quotes/${draft}/invoice`, { method: 'POST', token: await api.tokenFor(tenant.users.tech!) })).status).toBe(403);
  });

  it('503 without the payments secret key', async () => {
    const bare = await startApi({ env: { PAYMENTS_SECRET_KEY: '' } });
    try {
      const quote = await approvedQuote();
      for (const method of ['GET', 'POST']) {
        const res = await bare.request(`/api/v1/quotes/${quote.quote_id}/invoice`, { method, token: sales });
        expect(res.status).toBe(503);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('provider_error');
      }
    } finally {
      await bare.close();
    }
  });
});

describe('GET /api/v1/quotes/{id}/invoice', () => {
  it('reads the invoice written at approval from the provider', async () => {
    const quote = await approvedQuote();
    const res = await api.request(`/api/v1/quotes/${quote.quote_id}/invoice`, { token: sales });
    expect(res.status).toBe(200);
    const view = InvoiceView.parse(await res.json());
    expect(view).toMatchObject({ created: false, mode: 'test', subtotal_cents: quote.totals.amount_cents });
    expect(view.lines.filter((l) => !l.is_tax).map((l) => l.amount_cents).sort()).toEqual(quote.line_items.map((l) => l.price_cents).sort());
    expect(view.hosted_invoice_url).toMatch(/^https?:\/\//);
  });

  it('404 when no invoice was recorded', async () => {
    const quote = await approvedQuote({ failPayments: true });
    expect((await api.request(`/api/v1/quotes/${quote.quote_id}/invoice`, { token: sales })).status).toBe(404);
  });

  it('502 provider_error when the provider no longer has the recorded invoice (a sandbox restarted since)', async () => {
    const quote = await approvedQuote();
    await owner.query(`update sync_records set external_id = 'in_forgottenBySandbox01' where quote_id = $1 and provider = 'PAYMENTS'`, [quote.quote_id]);
    const res = await api.request(`/api/v1/quotes/${quote.quote_id}/invoice`, { token: sales });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { code: 'provider_error', message: expect.stringMatching(/^The payments provider could not return the invoice: No such invoice/) } });
  });
});

describe('POST /api/v1/quotes/{id}/checkout-session', () => {
  it('mints one open session (201), reuses it (200), with per-line amounts of quantity 1 plus the tax line', async () => {
    const quote = await approvedQuote();
    const first = await api.request(`/api/v1/quotes/${quote.quote_id}/checkout-session`, { method: 'POST', token: sales, json: {} });
    expect(first.status).toBe(201);
    const session = CheckoutSession.parse(await first.json());
    expect(session).toMatchObject({ quote_number: quote.quote_number, status: 'open', reused: false, currency: 'cad' });
    const tax = quoteTax(null, quote.totals.amount_cents).total_cents;
    expect(session.amount_total_cents).toBe(quote.totals.amount_cents + tax);
    const stored = fake.inspect.checkoutSessions(KEY).find((s) => s.id === session.session_id) as unknown as { success_url: string; line_items: { data: { quantity: number; amount_total: number }[] } };
    expect(stored.line_items.data.map((l) => l.quantity)).toEqual(stored.line_items.data.map(() => 1));
    expect(stored.line_items.data.map((l) => l.amount_total).sort()).toEqual([...quote.line_items.map((l) => l.price_cents), tax].sort());
    expect(stored.success_url.startsWith(ORIGIN)).toBe(true);

    const second = await api.request(`/api/v1/quotes/${quote.quote_id}/checkout-session`, { method: 'POST', token: sales, json: { return_url: 'https://other.example.test/thanks' } });
    expect(second.status).toBe(200);
    expect(CheckoutSession.parse(await second.json())).toMatchObject({ session_id: session.session_id, reused: true });
    expect(fake.inspect.checkoutSessions(KEY).filter((s) => (s.metadata as Record<string, string>).quote_id === quote.quote_id)).toHaveLength(1);
  });

  it('400 for a return_url off the allowlist or a quote not approved; 409 once paid', async () => {
    const quote = await approvedQuote();
    const off = await api.request(`/api/v1/quotes/${quote.quote_id}/checkout-session`, { method: 'POST', token: sales, json: { return_url: 'https://evil.example.test/' } });
    expect(off.status).toBe(400);
    const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: sales, json: twoWindows({ persist: true }) });
    const draft = ((await res.json()) as { quote_id: string }).quote_id;
    expect((await api.request(`/api/v1/quotes/${draft}/checkout-session`, { method: 'POST', token: sales, json: {} })).status).toBe(400);
    expect((await api.request(`/api/v1/quotes/${quote.quote_id}/checkout-session`, { method: 'POST', token: sales, json: { return_url: 'x'.repeat(2001) } })).status).toBe(422);

    const invoiceId = (await payments(quote.quote_id)).external_id as string;
    fake.addWebhookEndpoint({ url: `${api.url}/api/v1/integrations/payments/webhook`, secret: WEBHOOK_SECRET, enabledEvents: ['invoice.paid'], apiKey: KEY });
    fake.payInvoiceAsCustomer(KEY, invoiceId);
    for (let i = 0; i < 50 && !(await owner.query('select paid_at from quotes where id = $1', [quote.quote_id])).rows[0].paid_at; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await api.request(`/api/v1/quotes/${quote.quote_id}/checkout-session`, { method: 'POST', token: sales, json: {} })).status).toBe(409);
  });
});

describe('POST /api/v1/integrations/payments/webhook', () => {
  const send = (body: string, header: string | undefined, target = api) =>
    target.request('/api/v1/integrations/payments/webhook', { method: 'POST', headers: { 'content-type': 'application/json', ...(header ? { 'payments-signature': header } : {}) }, body });
  const event = (quoteId: string, id = `evt_${randomUUID().replaceAll('-', '')}`, type = 'invoice.paid', paidAt = 1_790_000_000) =>
    JSON.stringify({ id, object: 'event', type, created: paidAt, data: { object: { object: 'invoice', metadata: { organization_id: tenant.id, quote_id: quoteId }, status_transitions: { paid_at: paidAt } } } });
  const sign = (body: string, secret = WEBHOOK_SECRET, t = Math.floor(Date.now() / 1000)) => signPayload({ secrets: [secret], body, timestamp: t });
  const paidAt = async (quoteId: string) => (await owner.query('select paid_at from quotes where id = $1', [quoteId])).rows[0].paid_at as Date | null;

  it('sets paid_at once on invoice.paid; a replay is ignored and a later payment does not rewrite it', async () => {
    const quote = await approvedQuote();
    const body = event(quote.quote_id, 'evt_first_payment_1', 'invoice.paid', 1_790_000_000);
    const first = await send(body, sign(body));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, handled: true });
    expect((await paidAt(quote.quote_id))!.toISOString()).toBe(new Date(1_790_000_000 * 1000).toISOString());
    const replay = await send(body, sign(body));
    expect(await replay.json()).toEqual({ received: true, handled: false });
    const later = event(quote.quote_id, 'evt_second_payment_2', 'invoice.paid', 1_790_500_000);
    expect(await (await send(later, sign(later))).json()).toEqual({ received: true, handled: true });
    expect((await paidAt(quote.quote_id))!.toISOString()).toBe(new Date(1_790_000_000 * 1000).toISOString());
  });

  it('acknowledges events it does not act on', async () => {
    const quote = await approvedQuote();
    const body = event(quote.quote_id, undefined, 'customer.updated');
    expect(await (await send(body, sign(body))).json()).toEqual({ received: true, handled: false });
    expect(await paidAt(quote.quote_id)).toBeNull();
  });

  it('400 for a bad or stale signature, one changed byte, or a body that is not JSON', async () => {
    const quote = await approvedQuote();
    const body = event(quote.quote_id);
    const cases: [string, string | undefined][] = [
      [body, undefined],
      [body, 't=1,v1=00'],
      [body, sign(body, 'whsec_the_wrong_secret')],
      [body, sign(body, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 301)],
      [body.replace('invoice.paid', 'invoice.paye'), sign(body)],
      ['not json', sign('not json')],
    ];
    for (const [payload, header] of cases) {
      const res = await send(payload, header);
      expect({ header, status: res.status }).toEqual({ header, status: 400 });
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_request');
    }
    expect(await paidAt(quote.quote_id)).toBeNull();
  });

  // A signed body of null, or a paid_at that is no unix time, must not be a 500: the provider
  // redelivers what answered a 500, for days.
  it('400 for a signed body that is not a provider event; never a 500', async () => {
    const bodies = ['null', '[]', '42', '"evt"', 'true', '{}', '{"id":7,"type":"invoice.paid"}', '{"id":"evt_1","type":null}', JSON.stringify({ id: 'evt_\u0000', type: 'invoice.paid' }), JSON.stringify({ id: `evt_${'x'.repeat(5000)}`, type: 'invoice.paid' }), JSON.stringify({ id: `evt_${randomUUID()}`, type: 'invoice.paid\u0000' })];
    for (const body of bodies) {
      const res = await send(body, sign(body));
      expect({ body: body.slice(0, 60), status: res.status }).toEqual({ body: body.slice(0, 60), status: 400 });
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_request');
    }
  });

  it('records a handled event type with malformed fields as not handled, so a redelivery ends too', async () => {
    const quote = await approvedQuote();
    const malformed = (id: string, object: unknown, created: unknown = 1_790_000_000) => JSON.stringify({ id, object: 'event', type: 'invoice.paid', created, data: { object } });
    const meta = { organization_id: tenant.id, quote_id: quote.quote_id };
    const cases = [
      malformed(`evt_${randomUUID()}`, { metadata: meta, status_transitions: { paid_at: 'yesterday' } }),
      malformed(`evt_${randomUUID()}`, { metadata: meta, status_transitions: { paid_at: 1e20 } }),
      malformed(`evt_${randomUUID()}`, { metadata: meta, status_transitions: { paid_at: -1 } }),
      malformed(`evt_${randomUUID()}`, { metadata: meta, status_transitions: { paid_at: 1_790_000_000.5 } }),
      malformed(`evt_${randomUUID()}`, { metadata: meta, status_transitions: null }, 'soon'),
      malformed(`evt_${randomUUID()}`, { metadata: meta, status_transitions: 'paid' }),
      malformed(`evt_${randomUUID()}`, { metadata: [meta] }),
      malformed(`evt_${randomUUID()}`, { metadata: { organization_id: tenant.id, quote_id: 'not-a-uuid\u0000' } }),
      malformed(`evt_${randomUUID()}`, null),
      JSON.stringify({ id: `evt_${randomUUID()}`, type: 'invoice.paid', data: 'invoice' }),
      JSON.stringify({ id: `evt_${randomUUID()}`, type: 'checkout.session.completed', data: { object: { payment_status: 'paid', metadata: meta } }, created: 'now' }),
    ];
    for (const body of cases) {
      for (const delivery of ['first', 'redelivery']) {
        const res = await send(body, sign(body));
        expect({ body, delivery, status: res.status }).toEqual({ body, delivery, status: 200 });
        expect(await res.json()).toEqual({ received: true, handled: false });
      }
      const id = (JSON.parse(body) as { id: string }).id;
      expect((await owner.query('select handled from payments_webhook_events where event_id = $1', [id])).rows).toEqual([{ handled: false }]);
    }
    expect(await paidAt(quote.quote_id)).toBeNull();
  });

  it('503 without the webhook secret', async () => {
    const bare = await startApi({ env: { PAYMENTS_WEBHOOK_SECRET: '' } });
    try {
      const body = event(randomUUID());
      expect((await send(body, sign(body), bare)).status).toBe(503);
    } finally {
      await bare.close();
    }
  });
});
