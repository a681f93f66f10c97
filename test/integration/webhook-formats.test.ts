import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import Stripe from 'stripe';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver, type Received } from '../../scripts/harness/webhook-receiver';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { startMailCatcher, type MailCatcher } from '../../scripts/infra/mail-catcher';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { type EventEnvelope, type OutboxEventName } from '../../domain/events/catalogue';
import { recordEvent } from '../../db/events/outbox';
import type { EventData } from '../../domain/events/event-data';
import { sampleEventData } from '../../scripts/harness/sample-events';
import { CURRENT_VERSION } from '../../domain/versions/versions';
import { dollars, percentOf } from '../../domain/money';
import { inTenant } from '../../db/tenant-scope';
import { smtpMailer, type Mailer } from '../../infra/email/mailer';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { EventDispatcher } from '../../infra/events/dispatcher';
import { InvoiceRunner } from '../../infra/temporal/invoice-runner';
import { approvalWorkflowId, changeOrderInvoiceWorkflowId, type Timing } from '../../infra/temporal/contracts';
import { deliverySettled } from '../support/delivery-settled';
import { checkRecordedEvents } from '../support/recorded-events';
import { waitUntil } from '../../scripts/harness/wait-until';
import { createLogger } from '../../infra/runtime/logger';
import type { WebhookDependencies } from '../../activities/webhooks';
import { deliverWebhookBatch, type WebhookDeliveryDeps } from '../../activities/webhooks/delivery-batch';
import { createDeliveriesForEvent } from '../../db/webhooks/deliveries';
import { WebhookEndpointList, WebhookEndpointWithSecret } from '../../api/webhooks/schemas';
import * as quotes from '../../scripts/harness/approved-quote';

/**
 * D13: the three delivery formats. Each format's envelope, headers and signature as the loopback
 * receiver saw them, byte for byte, signatures checked by independent verifiers (Stripe's
 * constructEvent, node:crypto); routing by catalogue; `quote.created` and `invoice.generated`
 * where they happen; the 24-hour schedules on a shortened clock (24 hours in about 4 seconds),
 * the disabling and its one email, a 410, replay on re-enable, and a worker restart in the middle.
 *
 * Network: every receiver is on 127.0.0.1, allowed by OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK alone (the
 * address guard stays on for everything else).
 */
const KEY = randomBytes(32).toString('base64');
const STRIPE_KEY = 'sk_test_webhookFormats0001';
const BASE_URL = 'http://127.0.0.1:3998';
/** 24 hours in 4.3 seconds: the waits and the failure clock shrink alike. */
const SHORT: Timing = { retryScale: 0.00005 };
/**
 * The schedule tests' clocks. A workflow task and an attempt take real time (up to a second on
 * a loaded machine) that the shortened clock does not shorten, so a clock that shows a whole
 * schedule must leave room for it: 24 hours in 35 seconds (field), in 8.6 seconds (events, whose
 * 72 hours of failures are then 26 seconds away).
 */
const FIELD_CLOCK: Timing = { retryScale: 0.0004 };
const EVENTS_CLOCK: Timing = { retryScale: 0.0001 };
const dispatcherAt = (timing: Timing) => new EventDispatcher(temporal.client, temporal.orm.em, { taskQueue: temporal.taskQueue, timing, logger: createLogger('silent') });

let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let catcher: MailCatcher;
let mailer: Mailer;
let stripeFake: StripeFake;
let closeStripe: () => Promise<void>;
let dispatcher: EventDispatcher;
let tenant: Tenant;
let admin: string;
let sales: string;
let workerDeps: Parameters<TemporalHarness['startWorker']>[0];
const receivers: WebhookReceiver[] = [];
/** Tenants made by single tests, besides `tenant`: their events are checked at the end too. */
const otherTenants: string[] = [];

beforeAll(async () => {
  owner = ownerPool();
  catcher = await startMailCatcher();
  mailer = smtpMailer(catcher.smtpUrl, 'Shade Office <no-reply@shade-office.invalid>');
  stripeFake = new StripeFake({ apiKeys: [STRIPE_KEY] });
  const started = await stripeFake.start();
  closeStripe = started.close;
  const payments = createStripeClient({ secretKey: STRIPE_KEY, baseUrl: started.url });
  temporal = await startTemporalHarness();
  const webhooks: WebhookDependencies = { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true, mailer, publicBaseUrl: BASE_URL };
  // With the SDK's workflow cache, as production runs: a day of retries is many workflow tasks,
  // and replaying each from the start would stretch the shortened clock's schedule (determinism
  // is the replay test's business, test/unit/workflow-replay.test.ts).
  workerDeps = { payments, webhooks, cacheWorkflows: true };
  await temporal.startWorker(workerDeps);
  dispatcher = new EventDispatcher(temporal.client, temporal.orm.em, { taskQueue: temporal.taskQueue, timing: SHORT, logger: createLogger('silent') });
  api = await startApi({
    events: dispatcher,
    invoices: new InvoiceRunner(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, timing: SHORT }),
    payments,
    env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true', PAYMENTS_SECRET_KEY: STRIPE_KEY },
  });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  admin = await api.tokenFor(tenant.users.admin!);
  sales = await api.tokenFor(tenant.users.sales!);
}, 180_000);
afterEach(async () => {
  // Each test starts with no endpoint: the catalogue routing of one must not reach another's.
  await owner.query('delete from webhook_endpoints where organization_id = $1', [tenant.id]);
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await api.close();
  await temporal.close();
  mailer.close();
  await catcher.stop();
  await closeStripe();
  await owner.end();
});

