// The Stripe fake driven by the real stripe-node client: the approval flow (customer, invoice
// items, send_invoice net-14 invoice, finalize, retrieve), credit notes, Checkout Sessions, idempotency,
// retries under injected faults, typed errors and webhook signatures.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { StripeFake, signedInvoicePaidEvent, signStripeEvent, buildStripeEvent } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';

const KEY = 'sk_test_shadeofficeFakeKey0001';
const OTHER_TENANT_KEY = 'sk_test_shadeofficeFakeKey0002';
const WEBHOOK_SECRET = 'whsec_fakeTestSecret123';

let fake: StripeFake;
let close: () => Promise<void>;

function client(opts: { maxNetworkRetries?: number; timeout?: number; key?: string } = {}): Stripe {
  return new Stripe(opts.key ?? KEY, {
    ...fake.clientOptions(),
    maxNetworkRetries: opts.maxNetworkRetries ?? 0,
    timeout: opts.timeout ?? 5_000,
    telemetry: false,
  });
}

beforeAll(async () => {
  fake = new StripeFake();
  ({ close } = await fake.start());
});

afterAll(async () => {
  await close();
});

describe('stripe fake: quote approval invoice flow', () => {
  it('creates a customer, line items plus a 13% tax line, a send_invoice net-14 invoice, finalizes and retrieves it', async () => {
    const stripe = client();
    const customer = await stripe.customers.create({
      email: 'jane@example.com',
      name: 'Jane Doe',
      metadata: { tenant_id: 't_1', contact_id: 'c_9' },
    });
    expect(customer.id).toMatch(/^cus_[A-Za-z0-9]{14}$/);
    expect(customer.livemode).toBe(false);
    expect(customer.metadata).toEqual({ tenant_id: 't_1', contact_id: 'c_9' });

    const listed = await stripe.customers.list({ email: 'jane@example.com' });
    expect(listed.data.map((c) => c.id)).toEqual([customer.id]);
    const searched = await stripe.customers.search({ query: "metadata['contact_id']:'c_9' AND email:'JANE@example.com'" });
    expect(searched.data.map((c) => c.id)).toEqual([customer.id]);

    const draft = await stripe.invoices.create({
      customer: customer.id,
      collection_method: 'send_invoice',
      days_until_due: 14,
      metadata: { quote_id: 'q_1' },
    });
    expect(draft.id).toMatch(/^in_/);
    expect(draft.status).toBe('draft');
    expect(draft.number).toBeNull();
    expect(draft.lines.data).toHaveLength(0);

    const lines = [
      { description: 'Roller shade 48x60', amount: 25_000 },
      { description: 'Install', amount: 7_550 },
    ];
    for (const l of lines) {
      const item = await stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, currency: 'cad', ...l });
      expect(item.id).toMatch(/^ii_/);
      expect(item.invoice).toBe(draft.id);
    }
    const subtotal = lines.reduce((s, l) => s + l.amount, 0);
    const tax = Math.round(subtotal * 0.13);
    await stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, currency: 'cad', amount: tax, description: 'HST 13%' });

    const finalized = await stripe.invoices.finalizeInvoice(draft.id);
    expect(finalized.status).toBe('open');
    expect(finalized.number).toMatch(/^[A-Z0-9]{8}-0001$/);
    expect(finalized.hosted_invoice_url).toMatch(/^https:\/\/invoice\.stripe\.com\/i\//);
    expect(finalized.invoice_pdf).toMatch(/\/pdf\?s=ap$/);
    expect(finalized.due_date).toBe(finalized.created + 14 * 86_400);
    expect(finalized.subtotal).toBe(subtotal + tax);
    expect(finalized.total).toBe(subtotal + tax);
    expect(finalized.amount_due).toBe(subtotal + tax);
    expect(finalized.collection_method).toBe('send_invoice');

    const again = await stripe.invoices.retrieve(draft.id);
    expect(again.lines.data.map((l) => [l.description, l.amount])).toEqual([
      ['Roller shade 48x60', 25_000],
      ['Install', 7_550],
      ['HST 13%', tax],
    ]);
    expect(again.lines.data[0]?.parent?.invoice_item_details?.invoice_item).toMatch(/^ii_/);
    expect(again.customer_email).toBe('jane@example.com');

    await expect(stripe.invoices.finalizeInvoice(draft.id)).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    await expect(stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, amount: 100, currency: 'cad' })).rejects.toMatchObject({
      code: 'invoice_not_editable',
    });

    fake.payInvoiceAsCustomer(KEY, draft.id);
    const paid = await stripe.invoices.retrieve(draft.id);
    expect(paid.status).toBe('paid');
    expect(paid.amount_paid).toBe(subtotal + tax);
    expect(paid.amount_remaining).toBe(0);
    const events = await stripe.events.list({ type: 'invoice.*' });
    expect(events.data.map((e) => e.type)).toEqual(expect.arrayContaining(['invoice.created', 'invoice.finalized', 'invoice.paid']));
  });

  it('attaches pending invoice items only with pending_invoice_items_behavior=include and pages long invoices', async () => {
    const stripe = client();
    const customer = await stripe.customers.create({ email: 'pending@example.com' });
    for (let i = 0; i < 12; i++) {
      await stripe.invoiceItems.create({ customer: customer.id, currency: 'cad', unit_amount_decimal: Stripe.Decimal.from('1250.5'), quantity: 2, description: `line ${i}` });
    }
    const excluded = await stripe.invoices.create({ customer: customer.id, collection_method: 'send_invoice', days_until_due: 14 });
    expect(excluded.lines.data).toHaveLength(0);
    const included = await stripe.invoices.create({
      customer: customer.id,
      collection_method: 'send_invoice',
      days_until_due: 14,
      pending_invoice_items_behavior: 'include',
    });
    // Stripe sends total_count on invoice lines although stripe-node's ApiList type omits it.
    expect((included.lines as unknown as { total_count: number }).total_count).toBe(12);
    expect(included.lines.data).toHaveLength(10);
    expect(included.lines.has_more).toBe(true);
    expect(included.subtotal).toBe(12 * 2501);
    const all = await stripe.invoices.listLineItems(included.id).autoPagingToArray({ limit: 100 });
    expect(all.map((l) => l.description)).toEqual(Array.from({ length: 12 }, (_, i) => `line ${i}`));
  });

  it('keeps accounts (secret keys) isolated', async () => {
    const mine = await client().customers.create({ email: 'isolated@example.com' });
    await expect(client({ key: OTHER_TENANT_KEY }).customers.retrieve(mine.id)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
    });
  });
});

