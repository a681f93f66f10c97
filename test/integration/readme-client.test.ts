import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../client/api-types';
import { startPaymentsStack, type PaymentsStack } from '../../scripts/harness/approval-stack';
import { startIntegrationFakes, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { SANDBOX_PASSWORD } from '../../db/sandbox';

/**
 * The README's "Try it" requests, made through a client generated from /openapi.json
 * (openapi-typescript types, openapi-fetch): `tsc` type-checks every path, parameter and body
 * below against the document, and Jest sends them to a running API with the payments leg, the
 * OAuth providers and a webhook receiver as local fakes. The one change from the README: the
 * webhook endpoint is a receiver on this machine, not a public host.
 */
let stack: PaymentsStack;
let fakes: IntegrationFakes;
let receiver: WebhookReceiver;
let client: Client<paths>;

beforeAll(async () => {
  fakes = await startIntegrationFakes();
  receiver = await new WebhookReceiver().start();
  stack = await startPaymentsStack({
    key: 'sk_test_readmeClient0001',
    env: { ...fakes.env, CHECKOUT_RETURN_ORIGINS: 'https://shades.example.test', OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' },
  });
  client = createClient<paths>({ baseUrl: stack.api.url, headers: { 'x-forwarded-for': stack.api.clientAddress } });
}, 120_000);
afterAll(async () => {
  await stack.close();
  await fakes.close();
  await receiver.close();
});

// The README's customer, made unique per run: the sandbox remembers a customer's id at the
// payments provider, and each run has a new payments fake that never saw the last run's.
const CUSTOMER_EMAIL = `jordan+${randomBytes(4).toString('hex')}@example.test`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("the README's requests through the typed client", () => {
  it('runs them in order, each answering what the README promises', async () => {
    // Infrastructure (no token)
    const health = await client.GET('/api/health');
    expect(health.data?.status).toBe('ok');
    const routes = await client.GET('/api/routes');
    expect(routes.data?.routes).toContainEqual({ method: 'GET', path: '/api/v1/quotes/{id}' });
    const connectors = await client.GET('/api/connectors');
    expect(connectors.data?.connectors.map((c) => c.slug)).toEqual(['payments', 'accounting', 'crm']);

    // Log in to the sandbox and keep the token
    const login = await client.POST('/api/v1/auth/login', { body: { subdomain: 'sandbox', email: 'admin@sandbox.test', password: SANDBOX_PASSWORD } });
    expect(login.response.status).toBe(200);
    const token = login.data!.access_token;
    const me = await client.GET('/api/v1/auth/me', { headers: bearer(token) });
    expect(me.data).toMatchObject({ role: 'ADMIN', organization: { subdomain: 'sandbox' } });

    // Anything under /api/v1 without a token is 401, whether or not it exists: the typed client
    // does not even offer a path the document does not have.
    // @ts-expect-error not a path of the API
    const invented = await client.GET('/api/v1/does-not-exist');
    expect(invented.response.status).toBe(401);
    expect(invented.error).toMatchObject({ error: { code: 'unauthenticated' } });

    // Price two windows from the tenant's rate card (nothing is stored)
    const priced = await client.POST('/api/v1/quotes/calculate', {
      headers: bearer(token),
      body: {
        laborTierCode: 'STANDARD',
        lineItems: [
          { reference: 'Living room', widthInches: 72.5, dropInches: 60, quantity: 2, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD', motorSkuCode: 'MTR-BATTERY' },
          { reference: 'Bedroom', widthInches: 35.25, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD' },
        ],
      },
    });
    expect(priced.data).toMatchObject({ persisted: false, quote_id: null, currency: 'CAD' });
    expect(priced.data!.line_items).toHaveLength(2);

    // The same, kept as a DRAFT quote for a customer, 40 % margin
    const kept = await client.POST('/api/v1/quotes/calculate', {
      headers: bearer(token),
      body: {
        persist: true,
        targetMargin: 0.4,
        customer: { name: 'Jordan Rivera', email: CUSTOMER_EMAIL },
        laborTierCode: 'PREMIUM',
        lineItems: [{ widthInches: 48, dropInches: 60, quantity: 3, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD' }],
      },
    });
    expect(kept.data).toMatchObject({ persisted: true, status: 'DRAFT', applied_margin: '0.4' });
    const quote = kept.data!.quote_id!;

    const quotes = await client.GET('/api/v1/quotes', { headers: bearer(token), params: { query: { limit: 10 } } });
    expect(quotes.data!.data.map((q) => q.id)).toContain(quote);
    const sent = await client.POST('/api/v1/quotes/{id}/send', { headers: bearer(token), params: { path: { id: quote } } });
    expect(sent.data?.status).toBe('SENT');
    const detail = await client.GET('/api/v1/quotes/{id}', { headers: bearer(token), params: { path: { id: quote } } });
    expect(detail.data).toMatchObject({ id: quote, status: 'SENT', customer_email: CUSTOMER_EMAIL, calculation: { quote_id: quote } });

    // Work orders (ADMIN dispatches; a technician moves only their own)
    const techLogin = await client.POST('/api/v1/auth/login', { body: { subdomain: 'sandbox', email: 'tech@sandbox.test', password: SANDBOX_PASSWORD } });
    const techToken = techLogin.data!.access_token;
    const techId = techLogin.data!.user.id;
    const created = await client.POST('/api/v1/work-orders', {
      headers: bearer(token),
      body: { quoteId: quote, assignedTechnicianId: techId, scheduledDate: '2026-12-03', siteAddress: '12 Elm St' },
    });
    expect(created.response.status).toBe(201);
    const wo = created.data!.id;
    const dispatched = await client.PATCH('/api/v1/work-orders/{id}/status', { headers: bearer(token), params: { path: { id: wo } }, body: { status: 'DISPATCHED' } });
    expect(dispatched.data).toEqual({ id: wo, status: 'DISPATCHED', unchanged: false });
    const completed = await client.PATCH('/api/v1/work-orders/{id}/status', {
      headers: bearer(techToken),
      params: { path: { id: wo } },
      body: { status: 'COMPLETED', notes: 'Installed, customer happy' },
    });
    expect(completed.data?.status).toBe('COMPLETED');
    const mine = await client.GET('/api/v1/work-orders', { headers: bearer(techToken), params: { query: { scheduledOn: '2026-12-03' } } });
    expect(mine.data!.data.map((w) => w.id)).toContain(wo);
    const history = await client.GET('/api/v1/work-orders/{id}/history', { headers: bearer(techToken), params: { path: { id: wo } } });
    expect(history.data!.data.at(-1)).toMatchObject({ from_status: 'DISPATCHED', to_status: 'COMPLETED', notes: 'Installed, customer happy' });

    // Approve, invoice and pay (the payments provider is a local fake here)
    const approved = await client.POST('/api/v1/quotes/{id}/approve', { headers: bearer(token), params: { path: { id: quote } } });
    expect(approved.data?.status).toBe('APPROVED');
    const ensured = await client.POST('/api/v1/quotes/{id}/invoice', { headers: bearer(token), params: { path: { id: quote } } });
    expect([200, 201]).toContain(ensured.response.status);
    const invoice = await client.GET('/api/v1/quotes/{id}/invoice', { headers: bearer(token), params: { path: { id: quote } } });
    expect(invoice.data).toMatchObject({ quote_number: kept.data!.quote_number, lines: expect.arrayContaining([expect.objectContaining({ is_tax: true })]) });
    const checkout = await client.POST('/api/v1/quotes/{id}/checkout-session', { headers: bearer(token), params: { path: { id: quote } }, body: {} });
    expect(checkout.response.status).toBe(201);
    expect(checkout.data?.reused).toBe(false);

    // Connect the accounting provider (ADMIN only): the consent URL to open in a browser
    const connect = await client.POST('/api/v1/integrations/{provider}/connect', { headers: bearer(token), params: { path: { provider: 'accounting' } } });
    expect(connect.data).toMatchObject({ provider: 'ACCOUNTING', expires_in_seconds: 600 });
    expect(connect.data!.authorize_url.startsWith(fakes.env.ACCOUNTING_API_BASE_URL!)).toBe(true);
    const integrations = await client.GET('/api/v1/integrations', { headers: bearer(token) });
    expect(integrations.data!.data.map((i) => i.slug)).toEqual(['payments', 'accounting', 'crm']);
    const syncs = await client.GET('/api/v1/integrations/syncs', { headers: bearer(token), params: { query: { provider: 'accounting', limit: 10 } } });
    expect(syncs.data!.data.every((s) => s.provider === 'ACCOUNTING')).toBe(true);
    const disconnected = await client.DELETE('/api/v1/integrations/{provider}', { headers: bearer(token), params: { path: { provider: 'accounting' } } });
    expect(disconnected.data).toEqual({ provider: 'ACCOUNTING', status: 'DISCONNECTED' });

    // Tell another system what happens (signed webhooks)
    const endpoint = await client.POST('/api/v1/webhook-endpoints', { headers: bearer(token), body: { url: receiver.url, events: ['*'] } });
    expect(endpoint.response.status).toBe(201);
    expect(endpoint.data!.secret).toMatch(/^whsec_/);
    const deliveries = await client.GET('/api/v1/webhook-endpoints/{id}/deliveries', { headers: bearer(token), params: { path: { id: endpoint.data!.id } } });
    expect(deliveries.data).toEqual({ data: [] });
    const listed = await client.GET('/api/v1/webhook-deliveries', { headers: bearer(token), params: { query: { endpoint_id: endpoint.data!.id, event: 'work_order.cancelled' } } });
    expect(listed.data).toEqual({ data: [] });

    // Who is emailed when an endpoint is disabled (D13)
    const organization = await client.GET('/api/v1/organization', { headers: bearer(token) });
    expect(organization.data).toMatchObject({ subdomain: 'sandbox', technical_contact_email: 'admin@sandbox.test', technical_contact_is_default: true });
    const refused = await client.PATCH('/api/v1/organization', { headers: bearer(token), body: { technical_contact_email: 'not an email' } });
    expect({ status: refused.response.status, code: refused.error?.error.code }).toEqual({ status: 422, code: 'validation_failed' });
    const contact = await client.PATCH('/api/v1/organization', { headers: bearer(token), body: { technical_contact_email: 'it@sandbox.test' } });
    expect(contact.data).toMatchObject({ technical_contact_email: 'it@sandbox.test', technical_contact_is_default: false });
    // The suite's database is shared: the sandbox returns to its default.
    expect((await client.PATCH('/api/v1/organization', { headers: bearer(token), body: { technical_contact_email: null } })).response.status).toBe(200);
    const removed = await client.DELETE('/api/v1/webhook-endpoints/{id}', { headers: bearer(token), params: { path: { id: endpoint.data!.id } } });
    expect(removed.response.status).toBe(204);
  }, 120_000);

  it('types the error envelope too', async () => {
    const res = await client.GET('/api/v1/quotes/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
    expect(res.response.status).toBe(401);
    // error is the section 7 envelope, typed from the document's 401 response.
    const code: 'bad_request' | 'validation_failed' | 'unauthenticated' | 'invalid_credentials' | 'forbidden' | 'not_found' | 'conflict' | 'rate_limited' | 'provider_error' | 'internal_error' | undefined =
      res.error?.error.code;
    expect(code).toBe('unauthenticated');
  });
});