async function receiver(...answers: { status: number; body?: string; afterMs?: number }[]): Promise<WebhookReceiver> {
  const r = await new WebhookReceiver().start();
  receivers.push(r);
  return r.script(...answers);
}

async function register(body: Record<string, unknown>) {
  const res = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: body });
  expect(res.status).toBe(201);
  return WebhookEndpointWithSecret.parse(await res.json());
}

/** The tenant's outbox events of one name, oldest first, with their stored bytes. */
async function outbox(event: OutboxEventName): Promise<{ envelope: EventEnvelope; payload: string }[]> {
  const { rows } = await owner.query<{ envelope: EventEnvelope; payload: string }>(
    'select envelope, payload from outbox_events where organization_id = $1 and event = $2 order by sequence',
    [tenant.id, event],
  );
  return rows;
}

/** Resolves once every delivery of `eventId` has finished its workflow. */
async function settled(eventId: string): Promise<{ endpoint_id: string; status: string; attempts: number }[]> {
  const { rows } = await owner.query<{ endpoint_id: string; series: number; status: string; attempts: number }>(
    'select endpoint_id, series, status, attempts from webhook_deliveries where event_id = $1 order by series',
    [eventId],
  );
  for (const row of rows) {
    // A delivery kept as missed at once (its endpoint disabled) is settled already.
    await deliverySettled(owner, { endpointId: row.endpoint_id, eventId, series: row.series });
  }
  return (await owner.query('select endpoint_id, status, attempts from webhook_deliveries where event_id = $1 order by series', [eventId])).rows;
}

const newQuote = () => quotes.keptQuote({ api, temporal, sales }, { name: 'Avery Chen', email: 'avery@example.test' });

/** An event recorded straight into the outbox (as /v1/fsm will), then dispatched as the relay would. */
async function emit<N extends OutboxEventName>(event: N, data: EventData<N>, using = dispatcher): Promise<EventEnvelope> {
  const envelope = await inTenant(temporal.orm.em, tenant.id, (tx) => recordEvent(tx, tenant.id, event, data));
  await using.dispatch(envelope);
  return envelope;
}

/** Document 001 sections 6.1 and 6.2: v1 is the lowercase-hex HMAC-SHA256 of `<t>.<raw body>`, checked here by node:crypto alone. */
function hmacVerifies(header: string, body: string, secret: string): boolean {
  const t = /^t=(\d+),/.exec(header)?.[1];
  const v1 = /,v1=([0-9a-f]{64})$/.exec(header)?.[1];
  if (!t || !v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return Math.abs(Date.now() / 1000 - Number(t)) <= 300 && timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}

/** Exactly the headers a receiver sees, bar the signature's value. */
function headersOf(got: Received): Record<string, string> {
  return Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [k, String(v)]));
}

const mailTo = async (address: string) => (await catcher.messages()).filter((m) => m.to.some((to) => to.address === address));
/**
 * The mails to `address` about `endpointId`, once every notice claimed for it has been mailed:
 * the endpoint's workflow sends the notice after the batch that disabled it has recorded its
 * attempt, and claims it (one row per disabling) in the transaction that sends it. A second
 * notice would need a second claim, so counting the mails once the claims are mailed is final.
 */
async function mailsAbout(address: string, endpointId: string, timeoutMs = 10_000) {
  return waitUntil(
    `the disabled notice about ${endpointId}`,
    async () => {
      const { rows } = await owner.query('select 1 from webhook_endpoint_notices where endpoint_id = $1', [endpointId]);
      const mails = (await mailTo(address)).filter((m) => m.text.includes(endpointId));
      return rows.length > 0 && mails.length >= rows.length && mails;
    },
    { timeoutMs },
  );
}
const endpointById = async (id: string) => WebhookEndpointList.parse(await (await api.request('/api/v1/webhook-endpoints', { token: admin })).json()).data.find((e) => e.id === id)!;

describe('registration: a format fixed at registration, with its own catalogue (D13)', () => {
  it('defaults to core; field and events take the names of their catalogue; events pins the current version', async () => {
    const r = await receiver();
    const core = await register({ url: r.url, events: ['quote.approved'] });
    expect(core).toMatchObject({ format: 'core', api_version: CURRENT_VERSION, events: ['quote.approved'] });
    const field = await register({ url: r.url, format: 'field', events: ['job.dispatched', 'job.status_changed', 'job.completed', 'change_order.submitted', 'change_order.approved', 'change_order.rejected', 'quote.created', 'invoice.generated'] });
    expect(field).toMatchObject({ format: 'field', api_version: CURRENT_VERSION });
    const events = await register({ url: r.url, format: 'events', events: ['quote.created', 'invoice.generated'], description: 'CRM' });
    expect(events).toMatchObject({ format: 'events', api_version: CURRENT_VERSION, description: 'CRM', status: 'enabled' });
    expect(events.secret).toMatch(/^whsec_/);
    const listed = WebhookEndpointList.parse(await (await api.request('/api/v1/webhook-endpoints', { token: admin })).json()).data;
    expect(listed.map((e) => [e.id, e.format])).toEqual([
      [core.id, 'core'],
      [field.id, 'field'],
      [events.id, 'events'],
    ]);
  });

  it('a name outside the format\'s catalogue, an unknown format, or a change of format is a 422 naming the field, and nothing is stored', async () => {
    const r = await receiver();
    const refusals: [Record<string, unknown>, string][] = [
      [{ url: r.url, events: ['quote.created'] }, 'events.0'],
      [{ url: r.url, format: 'core', events: ['quote.approved', 'invoice.generated'] }, 'events.1'],
      [{ url: r.url, format: 'events', events: ['job.dispatched'] }, 'events.0'],
      [{ url: r.url, format: 'events', events: ['dispatch.updated', 'work_order.completed'] }, 'events.1'],
      [{ url: r.url, format: 'field', events: ['quote.approved'] }, 'events.0'],
      [{ url: r.url, format: 'field', events: ['work_order.dispatched'] }, 'events.0'],
      [{ url: r.url, format: 'stripe', events: ['quote.created'] }, 'format'],
      [{ url: r.url, format: 'FIELD', events: ['quote.created'] }, 'format'],
      [{ url: r.url, format: null, events: ['quote.created'] }, 'format'],
    ];
    for (const [body, field] of refusals) {
      const res = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: body });
      const answer = (await res.json()) as { error: { code: string; details: { fields: Record<string, string> } } };
      expect({ body, status: res.status, code: answer.error.code }).toEqual({ body, status: 422, code: 'validation_failed' });
      expect({ body, complaint: answer.error.details.fields[field] }).toEqual({ body, complaint: expect.any(String) });
    }
    expect((await owner.query('select count(*)::int as n from webhook_endpoints where organization_id = $1', [tenant.id])).rows[0].n).toBe(0);

    const events = await register({ url: r.url, format: 'events', events: ['quote.created'] });
    for (const json of [{ events: ['job.completed'] }, { events: ['quote.approved'] }, { format: 'field' }, { format: 'core', events: ['quote.approved'] }]) {
      const res = await api.request(`/api/v1/webhook-endpoints/${events.id}`, { method: 'PATCH', token: admin, json });
      expect({ json, status: res.status }).toEqual({ json, status: 422 });
    }
    const ok = await api.request(`/api/v1/webhook-endpoints/${events.id}`, { method: 'PATCH', token: admin, json: { events: ['invoice.generated', 'quote.created'] } });
    expect(ok.status).toBe(200);
    expect(await endpointById(events.id)).toMatchObject({ format: 'events', events: ['invoice.generated', 'quote.created'] });
  });
});