/** A finalized send_invoice invoice of the given line amounts (the fake's usual path). */
async function openInvoice(stripe: Stripe, amounts: number[]): Promise<Stripe.Invoice> {
  const customer = await stripe.customers.create({ email: `credit-${amounts.join('-')}@example.com` });
  const draft = await stripe.invoices.create({ customer: customer.id, collection_method: 'send_invoice', days_until_due: 14 });
  for (const amount of amounts) await stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, currency: 'cad', amount, description: `line ${amount}` });
  return stripe.invoices.finalizeInvoice(draft.id);
}
const eventsOf = (objectId: string) => fake.inspect.events(KEY).filter((e) => (e.data.object as { id: string }).id === objectId);

describe('stripe fake: credit notes', () => {
  it('on an open invoice a credit note lowers amount_due (pre-payment), numbered after the invoice, listed by invoice', async () => {
    const stripe = client();
    const invoice = await openInvoice(stripe, [10_000, 1_300]);
    const note = await stripe.creditNotes.create({
      invoice: invoice.id,
      reason: 'order_change',
      memo: 'One shade less',
      metadata: { change_order_id: 'co_1' },
      lines: [
        { type: 'custom_line_item', description: 'Shade removed', unit_amount: 2_000, quantity: 1 },
        { type: 'custom_line_item', description: 'HST 13%', unit_amount: 260 },
      ],
    });
    expect(note).toMatchObject({
      object: 'credit_note',
      invoice: invoice.id,
      customer: invoice.customer,
      number: `${invoice.number}-CN-01`,
      amount: 2_260,
      total: 2_260,
      pre_payment_amount: 2_260,
      post_payment_amount: 0,
      out_of_band_amount: null,
      type: 'pre_payment',
      status: 'issued',
      reason: 'order_change',
      memo: 'One shade less',
      metadata: { change_order_id: 'co_1' },
    });
    expect(note.id).toMatch(/^cn_/);
    expect(note.lines.data.map((l) => [l.type, l.description, l.quantity, l.unit_amount, l.amount])).toEqual([
      ['custom_line_item', 'Shade removed', 1, 2_000, 2_000],
      ['custom_line_item', 'HST 13%', 1, 260, 260],
    ]);
    const after = await stripe.invoices.retrieve(invoice.id);
    expect(after).toMatchObject({ status: 'open', total: 11_300, amount_due: 9_040, amount_remaining: 9_040, pre_payment_credit_notes_amount: 2_260, post_payment_credit_notes_amount: 0 });
    expect(await stripe.creditNotes.retrieve(note.id)).toMatchObject({ id: note.id, amount: 2_260 });
    expect((await stripe.creditNotes.list({ invoice: invoice.id })).data.map((n) => n.id)).toEqual([note.id]);
    expect((await stripe.creditNotes.list({ invoice: (await openInvoice(stripe, [500])).id })).data).toEqual([]);
    expect(eventsOf(note.id).map((e) => e.type)).toEqual(['credit_note.created']);
    const updated = eventsOf(invoice.id).filter((e) => e.type === 'invoice.updated');
    expect(updated.at(-1)!.data.previous_attributes).toEqual({ amount_due: 11_300, amount_remaining: 11_300, pre_payment_credit_notes_amount: 0 });
    // A second one is numbered on, and paying the invoice then pays what is left.
    const second = await stripe.creditNotes.create({ invoice: invoice.id, amount: 40 });
    expect(second).toMatchObject({ number: `${invoice.number}-CN-02`, pre_payment_amount: 40 });
    fake.payInvoiceAsCustomer(KEY, invoice.id);
    expect(await stripe.invoices.retrieve(invoice.id)).toMatchObject({ status: 'paid', amount_due: 9_000, amount_paid: 9_000, amount_remaining: 0 });
  });

  it('an open invoice credited to nothing owed is closed as paid without a payment', async () => {
    const stripe = client();
    const invoice = await openInvoice(stripe, [4_000]);
    await stripe.creditNotes.create({ invoice: invoice.id, lines: [{ type: 'custom_line_item', description: 'All of it', unit_amount: 4_000 }] });
    expect(await stripe.invoices.retrieve(invoice.id)).toMatchObject({ status: 'paid', amount_due: 0, amount_paid: 0, amount_remaining: 0, attempted: false });
    const types = eventsOf(invoice.id).map((e) => e.type);
    expect(types).toContain('invoice.paid');
    expect(types).not.toContain('invoice.payment_succeeded');
  });

  it('after payment the credit must be accounted for (out_of_band_amount), and never beyond what the invoice can still be credited', async () => {
    const stripe = client();
    const invoice = await openInvoice(stripe, [5_000]);
    fake.payInvoiceAsCustomer(KEY, invoice.id);
    await expect(stripe.creditNotes.create({ invoice: invoice.id, amount: 1_000 })).rejects.toMatchObject({ statusCode: 400, param: 'out_of_band_amount' });
    const note = await stripe.creditNotes.create({ invoice: invoice.id, amount: 1_000, out_of_band_amount: 1_000 });
    expect(note).toMatchObject({ pre_payment_amount: 0, post_payment_amount: 1_000, out_of_band_amount: 1_000, type: 'post_payment' });
    expect(await stripe.invoices.retrieve(invoice.id)).toMatchObject({ status: 'paid', amount_paid: 5_000, amount_remaining: 0, post_payment_credit_notes_amount: 1_000 });
    await expect(stripe.creditNotes.create({ invoice: invoice.id, amount: 4_001, out_of_band_amount: 4_001 })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('can still be credited (4000 of its 5000)'),
    });
    // On an open invoice, out_of_band_amount is only for what goes beyond the amount remaining.
    const open = await openInvoice(stripe, [3_000]);
    await expect(stripe.creditNotes.create({ invoice: open.id, amount: 500, out_of_band_amount: 500 })).rejects.toMatchObject({ statusCode: 400, param: 'out_of_band_amount' });
  });

  it('refuses drafts, empty and malformed credit notes, and says so loudly for what it does not model', async () => {
    const stripe = client();
    const customer = await stripe.customers.create({ email: 'credit-draft@example.com' });
    const draft = await stripe.invoices.create({ customer: customer.id, collection_method: 'send_invoice', days_until_due: 14 });
    await stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, currency: 'cad', amount: 1_000 });
    await expect(stripe.creditNotes.create({ invoice: draft.id, amount: 100 })).rejects.toMatchObject({ statusCode: 400, code: 'invoice_not_editable' });
    const invoice = await stripe.invoices.finalizeInvoice(draft.id);
    await expect(stripe.creditNotes.create({ invoice: invoice.id })).rejects.toMatchObject({ statusCode: 400, param: 'amount' });
    await expect(stripe.creditNotes.create({ invoice: invoice.id, amount: 0 })).rejects.toMatchObject({ statusCode: 400 });
    await expect(stripe.creditNotes.create({ invoice: 'in_missing', amount: 100 })).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'invoice' });
    await expect(stripe.creditNotes.create({ invoice: invoice.id, lines: [{ type: 'custom_line_item', unit_amount: 100 }] })).rejects.toMatchObject({ param: 'lines[0][description]' });
    await expect(stripe.creditNotes.create({ invoice: invoice.id, amount: 150, lines: [{ type: 'custom_line_item', description: 'x', unit_amount: 100 }] })).rejects.toMatchObject({ param: 'amount' });
    await expect(stripe.creditNotes.create({ invoice: invoice.id, amount: 100, refund_amount: 100 })).rejects.toMatchObject({ message: expect.stringContaining('does not emulate parameter: refund_amount') });
    await expect(stripe.creditNotes.create({ invoice: invoice.id, amount: 100, credit_amount: 100 })).rejects.toMatchObject({ message: expect.stringContaining('does not emulate parameter: credit_amount') });
    expect((await stripe.invoices.retrieve(invoice.id)).pre_payment_credit_notes_amount).toBe(0);
    // The same key replays the same credit note; nothing is credited twice.
    const first = await stripe.creditNotes.create({ invoice: invoice.id, amount: 100 }, { idempotencyKey: 'credit-once' });
    const replay = await stripe.creditNotes.create({ invoice: invoice.id, amount: 100 }, { idempotencyKey: 'credit-once' });
    expect(replay.id).toBe(first.id);
    expect((await stripe.invoices.retrieve(invoice.id)).amount_due).toBe(900);
  });
});

