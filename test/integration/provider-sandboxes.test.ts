// npm start's provider sandboxes (scripts/sandboxes/sandboxes.ts): which providers get one, and
// that the real client libraries work against them as configured by the settings they hand out.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { SANDBOX_PAYMENTS_KEY, sandboxesWanted, startSandboxes, type RunningSandboxes } from '../../scripts/sandboxes/sandboxes';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { waitUntil } from '../../scripts/harness/wait-until';

const redirectUri = (provider: 'ACCOUNTING' | 'CRM') => `http://localhost:3000/api/v1/integrations/${provider.toLowerCase()}/callback`;
const running: RunningSandboxes[] = [];

// Where the payments sandbox delivers its signed events: a receiver on loopback that keeps them.
let receiver: Server;
let paymentsWebhookUrl = '';
const received: { body: Buffer; signature: string }[] = [];

beforeAll(async () => {
  receiver = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks), signature: String(req.headers['stripe-signature'] ?? '') });
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  paymentsWebhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/v1/integrations/payments/webhook`;
});

afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
  await new Promise((resolve) => receiver.close(resolve));
});

describe('sandboxesWanted: real keys replace a sandbox, one provider at a time (D8)', () => {
  it.each([
    [{}, ['payments', 'accounting', 'crm']],
    [{ NODE_ENV: 'development' }, ['payments', 'accounting', 'crm']],
    [{ NODE_ENV: 'test' }, ['payments', 'accounting', 'crm']],
    [{ PAYMENTS_SECRET_KEY: 'sk_live_x' }, ['accounting', 'crm']],
    [{ ACCOUNTING_CLIENT_ID: 'id' }, ['payments', 'crm']],
    [{ ACCOUNTING_CLIENT_SECRET: 'secret' }, ['payments', 'crm']],
    [{ CRM_CLIENT_ID: 'id', CRM_CLIENT_SECRET: 'secret' }, ['payments', 'accounting']],
    [{ PAYMENTS_SECRET_KEY: 'k', ACCOUNTING_CLIENT_ID: 'a', CRM_CLIENT_SECRET: 'c' }, []],
    [{ PAYMENTS_SECRET_KEY: '' }, ['payments', 'accounting', 'crm']],
    [{ NODE_ENV: 'production' }, []],
  ] as const)('%j -> %j', (env, wanted) => {
    expect(sandboxesWanted(env as NodeJS.ProcessEnv)).toEqual(wanted);
  });
});

describe('startSandboxes', () => {
  it('hands out the settings that point our clients at loopback sandboxes and label them', async () => {
    const sandboxes = await startSandboxes({ slugs: ['payments', 'accounting', 'crm'], redirectUri, basePort: 0, paymentsWebhookUrl });
    running.push(sandboxes);
    expect(sandboxes.env).toMatchObject({
      PAYMENTS_SECRET_KEY: SANDBOX_PAYMENTS_KEY,
      PAYMENTS_API_BASE_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      PAYMENTS_WEBHOOK_SECRET: expect.stringMatching(/^whsec_/),
      ACCOUNTING_CLIENT_ID: expect.any(String),
      ACCOUNTING_CLIENT_SECRET: expect.any(String),
      ACCOUNTING_API_BASE_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      ACCOUNTING_ENVIRONMENT: 'sandbox',
      CRM_CLIENT_ID: expect.any(String),
      CRM_CLIENT_SECRET: expect.any(String),
      CRM_LOGIN_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      PROVIDER_SANDBOXES: 'payments,accounting,crm',
    });
    expect(sandboxes.endpoints.map((e) => e.slug)).toEqual(['payments', 'accounting', 'crm']);

    // stripe-node as the worker builds it: the sandbox key works, any other is refused.
    const stripe = createStripeClient({ secretKey: sandboxes.env.PAYMENTS_SECRET_KEY!, baseUrl: sandboxes.env.PAYMENTS_API_BASE_URL });
    const customer = await stripe.customers.create({ name: 'Sandbox customer' });
    expect(customer.id).toMatch(/^cus_/);
    const stranger = createStripeClient({ secretKey: 'sk_test_SomebodyElse123', baseUrl: sandboxes.env.PAYMENTS_API_BASE_URL });
    await expect(stranger.customers.list()).rejects.toMatchObject({ type: 'StripeAuthenticationError' });

    // The accounting and CRM apps know only our callbacks, and show a consent page.
    const qbo = new URL('/connect/oauth2', sandboxes.env.ACCOUNTING_API_BASE_URL);
    qbo.search = new URLSearchParams({ client_id: sandboxes.env.ACCOUNTING_CLIENT_ID!, redirect_uri: redirectUri('ACCOUNTING'), response_type: 'code', scope: 'com.intuit.quickbooks.accounting', state: 's' }).toString();
    expect((await fetch(qbo)).status).toBe(200);
    qbo.searchParams.set('redirect_uri', 'http://localhost:3000/elsewhere');
    expect((await fetch(qbo, { redirect: 'manual' })).status).toBe(400);
  });

  it('D24: its hosted invoice and checkout pages are on loopback, a test card pays, and the signed events reach the payments webhook', async () => {
    const sandboxes = await startSandboxes({ slugs: ['payments'], redirectUri, basePort: 0, paymentsWebhookUrl });
    running.push(sandboxes);
    const secret = sandboxes.env.PAYMENTS_WEBHOOK_SECRET!;
    const origin = sandboxes.env.PAYMENTS_API_BASE_URL!;
    const stripe = createStripeClient({ secretKey: sandboxes.env.PAYMENTS_SECRET_KEY!, baseUrl: origin });
    const customer = await stripe.customers.create({ name: 'Page payer' });
    const draft = await stripe.invoices.create({ customer: customer.id, collection_method: 'send_invoice', days_until_due: 14, metadata: { quote_id: 'q-1' } });
    await stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, amount: 12_345, currency: 'cad', description: 'Roller shade' });
    const invoice = await stripe.invoices.finalizeInvoice(draft.id!);
    const hosted = new URL(invoice.hosted_invoice_url!);
    expect(hosted.origin).toBe(origin);

    const page = await fetch(hosted);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('CAD 123.45');
    expect(html).toMatch(/<label for="card-number">Card number<\/label>/);
    const pay = (card: string, url: URL | string = hosted) =>
      fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ card_number: card, expiry: '12 / 34', cvc: '123' }) });
    const declined = await pay('4000 0000 0000 0002');
    expect(declined.status).toBe(402);
    expect(await declined.text()).toContain('Your card was declined.');
    expect((await stripe.invoices.retrieve(invoice.id!)).status).toBe('open');
    const paid = await pay('4242 4242 4242 4242');
    expect(paid.status).toBe(200);
    expect(await paid.text()).toContain('Paid.');
    expect((await stripe.invoices.retrieve(invoice.id!)).status).toBe('paid');
    expect((await pay('4242 4242 4242 4242')).status).toBe(409);

    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      success_url: 'http://localhost:3000/paid',
      metadata: { quote_id: 'q-2' },
      line_items: [{ quantity: 1, price_data: { currency: 'cad', unit_amount: 5_000, product_data: { name: 'Deposit' } } }],
    });
    expect(new URL(session.url!).origin).toBe(origin);
    expect(await (await fetch(session.url!)).text()).toContain('CAD 50.00');
    const completed = await pay('4242424242424242', session.url!);
    expect(completed.status).toBe(303);
    expect(completed.headers.get('location')).toBe('http://localhost:3000/paid');

    // As the provider does: each event signed with the webhook secret the sandbox handed out,
    // verified here by the provider's own library as our webhook verifies it.
    await waitUntil('both events at the webhook', () => received.length >= 2, { timeoutMs: 10_000, intervalMs: 50 });
    const events = received.map((r) => Stripe.webhooks.constructEvent(r.body, r.signature, secret, 300));
    expect(events.map((e) => e.type).sort()).toEqual(['checkout.session.completed', 'invoice.paid']);
    const paidEvent = events.find((e) => e.type === 'invoice.paid')!;
    expect((paidEvent.data.object as { metadata: Record<string, string> }).metadata.quote_id).toBe('q-1');
    const sessionEvent = events.find((e) => e.type === 'checkout.session.completed')!;
    expect(sessionEvent.data.object).toMatchObject({ payment_status: 'paid', metadata: { quote_id: 'q-2' } });
  });

  // A setting the operator gives always wins: with PAYMENTS_WEBHOOK_SECRET set, the sandbox signs
  // its deliveries with it and hands out no secret of its own that would replace it.
  it("signs its deliveries with the operator's PAYMENTS_WEBHOOK_SECRET when one is set, and leaves that setting alone", async () => {
    const operatorSecret = `whsec_operator_${randomBytes(12).toString('hex')}`;
    const deliveries: { body: Buffer; signature: string }[] = [];
    const own = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        deliveries.push({ body: Buffer.concat(chunks), signature: String(req.headers['stripe-signature'] ?? '') });
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(own.address() as AddressInfo).port}/api/v1/integrations/payments/webhook`;
      const sandboxes = await startSandboxes({ slugs: ['payments'], redirectUri, basePort: 0, paymentsWebhookUrl: url, paymentsWebhookSecret: operatorSecret });
      running.push(sandboxes);
      expect(sandboxes.env).not.toHaveProperty('PAYMENTS_WEBHOOK_SECRET');
      // npm start merges the sandboxes' settings over the operator's environment.
      const merged = { PAYMENTS_WEBHOOK_SECRET: operatorSecret, ...sandboxes.env };
      expect(merged.PAYMENTS_WEBHOOK_SECRET).toBe(operatorSecret);

      const stripe = createStripeClient({ secretKey: sandboxes.env.PAYMENTS_SECRET_KEY!, baseUrl: sandboxes.env.PAYMENTS_API_BASE_URL });
      const customer = await stripe.customers.create({ name: 'Operator secret payer' });
      const draft = await stripe.invoices.create({ customer: customer.id, collection_method: 'send_invoice', days_until_due: 14, metadata: { quote_id: 'q-operator' } });
      await stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, amount: 1_000, currency: 'cad', description: 'Roller shade' });
      const invoice = await stripe.invoices.finalizeInvoice(draft.id!);
      const paid = await fetch(invoice.hosted_invoice_url!, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ card_number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123' }),
      });
      expect(paid.status).toBe(200);
      await waitUntil('the invoice.paid delivery', () => deliveries.length >= 1, { timeoutMs: 10_000, intervalMs: 50 });
      const event = Stripe.webhooks.constructEvent(deliveries[0]!.body, deliveries[0]!.signature, operatorSecret, 300);
      expect(event.type).toBe('invoice.paid');
      expect((event.data.object as { metadata: Record<string, string> }).metadata.quote_id).toBe('q-operator');
    } finally {
      await new Promise((resolve) => own.close(resolve));
    }
  });

  it('starts only the sandboxes asked for', async () => {
    const sandboxes = await startSandboxes({ slugs: ['crm'], redirectUri, basePort: 0, paymentsWebhookUrl });
    running.push(sandboxes);
    expect(Object.keys(sandboxes.env).sort()).toEqual(['CRM_CLIENT_ID', 'CRM_CLIENT_SECRET', 'CRM_LOGIN_URL', 'PROVIDER_SANDBOXES']);
    expect(sandboxes.env.PROVIDER_SANDBOXES).toBe('crm');
  });

  it('says which setting moves them when their port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(startSandboxes({ slugs: ['payments'], redirectUri, basePort: port, paymentsWebhookUrl })).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${port}, which is taken; set PROVIDER_SANDBOX_PORT`));
    } finally {
      blocker.close();
    }
  });
});