describe('each format on the wire: envelope, headers and signature, byte for byte (D13)', () => {
  it('quote.created reaches field and events endpoints in their envelopes, never a core endpoint subscribed to "*"', async () => {
    const [fieldReceiver, eventsReceiver, coreReceiver] = [await receiver(), await receiver(), await receiver()];
    const field = await register({ url: `${fieldReceiver.url}/field?x=1`, format: 'field', events: ['*'] });
    const events = await register({ url: eventsReceiver.url, format: 'events', events: ['quote.created'] });
    await register({ url: coreReceiver.url, events: ['*'] });

    const quote = await newQuote();
    const [stored] = (await outbox('quote.created')).filter((e) => (e.envelope.data as { id: string }).id === quote.quote_id);
    expect(stored).toBeDefined();
    const envelope = stored!.envelope;
    // Section 6.2's object: every field, from the quote as persisted.
    const revision = (await owner.query('select r.revision from quotes q join rate_card_revisions r on r.id = q.rate_card_revision_id where q.id = $1', [quote.quote_id])).rows[0].revision as Date;
    const customerId = (await owner.query('select customer_id from quotes where id = $1', [quote.quote_id])).rows[0].customer_id as string;
    // A quote made through /api/ is taxed as Ontario's (13 % HST), in /v1/quotes' totals shape (dollars).
    const tax = Math.floor((quote.totals.amount_cents * 13 + 50) / 100);
    const object = {
      id: quote.quote_id,
      reference: `Q-${quote.quote_number}`,
      revision: 1,
      status: 'draft',
      customerId,
      ownerId: tenant.users.sales!.id,
      currency: 'CAD',
      totals: {
        subtotal: dollars(quote.totals.amount_cents),
        taxTotal: dollars(tax),
        grandTotal: dollars(quote.totals.amount_cents + tax),
        marginPct: percentOf(quote.totals.amount_cents - quote.totals.cost_cents, quote.totals.amount_cents),
        currency: 'CAD',
      },
      pricebookRevision: revision.toISOString(),
      approval: { required: false, reason: null },
    };
    expect(envelope).toEqual({ event: 'quote.created', id: expect.any(String), organization_id: tenant.id, created_at: expect.any(String), data: object });

    const deliveries = await settled(envelope.id);
    expect(deliveries.map((d) => [d.endpoint_id, d.status]).sort()).toEqual([[field.id, 'delivered'], [events.id, 'delivered']].sort());
    expect(coreReceiver.received).toHaveLength(0);

    // Field (document 001 section 6.1).
    const [gotField] = fieldReceiver.received;
    const fieldBody = `{"event":"quote.created","event_id":"${envelope.id}","occurred_at":"${envelope.created_at}","data":${JSON.stringify(object)}}`;
    expect(gotField!.body).toBe(fieldBody);
    const fieldHeaders = headersOf(gotField!);
    expect(fieldHeaders).toEqual({
      host: new URL(fieldReceiver.url).host,
      'content-type': 'application/json',
      'user-agent': 'ShadeOffice-Webhooks/1.0',
      'content-length': String(Buffer.byteLength(fieldBody)),
      'x-service-signature': expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/),
      'x-service-event-id': envelope.id,
      connection: 'close',
    });
    expect(Stripe.webhooks.constructEvent(gotField!.body, fieldHeaders['x-service-signature']!, field.secret)).toMatchObject({ event_id: envelope.id });
    expect(hmacVerifies(fieldHeaders['x-service-signature']!, gotField!.body, field.secret)).toBe(true);
    const tampered = gotField!.body.replace('"status":"draft"', '"status":"sent"');
    expect(tampered).not.toBe(gotField!.body);
    expect(hmacVerifies(fieldHeaders['x-service-signature']!, tampered, field.secret)).toBe(false);
    expect(() => Stripe.webhooks.constructEvent(gotField!.body, fieldHeaders['x-service-signature']!, events.secret)).toThrow();

    // Events (document 001 section 6.2).
    const [gotEvents] = eventsReceiver.received;
    const eventsBody = `{"id":"${envelope.id}","type":"quote.created","apiVersion":"${CURRENT_VERSION}","createdAt":"${envelope.created_at}","livemode":true,"data":{"object":${JSON.stringify(object)},"previousAttributes":null}}`;
    expect(gotEvents!.body).toBe(eventsBody);
    const eventsHeaders = headersOf(gotEvents!);
    expect(eventsHeaders).toEqual({
      host: new URL(eventsReceiver.url).host,
      'content-type': 'application/json',
      'user-agent': 'ShadeOffice-Webhooks/1.0',
      'content-length': String(Buffer.byteLength(eventsBody)),
      'service-signature': expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/),
      connection: 'close',
    });
    expect(Stripe.webhooks.constructEvent(gotEvents!.body, eventsHeaders['service-signature']!, events.secret)).toMatchObject({ id: envelope.id, type: 'quote.created', livemode: true });
    expect(hmacVerifies(eventsHeaders['service-signature']!, gotEvents!.body, events.secret)).toBe(true);

    // The attempt log keeps each request exactly as sent (D13's deliveries page).
    const attempts = await owner.query<{ endpoint_id: string; request_body: string; request_headers: Record<string, string> }>(
      'select endpoint_id, request_body, request_headers from webhook_delivery_attempts where event_id = $1',
      [envelope.id],
    );
    const logged = Object.fromEntries(attempts.rows.map((a) => [a.endpoint_id, a]));
    expect(logged[field.id]!.request_body).toBe(fieldBody);
    expect(logged[field.id]!.request_headers['X-Service-Signature']).toBe(fieldHeaders['x-service-signature']);
    expect(logged[events.id]!.request_body).toBe(eventsBody);
    expect(logged[events.id]!.request_headers['Service-Signature']).toBe(eventsHeaders['service-signature']);
  }, 60_000);

  it('core deliveries are unchanged: the stored envelope, byte for byte, with X-Service-Event, X-Service-Delivery and X-Service-Signature', async () => {
    const coreReceiver = await receiver();
    const core = await register({ url: coreReceiver.url, events: ['*'] });
    const created = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: {} });
    const workOrder = ((await created.json()) as { id: string }).id;
    expect((await api.request(`/api/v1/work-orders/${workOrder}/status`, { method: 'PATCH', token: admin, json: { status: 'CANCELLED' } })).status).toBe(200);
    const stored = (await outbox('work_order.cancelled')).find((e) => (e.envelope.data as { work_order_id: string }).work_order_id === workOrder)!;
    await settled(stored.envelope.id);
    const [got] = coreReceiver.received;
    expect(got!.body).toBe(stored.payload);
    expect(headersOf(got!)).toEqual({
      host: new URL(coreReceiver.url).host,
      'content-type': 'application/json',
      'user-agent': 'ShadeOffice-Webhooks/1.0',
      'content-length': String(Buffer.byteLength(stored.payload)),
      'x-service-event': 'work_order.cancelled',
      'x-service-delivery': stored.envelope.id,
      'x-service-signature': expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/),
      connection: 'close',
    });
    expect(Stripe.webhooks.constructEvent(got!.body, String(got!.headers['x-service-signature']), core.secret)).toMatchObject({ id: stored.envelope.id });
  }, 30_000);

  it('a job or change-order event in the outbox goes to field endpoints that subscribe to it, and nowhere else', async () => {
    const [all, jobsOnly, quotesOnly, eventsFormat, core] = [await receiver(), await receiver(), await receiver(), await receiver(), await receiver()];
    const allField = await register({ url: all.url, format: 'field', events: ['*'] });
    const jobs = await register({ url: jobsOnly.url, format: 'field', events: ['job.status_changed'] });
    await register({ url: quotesOnly.url, format: 'field', events: ['quote.created'] });
    await register({ url: eventsFormat.url, format: 'events', events: ['*'] });
    await register({ url: core.url, events: ['*'] });

    const job = await emit('job.status_changed', sampleEventData('job.status_changed', { job_id: '7f1c1f8e-41a4-4c38-9d4e-0f3f8c1a2b3c', from: 'dispatched', to: 'in_progress' }));
    expect((await settled(job.id)).map((d) => d.endpoint_id).sort()).toEqual([allField.id, jobs.id].sort());
    const co = await emit('change_order.submitted', sampleEventData('change_order.submitted', { change_order_id: 'c0c0c0c0-0000-4000-8000-000000000001', job_id: '7f1c1f8e-41a4-4c38-9d4e-0f3f8c1a2b3c', sequence: 1 }));
    expect((await settled(co.id)).map((d) => d.endpoint_id)).toEqual([allField.id]);

    expect(all.received.map((r) => JSON.parse(r.body) as { event: string; event_id: string })).toEqual([
      { event: 'job.status_changed', event_id: job.id, occurred_at: job.created_at, data: job.data },
      { event: 'change_order.submitted', event_id: co.id, occurred_at: co.created_at, data: co.data },
    ]);
    expect(all.received[0]!.body).toBe(`{"event":"job.status_changed","event_id":"${job.id}","occurred_at":"${job.created_at}","data":${JSON.stringify(job.data)}}`);
    expect(jobsOnly.received).toHaveLength(1);
    for (const none of [quotesOnly, eventsFormat, core]) expect(none.received).toHaveLength(0);
  }, 30_000);

  it('invoice.generated when the payments leg finalises an invoice, once per invoice, to field and events endpoints', async () => {
    const [fieldReceiver, eventsReceiver, coreReceiver] = [await receiver(), await receiver(), await receiver()];
    const field = await register({ url: fieldReceiver.url, format: 'field', events: ['invoice.generated'] });
    const events = await register({ url: eventsReceiver.url, format: 'events', events: ['invoice.generated'] });
    await register({ url: coreReceiver.url, events: ['*'] });
    const quote = await newQuote();
    expect((await api.request(`/api/v1/quotes/${quote.quote_id}/approve`, { method: 'POST', token: sales })).status).toBe(200);
    await temporal.client.workflow.getHandle(approvalWorkflowId(quote.quote_id)).result();
    // POST /invoice runs the payments leg again: the same invoice (idempotency keys), no second event.
    expect((await api.request(`/api/v1/quotes/${quote.quote_id}/invoice`, { method: 'POST', token: sales })).status).toBe(200);

    const generated = (await outbox('invoice.generated')).filter((e) => (e.envelope.data as { quoteId: string }).quoteId === quote.quote_id);
    expect(generated).toHaveLength(1);
    const invoice = stripeFake.inspect.invoices(STRIPE_KEY).find((i) => (i.metadata as Record<string, string>).quote_id === quote.quote_id)! as { id: string; total: number };
    const customerId = (await owner.query('select customer_id from quotes where id = $1', [quote.quote_id])).rows[0].customer_id as string;
    const tax = Math.floor((quote.totals.amount_cents * 13 + 50) / 100);
    const object = {
      id: invoice.id,
      reference: `Q-${quote.quote_number}`,
      revision: 1,
      sourceType: 'quote',
      sourceId: quote.quote_id,
      quoteId: quote.quote_id,
      customerId,
      currency: 'CAD',
      status: 'open',
      totals: { subtotal: dollars(quote.totals.amount_cents), taxTotal: dollars(tax), grandTotal: dollars(invoice.total), currency: 'CAD' },
      taxLines: [{ code: 'HST', rate: 0.13, amount: dollars(tax) }],
      partsConsumed: [],
      erpSync: { target: 'accounting', status: 'skipped' },
    };
    expect(generated[0]!.envelope.data).toEqual(object);
    expect(invoice.total).toBe(quote.totals.amount_cents + tax);

    // The worker recorded it; the relay dispatches what the worker records (here, by hand).
    await dispatcher.dispatch(generated[0]!.envelope);
    const envelope = generated[0]!.envelope;
    expect((await settled(envelope.id)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
    expect(fieldReceiver.received[0]!.body).toBe(`{"event":"invoice.generated","event_id":"${envelope.id}","occurred_at":"${envelope.created_at}","data":${JSON.stringify(object)}}`);
    expect(eventsReceiver.received[0]!.body).toBe(
      `{"id":"${envelope.id}","type":"invoice.generated","apiVersion":"${CURRENT_VERSION}","createdAt":"${envelope.created_at}","livemode":true,"data":{"object":${JSON.stringify(object)},"previousAttributes":null}}`,
    );
    expect(Stripe.webhooks.constructEvent(eventsReceiver.received[0]!.body, String(eventsReceiver.received[0]!.headers['service-signature']), events.secret)).toMatchObject({ type: 'invoice.generated' });
    expect(hmacVerifies(String(fieldReceiver.received[0]!.headers['x-service-signature']), fieldReceiver.received[0]!.body, field.secret)).toBe(true);
    expect(coreReceiver.received.map((r) => (JSON.parse(r.body) as { event: string }).event)).toEqual(['quote.approved']);
  }, 60_000);
});