describe('stripe fake: checkout sessions', () => {
  it('creates, retrieves with line items, lists, completes and expires sessions', async () => {
    const stripe = client();
    const customer = await stripe.customers.create({ email: 'pay@example.com' });
    const params = {
      mode: 'payment' as const,
      customer: customer.id,
      success_url: 'https://app.example/paid',
      cancel_url: 'https://app.example/cancel',
      metadata: { quote_id: 'q_7' },
      line_items: [{ quantity: 1, price_data: { currency: 'cad', unit_amount: 45_200, product_data: { name: 'Deposit for quote Q-7' } } }],
    };
    const session = await stripe.checkout.sessions.create(params);
    expect(session.id).toMatch(/^cs_test_/);
    expect(session.status).toBe('open');
    expect(session.payment_status).toBe('unpaid');
    expect(session.amount_total).toBe(45_200);
    expect(session.url).toContain(session.id);
    expect(session.expires_at).toBe(session.created + 86_400);

    const withLines = await stripe.checkout.sessions.retrieve(session.id, { expand: ['line_items'] });
    expect(withLines.line_items?.data[0]).toMatchObject({ object: 'item', amount_total: 45_200, description: 'Deposit for quote Q-7', quantity: 1 });

    const second = await stripe.checkout.sessions.create(params);
    const listed = await stripe.checkout.sessions.list({ customer: customer.id, status: 'open' });
    expect(listed.data.map((s) => s.id)).toEqual([second.id, session.id]);

    const expired = await stripe.checkout.sessions.expire(second.id);
    expect(expired.status).toBe('expired');
    expect(expired.url).toBeNull();
    await expect(stripe.checkout.sessions.expire(second.id)).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);

    fake.completeCheckoutSession(KEY, session.id);
    const done = await stripe.checkout.sessions.retrieve(session.id);
    expect(done).toMatchObject({ status: 'complete', payment_status: 'paid' });
    expect(done.payment_intent).toMatch(/^pi_/);
  });

  it('expires sessions at expires_at and prunes idempotency keys after their TTL (fake clock)', async () => {
    let offsetMs = 0;
    const timed = new StripeFake({ now: () => Date.now() + offsetMs, idempotencyTtlMs: 24 * 3600 * 1000 });
    const started = await timed.start();
    try {
      const stripe = new Stripe(KEY, { ...timed.clientOptions(), maxNetworkRetries: 0 });
      const session = await stripe.checkout.sessions.create({
        mode: 'payment',
        expires_at: Math.floor((Date.now() + 3600_000) / 1000),
        line_items: [{ quantity: 1, price_data: { currency: 'cad', unit_amount: 100, product_data: { name: 'x' } } }],
      });
      offsetMs = 3601_000;
      expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe('expired');
      expect(timed.inspect.events(KEY).map((e) => e.type)).toContain('checkout.session.expired');

      const a = await stripe.customers.create({ email: 'ttl@example.com' }, { idempotencyKey: 'ttl-key' });
      offsetMs += 25 * 3600_000;
      const b = await stripe.customers.create({ email: 'ttl@example.com' }, { idempotencyKey: 'ttl-key' });
      expect(b.id).not.toBe(a.id);
    } finally {
      await started.close();
    }
  });

  it('rejects parameters the way Stripe does', async () => {
    const stripe = client();
    await expect(
      stripe.checkout.sessions.create({ mode: 'payment', line_items: [{ price_data: { currency: 'cad', unit_amount: 1, product_data: { name: 'x' } } }] }),
    ).rejects.toMatchObject({ type: 'StripeInvalidRequestError', code: 'parameter_missing', param: 'line_items[0][quantity]' });
    await expect(stripe.customers.create({ emial: 'typo@example.com' } as never)).rejects.toMatchObject({
      code: 'parameter_unknown',
      param: 'emial',
      message: 'Received unknown parameter: emial',
    });
  });
});

describe('stripe fake: idempotency', () => {
  it('replays the stored response for the same key and params, and rejects different params', async () => {
    const stripe = client();
    const before = fake.inspect.customers(KEY).length;
    const a = await stripe.customers.create({ email: 'idem@example.com' }, { idempotencyKey: 'approve-q-42-customer' });
    const b = await stripe.customers.create({ email: 'idem@example.com' }, { idempotencyKey: 'approve-q-42-customer' });
    expect(b.id).toBe(a.id);
    expect(b.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(a.lastResponse.headers['idempotent-replayed']).toBeUndefined();
    expect(fake.inspect.customers(KEY).length).toBe(before + 1);

    const err = await stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: 'approve-q-42-customer' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(err).toMatchObject({ statusCode: 400, rawType: 'idempotency_error' });
    expect(fake.inspect.customers(KEY).length).toBe(before + 1);
  });

  it('does not save parameter-validation failures under the key', async () => {
    const stripe = client();
    await expect(stripe.invoices.create({ customer: 'cus_missing', collection_method: 'send_invoice' }, { idempotencyKey: 'k-validation' })).rejects.toMatchObject({
      code: 'parameter_missing',
    });
    // The first attempt never executed, so the corrected request may reuse the key.
    await expect(stripe.invoices.create({ customer: 'cus_missing', collection_method: 'send_invoice', days_until_due: 14 }, { idempotencyKey: 'k-validation' })).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'customer',
    });
  });
});