describe("invoice.generated for a change order's invoice (D12, D13)", () => {
  it('is recorded once when the change order is invoiced, with its delta, and reaches a field endpoint', async () => {
    const other = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    otherTenants.push(other.id);
    await giveRateCard(other.id, SANDBOX_RATE_CARD);
    const token = await api.tokenFor(other.users.admin!);
    const r = await receiver();
    const registered = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token, json: { url: r.url, format: 'field', events: ['invoice.generated'] } });
    expect(registered.status).toBe(201);
    const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true, customer: { name: 'Sam Ortiz', email: 'sam@example.test' } }) });
    const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
    expect((await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token })).status).toBe(200);
    await temporal.client.workflow.getHandle(approvalWorkflowId(quoteId)).result();
    const job = await api.request('/api/v1/work-orders', { method: 'POST', token, json: { quoteId, assignedTechnicianId: other.users.tech!.id } });
    const jobId = ((await job.json()) as { id: string }).id;
    const raised = await api.request(`/v1/fsm/jobs/${jobId}/change-orders`, { method: 'POST', token, json: { reason: 'Two more hours to reroute a motor cable', labour_hours: 2 } });
    expect(raised.status).toBe(201);
    const changeOrder = (await raised.json()) as { change_order_id: string; delta: { sell: number } };
    const approved = await api.request(`/v1/fsm/change-orders/${changeOrder.change_order_id}/approve`, {
      method: 'POST',
      token,
      json: { approved_by: { name: 'Sam Ortiz', role: 'Homeowner', method: 'in_person' } },
    });
    expect(approved.status).toBe(200);
    const outcome = await temporal.client.workflow.getHandle(changeOrderInvoiceWorkflowId(changeOrder.change_order_id)).result();
    expect(outcome).toMatchObject({ status: 'SUCCEEDED' });

    // The stored text (jsonb would reorder the keys): what deliveries are rendered from.
    const { rows } = await owner.query<{ envelope: EventEnvelope }>(`select payload::json as envelope from outbox_events where organization_id = $1 and event = 'invoice.generated' order by sequence`, [other.id]);
    const quoteInvoice = stripeFake.inspect.invoices(STRIPE_KEY).find((i) => (i.metadata as Record<string, string>).quote_id === quoteId && !(i.metadata as Record<string, string>).change_order_id)!;
    const coInvoice = stripeFake.inspect.invoices(STRIPE_KEY).find((i) => (i.metadata as Record<string, string>).change_order_id === changeOrder.change_order_id)! as { id: string; total: number };
    expect(rows.map((row) => (row.envelope.data as { id: string; sourceType: string }).sourceType)).toEqual(['quote', 'change_order']);
    expect((rows[0]!.envelope.data as { id: string }).id).toBe(quoteInvoice.id);
    const sell = Math.round(changeOrder.delta.sell * 100);
    const tax = Math.floor((sell * 13 + 50) / 100);
    expect(rows[1]!.envelope.data).toMatchObject({
      id: coInvoice.id,
      sourceType: 'change_order',
      sourceId: changeOrder.change_order_id,
      quoteId,
      totals: { subtotal: dollars(sell), taxTotal: dollars(tax), grandTotal: dollars(coInvoice.total), currency: 'CAD' },
      taxLines: [{ code: 'HST', rate: 0.13, amount: dollars(tax) }],
    });
    expect(coInvoice.total).toBe(sell + tax);

    const envelope = rows[1]!.envelope;
    await dispatcher.dispatch(envelope);
    expect((await settled(envelope.id)).map((d) => d.status)).toEqual(['delivered']);
    expect(r.received.map((got) => got.body)).toContain(`{"event":"invoice.generated","event_id":"${envelope.id}","occurred_at":"${envelope.created_at}","data":${JSON.stringify(envelope.data)}}`);
  }, 90_000);
});