describe('stripe fake: faults and retries', () => {
  it('lets stripe-node retry an injected 503 with the same idempotency key', async () => {
    const stripe = client({ maxNetworkRetries: 2 });
    fake.faults.inject({ method: 'POST', path: '/v1/customers', action: faults.unavailable() });
    fake.requests.clear();
    const c = await stripe.customers.create({ email: 'retry@example.com' });
    const attempts = fake.requests.find('POST', '/v1/customers');
    expect(attempts.map((r) => r.status)).toEqual([503, 200]);
    expect(attempts[0]?.fault).toBe('status');
    expect(attempts[0]?.idempotencyKey).toMatch(/^stripe-node-retry-/);
    expect(attempts[1]?.idempotencyKey).toBe(attempts[0]?.idempotencyKey);
    expect(c.email).toBe('retry@example.com');
  });

  it('surfaces 503 as StripeAPIError and 429 as StripeRateLimitError without retries', async () => {
    const stripe = client({ maxNetworkRetries: 0 });
    fake.faults.inject({ path: '/v1/customers/*', action: faults.unavailable() });
    await expect(stripe.customers.retrieve('cus_whatever')).rejects.toBeInstanceOf(Stripe.errors.StripeAPIError);
    fake.faults.inject({ path: '/v1/customers/*', action: faults.rateLimited(2) });
    const err = await stripe.customers.retrieve('cus_whatever').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect((err as Stripe.errors.StripeError).headers?.['retry-after']).toBe('2');
  });

  it('replays a finalize whose response was lost when the client retries the closed connection', async () => {
    const stripe = client({ maxNetworkRetries: 0 });
    const customer = await stripe.customers.create({ email: 'lost@example.com' });
    await stripe.invoiceItems.create({ customer: customer.id, currency: 'cad', amount: 1000 });
    const draft = await stripe.invoices.create({ customer: customer.id, collection_method: 'send_invoice', days_until_due: 14, pending_invoice_items_behavior: 'include' });
    fake.requests.clear();
    fake.faults.inject({ method: 'POST', path: '/v1/invoices/*/finalize', action: faults.loseResponse() });
    // stripe-node retries a reset connection once even with maxNetworkRetries 0, reusing its key.
    const inv = await stripe.invoices.finalizeInvoice(draft.id);
    expect(inv.status).toBe('open');
    const calls = fake.requests.find('POST', '/v1/invoices/*/finalize');
    expect(calls.map((c) => [c.outcome, c.status, c.replayed])).toEqual([
      ['lost', 200, false],
      ['answered', 200, true],
    ]);
    expect(fake.inspect.events(KEY).filter((e) => e.type === 'invoice.finalized' && (e.data.object as { id: string }).id === draft.id)).toHaveLength(1);
  });

  it('hangs until the client times out without performing the request', async () => {
    const stripe = client({ maxNetworkRetries: 0, timeout: 300 });
    const before = fake.inspect.customers(KEY).length;
    fake.faults.inject({ method: 'POST', path: '/v1/customers', action: faults.hang(2_000) });
    await expect(stripe.customers.create({ email: 'hang@example.com' })).rejects.toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(fake.inspect.customers(KEY).length).toBe(before);
  });

  it('answers 401 for missing or malformed keys', async () => {
    await expect(client({ key: 'sk_live_nope' }).customers.list()).rejects.toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    const res = await fetch(`${fake.url}/v1/customers`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });
});

describe('stripe fake: webhooks', () => {
  it('builds signed events that stripe.webhooks.constructEvent accepts', async () => {
    const stripe = client();
    const invoice = fake.inspect.invoices(KEY).find((i) => i['status'] === 'paid');
    const signed = signedInvoicePaidEvent(invoice, WEBHOOK_SECRET);
    const event = stripe.webhooks.constructEvent(signed.payload, signed.header, WEBHOOK_SECRET);
    expect(event.type).toBe('invoice.paid');
    expect((event.data.object as { id: string }).id).toBe((invoice as { id: string }).id);
    expect(() => stripe.webhooks.constructEvent(signed.payload.replace('invoice.paid', 'invoice.void'), signed.header, WEBHOOK_SECRET)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    const stale = signStripeEvent(buildStripeEvent('invoice.paid', invoice), WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 3600);
    expect(() => stripe.webhooks.constructEvent(stale.payload, stale.header, WEBHOOK_SECRET)).toThrow(/tolerance zone/i);
  });

  it('delivers events to a registered loopback endpoint', async () => {
    const received: Array<{ body: string; signature: string }> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString(), signature: String(req.headers['stripe-signature']) });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/stripe`;
      fake.addWebhookEndpoint({ url, secret: WEBHOOK_SECRET, enabledEvents: ['invoice.paid'], apiKey: KEY });
      const stripe = client();
      const customer = await stripe.customers.create({ email: 'hook@example.com' });
      const inv = await stripe.invoices.create({ customer: customer.id, collection_method: 'send_invoice', days_until_due: 14 });
      await stripe.invoiceItems.create({ customer: customer.id, invoice: inv.id, amount: 500 });
      await stripe.invoices.finalizeInvoice(inv.id);
      fake.payInvoiceAsCustomer(KEY, inv.id);
      await fake.flushWebhooks();
      expect(received).toHaveLength(1);
      const event = stripe.webhooks.constructEvent(received[0]?.body as string, received[0]?.signature as string, WEBHOOK_SECRET);
      expect(event.type).toBe('invoice.paid');
      expect((event.data.object as { id: string }).id).toBe(inv.id);
      expect(fake.deliveries().at(-1)?.status).toBe(200);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