describe('the 24-hour schedules, the disabling and its email, 410 and replay (D13), on a shortened clock', () => {
  it('field: every non-2xx retried for 24 hours (12 attempts), then the endpoint disabled and its technical contact emailed once', async () => {
    const failing = await receiver(...Array.from({ length: 12 }, (_, i) => ({ status: i % 3 === 0 ? 400 : 503, body: 'no' })));
    const field = await register({ url: failing.url, format: 'field', events: ['job.completed'] });
    const job = await emit('job.completed', sampleEventData('job.completed', { job_id: 'a1a1a1a1-0000-4000-8000-000000000001', hours_logged: 6.5, hours_estimated: 6 }), dispatcherAt(FIELD_CLOCK));
    const [delivery] = await settled(job.id);
    // The endpoint is disabled by the first failure once 24 hours (shortened) of failures are over.
    // The schedule puts its 12th and last attempt there; on a machine slow enough to stretch the
    // shortened waits by seconds an earlier attempt can cross the line first (the delivery is then
    // `missed`, the rest kept for replay), so the count is bounded, not fixed, here; the schedule
    // itself is asserted row by row in test/unit/webhook-schedules.test.ts.
    const sent = failing.received.length;
    expect(sent).toBeGreaterThanOrEqual(8);
    expect(sent).toBeLessThanOrEqual(12);
    expect(delivery).toEqual({ endpoint_id: field.id, status: sent === 12 ? 'failed' : 'missed', attempts: sent });
    expect(new Set(failing.received.map((r) => r.body)).size).toBe(1);
    expect(new Set(failing.received.map((r) => r.headers['x-service-event-id']))).toEqual(new Set([job.id]));
    // The waits grow (1, 2, 4, ... minutes, shortened), and the disabling came after 24 hours of them.
    const gaps = failing.received.slice(1).map((r, i) => r.at - failing.received[i]!.at);
    expect(failing.received.at(-1)!.at - failing.received[0]!.at).toBeGreaterThanOrEqual(24 * 3600 * 1000 * FIELD_CLOCK.retryScale!);
    expect(gaps[6]!).toBeGreaterThan(gaps[2]!);
    const disabled = await endpointById(field.id);
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing for 24 hours' });
    const mails = await mailsAbout(tenant.users.admin!.email, field.id);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('Why            failing for 24 hours');
  }, 120_000);

  it('events: 8 attempts over 24 hours; failing every attempt for 72 hours disables it and emails the owner; re-enabling replays what it missed', async () => {
    const failing = await receiver(...Array.from({ length: 9 }, () => ({ status: 500, body: 'down' })));
    const events = await register({ url: failing.url, format: 'events', events: ['quote.created'] });
    const clock = dispatcherAt(EVENTS_CLOCK);
    const first = await emit('quote.created', sampleEventData('quote.created', { id: randomUUID(), reference: 'Q-1' }), clock);
    expect(await settled(first.id)).toEqual([{ endpoint_id: events.id, status: 'failed', attempts: 8 }]);
    expect(failing.received).toHaveLength(8);
    const span = failing.received.at(-1)!.at - failing.received[0]!.at;
    expect(span).toBeGreaterThanOrEqual(24 * 3600 * 1000 * EVENTS_CLOCK.retryScale!);
    // 24 hours of failures are not 72: still enabled.
    expect((await endpointById(events.id)).status).toBe('enabled');

    // 72 hours of failing every attempt (the failure clock moved back past them): the next failure disables it.
    await owner.query(`update webhook_endpoints set failing_since = now() - interval '1 hour' where id = $1`, [events.id]);
    const second = await emit('quote.created', sampleEventData('quote.created', { id: randomUUID(), reference: 'Q-2' }), clock);
    expect(await settled(second.id)).toEqual([{ endpoint_id: events.id, status: 'missed', attempts: 1 }]);
    expect(await endpointById(events.id)).toMatchObject({ status: 'disabled', disabled_reason: 'failing for 72 hours' });
    expect(await mailsAbout(tenant.users.admin!.email, events.id)).toHaveLength(1);

    // While disabled: kept as missed, nothing sent.
    const third = await emit('quote.created', sampleEventData('quote.created', { id: randomUUID(), reference: 'Q-3' }), clock);
    expect(await settled(third.id)).toEqual([{ endpoint_id: events.id, status: 'missed', attempts: 0 }]);
    expect(failing.received).toHaveLength(9);

    // Re-enabled: both missed events are delivered again, same ids, in the events envelope.
    expect((await api.request(`/api/v1/webhook-endpoints/${events.id}`, { method: 'PATCH', token: admin, json: { status: 'enabled' } })).status).toBe(200);
    await failing.waitFor(11);
    const replayed = failing.received.slice(9).map((r) => JSON.parse(r.body) as { id: string; type: string; apiVersion: string });
    expect(replayed.map((r) => r.id).sort()).toEqual([second.id, third.id].sort());
    for (const r of replayed) expect(r).toMatchObject({ type: 'quote.created', apiVersion: CURRENT_VERSION });
    for (const id of [second.id, third.id]) expect((await settled(id)).map((d) => d.status)).toEqual(['failed', 'delivered']);
  }, 90_000);

  it.each(['core', 'field', 'events'] as const)('%s: a 410 Gone disables the endpoint at once, one attempt, one email', async (format) => {
    const gone = await receiver({ status: 410, body: 'gone' });
    const endpoint = await register({ url: gone.url, format, events: [format === 'core' ? 'work_order.pending' : 'quote.created'] });
    const event = format === 'core' ? await emit('work_order.pending', sampleEventData('work_order.pending', { work_order_id: randomUUID() })) : await emit('quote.created', sampleEventData('quote.created', { id: randomUUID() }));
    expect(await settled(event.id)).toEqual([{ endpoint_id: endpoint.id, status: 'failed', attempts: 1 }]);
    expect(gone.received).toHaveLength(1);
    expect(await endpointById(endpoint.id)).toMatchObject({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone' });
    const mails = await mailsAbout(tenant.users.admin!.email, endpoint.id);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('Why            the receiver answered 410 Gone');
  }, 30_000);

  it('a worker restart in the middle of a field schedule loses nothing and sends no attempt twice', async () => {
    // A slower clock (a minute is 60 ms) so the worker can be stopped between attempts.
    const slower = dispatcherAt({ retryScale: 0.001 });
    const flaky = await receiver(...Array.from({ length: 6 }, () => ({ status: 503 })));
    const field = await register({ url: flaky.url, format: 'field', events: ['job.dispatched'] });
    const job = await emit('job.dispatched', sampleEventData('job.dispatched', { job_id: 'b2b2b2b2-0000-4000-8000-000000000002' }), slower);
    await flaky.waitFor(4);
    await temporal.stopWorker();
    const whileStopped = flaky.received.length;
    // Attempt 5 is due 0.48 s (8 minutes) after attempt 4: its timer fires with no worker.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(flaky.received).toHaveLength(whileStopped);
    await temporal.startWorker(workerDeps);
    const [delivery] = await settled(job.id);
    expect(delivery).toEqual({ endpoint_id: field.id, status: 'delivered', attempts: 7 });
    expect(flaky.received).toHaveLength(7);
    expect(new Set(flaky.received.map((r) => r.body)).size).toBe(1);
    const { rows } = await owner.query<{ attempt: number }>('select attempt from webhook_delivery_attempts where event_id = $1 order by attempt', [job.id]);
    expect(rows.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  }, 60_000);
});

describe("a receiver that is slow, answers a huge body or holds the connection is cut at its format's window (D13)", () => {
  /** Deliveries of one new event to the given endpoints, created without starting their workflows: the attempts run here. */
  async function pendingDeliveries(event: OutboxEventName, endpoints: { id: string }[]) {
    const envelope = await inTenant(temporal.orm.em, tenant.id, (tx) => recordEvent(tx, tenant.id, event, sampleEventData(event)));
    const rows = await createDeliveriesForEvent(temporal.orm.em, envelope);
    return endpoints.map((e) => rows.find((r) => r.endpoint_id === e.id)!);
  }
  /** One batch of the delivery's endpoint, as the endpoint workflow runs it: its one attempt's outcome, and the endpoint's format. */
  const attempt = async (delivery: { id: string; endpoint_id: string }, deps: Partial<WebhookDeliveryDeps> = {}) => {
    const report = await deliverWebhookBatch(
      { em: temporal.orm.em, cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true, ...deps },
      { organizationId: tenant.id, endpointId: delivery.endpoint_id, token: `window-${delivery.id}`, claim: 1, concurrency: 1, stopAfterFailures: 1, decisions: [] },
    );
    const outcomes = Object.entries(report.attempts).flatMap(([outcome, count]) => Array<string>(count).fill(outcome));
    expect(outcomes).toHaveLength(1);
    return { outcome: outcomes[0], format: report.format };
  };
  const logged = async (deliveryId: string) =>
    (await owner.query('select outcome, response_status, error, duration_ms, response_excerpt, request_body from webhook_delivery_attempts where delivery_id = $1', [deliveryId])).rows[0];

  /** Accepts connections and never writes a byte. */
  async function silentServer(): Promise<{ url: string; close: () => Promise<void> }> {
    const sockets = new Set<Socket>();
    const server = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hold`,
      close: async () => {
        for (const s of sockets) s.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  /** Answers 200 at once, then a body that never ends (a chunk every 50 ms), or a huge one as fast as it can. */
  async function streamingServer(mode: 'trickle' | 'huge'): Promise<{ url: string; close: () => Promise<void>; sentBytes: () => number }> {
    let sent = 0;
    const server = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      if (mode === 'trickle') {
        res.write('{"ok":');
        const timer = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (sent < 50 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`,
      sentBytes: () => sent,
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  it.each([
    ['core', 8_000, 0.075],
    ['field', 10_000, 0.06],
    ['events', 300_000, 0.002],
  ] as const)('%s: no answer within its %i ms window (scaled to 600 ms here) is a retryable failure, recorded with the request', async (format, window, scale) => {
    const silent = await silentServer();
    try {
      const endpoint = await register({ url: silent.url, format, events: [format === 'core' ? 'work_order.pending' : 'quote.created'] });
      const [delivery] = await pendingDeliveries(format === 'core' ? 'work_order.pending' : 'quote.created', [endpoint]);
      const started = Date.now();
      const report = await attempt(delivery!, { responseWindowScale: scale });
      const took = Date.now() - started;
      expect(report).toEqual({ outcome: 'retryable_failure', format });
      expect(Math.round(window * scale)).toBe(600);
      expect(took).toBeGreaterThanOrEqual(590);
      expect(took).toBeLessThan(3000);
      const row = await logged(delivery!.id);
      expect(row).toMatchObject({ outcome: 'retryable_failure', response_status: null, error: 'timeout: no response within 600 ms', response_excerpt: null });
      expect(row.request_body).toEqual(expect.any(String));
    } finally {
      await silent.close();
    }
  }, 30_000);

  it('a slow receiver holds only its own attempt: another delivery of the same moment is received at once', async () => {
    const silent = await silentServer();
    const fast = await receiver();
    try {
      const slow = await register({ url: silent.url, format: 'events', events: ['quote.created'] });
      const quick = await register({ url: fast.url, format: 'events', events: ['quote.created'] });
      const [slowDelivery, quickDelivery] = await pendingDeliveries('quote.created', [slow, quick]);
      const started = Date.now();
      const slowAttempt = attempt(slowDelivery!, { responseWindowScale: 0.01 }); // 3 s
      const quickReport = await attempt(quickDelivery!, { responseWindowScale: 0.01 });
      const quickTook = Date.now() - started;
      expect(quickReport).toEqual({ outcome: 'delivered', format: 'events' });
      expect(fast.received).toHaveLength(1);
      expect(quickTook).toBeLessThan(2500);
      expect(await slowAttempt).toEqual({ outcome: 'retryable_failure', format: 'events' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2990);
    } finally {
      await silent.close();
    }
  }, 30_000);

  it('a 2xx whose body never ends is delivered and cut at the window; a huge body is cut at 4 KiB without being read', async () => {
    const trickle = await streamingServer('trickle');
    const huge = await streamingServer('huge');
    try {
      const open = await register({ url: trickle.url, format: 'field', events: ['quote.created'] });
      const big = await register({ url: huge.url, format: 'field', events: ['quote.created'] });
      const [openDelivery, bigDelivery] = await pendingDeliveries('quote.created', [open, big]);
      const started = Date.now();
      expect(await attempt(openDelivery!, { responseWindowScale: 0.05 })).toEqual({ outcome: 'delivered', format: 'field' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(490);
      expect(await logged(openDelivery!.id)).toMatchObject({ outcome: 'delivered', response_status: 200, error: null, response_excerpt: expect.stringMatching(/^\{"ok": +$/) });

      const bigStarted = Date.now();
      expect(await attempt(bigDelivery!)).toEqual({ outcome: 'delivered', format: 'field' });
      expect(Date.now() - bigStarted).toBeLessThan(5000);
      const row = await logged(bigDelivery!.id);
      expect(row).toMatchObject({ outcome: 'delivered', response_status: 200 });
      expect(row.response_excerpt).toBe('x'.repeat(4096));
      expect(huge.sentBytes()).toBeLessThan(50 * 1024 * 1024);
    } finally {
      await trickle.close();
      await huge.close();
    }
  }, 30_000);

  it('a host whose DNS answer (injected) is private is refused before any connection, in the field format too, and not retried', async () => {
    const r = await receiver();
    const endpoint = await register({ url: r.url, format: 'field', events: ['quote.created'] });
    // The URL is changed behind the API's back: the delivery's own connect-time check must refuse it.
    await owner.query(`update webhook_endpoints set url = 'https://hooks.field-receiver.test/in' where id = $1`, [endpoint.id]);
    const [delivery] = await pendingDeliveries('quote.created', [endpoint]);
    const asked: string[] = [];
    const lookup = async (hostname: string) => {
      asked.push(hostname);
      return [{ address: '10.20.30.40', family: 4 }];
    };
    expect(await attempt(delivery!, { lookup })).toEqual({ outcome: 'permanent_failure', format: 'field' });
    expect(asked).toEqual(['hooks.field-receiver.test']);
    expect(await logged(delivery!.id)).toMatchObject({ outcome: 'permanent_failure', response_status: null, error: expect.stringMatching(/^refused: /), request_body: null });
    expect(r.received).toHaveLength(0);
  });
});

describe('every event these tests recorded has the published shape', () => {
  it('parses with its data schema, and as each format sends it with the envelope the OpenAPI document publishes', async () => {
    const checked = await checkRecordedEvents(owner, [tenant.id, ...otherTenants]);
    expect(checked.filter((c) => c.problems.length > 0)).toEqual([]);
    // The services' events and the ones recorded straight into the outbox, of every format.
    expect(new Set(checked.map((c) => c.event))).toEqual(
      new Set(['quote.created', 'quote.approved', 'invoice.generated', 'work_order.cancelled', 'work_order.pending', 'job.status_changed', 'job.dispatched', 'job.completed', 'change_order.submitted', 'change_order.approved']),
    );
  });
});
