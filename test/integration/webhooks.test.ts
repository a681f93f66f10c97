import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OwnDatabase } from '../support/own-database';
import type pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { deliverySettled } from '../support/delivery-settled';
import { waitUntil } from '../../scripts/harness/wait-until';
import { DeliveryAttemptList, WebhookEndpoint, WebhookEndpointList, WebhookEndpointWithSecret } from '../../api/webhooks/schemas';
import { recordEvent } from '../../db/events/outbox';
import { sampleEventData } from '../../scripts/harness/sample-events';
import { checkRecordedEvents } from '../support/recorded-events';
import { inTenant } from '../../db/tenant-scope';
import { WEBHOOK_ENDPOINTS_PER_TENANT } from '../../db/limits';

const KEY = randomBytes(32).toString('base64');
let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let tenant: Tenant;
let admin: string;
const receivers: WebhookReceiver[] = [];
// It runs the outbox relay.
const database = new OwnDatabase('webhooks');

beforeAll(async () => {
  await database.create();
  owner = ownerPool();
  temporal = await startTemporalHarness();
  await temporal.startWorker({ webhooks: { cipher: new CredentialCipher(KEY), allowPrivateNetworks: true } });
  api = await startApi({ events: temporal.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  admin = await api.tokenFor(tenant.users.admin!);
}, 120_000);
afterAll(async () => {
  for (const r of receivers) await r.close();
  await api.close();
  await temporal.close();
  await owner.end();
  await database.drop();
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await new WebhookReceiver().start();
  receivers.push(r);
  return r;
}
async function subscribe(url: string, events: string[] = ['*'], token = admin, target = api) {
  const res = await target.request('/api/v1/webhook-endpoints', { method: 'POST', token, json: { url, events, description: 'test receiver' } });
  expect(res.status).toBe(201);
  return WebhookEndpointWithSecret.parse(await res.json());
}
/** A real change that emits work_order.dispatched through the API. */
async function dispatchWorkOrder(t: Tenant = tenant, target = api): Promise<string> {
  const token = await target.tokenFor(t.users.admin!);
  const created = await target.request('/api/v1/work-orders', { method: 'POST', token, json: { assignedTechnicianId: t.users.tech?.id } });
  const id = ((await created.json()) as { id: string }).id;
  expect((await target.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token, json: { status: 'DISPATCHED' } })).status).toBe(200);
  return id;
}
const deliveryOf = async (endpointId: string) => (await owner.query('select id, event_id, status, attempts, series from webhook_deliveries where endpoint_id = $1 order by created_at, series', [endpointId])).rows;
const attemptsOf = async (endpointId: string, token = admin) => DeliveryAttemptList.parse(await (await api.request(`/api/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`, { token })).json()).data;
async function settled(endpointId: string, eventId: string, series = 0) {
  await deliverySettled(owner, { endpointId, eventId, series });
}

describe('delivery (section 6.3)', () => {
  it('delivers once, signed so that Stripe\'s own verifier accepts it, and rejects one changed byte', async () => {
    const r = await receiver();
    const endpoint = await subscribe(r.url, ['work_order.dispatched']);
    expect(endpoint.secret).toMatch(/^whsec_/);
    const workOrderId = await dispatchWorkOrder();
    const [got] = await r.waitFor(1);
    const envelope = JSON.parse(got!.body) as { event: string; id: string; organization_id: string; created_at: string; data: { work_order_id: string } };
    expect(envelope).toMatchObject({ event: 'work_order.dispatched', organization_id: tenant.id, data: { work_order_id: workOrderId } });
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-service-event']).toBe('work_order.dispatched');
    expect(got!.headers['x-service-delivery']).toBe(envelope.id);
    const signature = got!.headers['x-service-signature'] as string;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(Stripe.webhooks.constructEvent(got!.body, signature, endpoint.secret)).toMatchObject({ id: envelope.id });
    const tampered = got!.body.replace('work_order.dispatched', 'work_order.dispatchee');
    expect(() => Stripe.webhooks.constructEvent(tampered, signature, endpoint.secret)).toThrow();
    // The delivery row is terminal: its attempts are over (each is recorded after the receiver
    // answered it), so what the receiver holds now is all it will ever get.
    await settled(endpoint.id, envelope.id);
    expect(r.received).toHaveLength(1);
    const attempts = await attemptsOf(endpoint.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ event_id: envelope.id, event: 'work_order.dispatched', attempt: 1, outcome: 'delivered', response_status: 200 });
  });

  it('500 once then 200: two attempts with the same X-Service-Delivery', async () => {
    const r = (await receiver()).script({ status: 500, body: 'try later' });
    const endpoint = await subscribe(r.url);
    await dispatchWorkOrder();
    const got = await r.waitFor(2);
    expect(got[0]!.headers['x-service-delivery']).toBe(got[1]!.headers['x-service-delivery']);
    const eventId = got[0]!.headers['x-service-delivery'] as string;
    await settled(endpoint.id, eventId);
    expect((await attemptsOf(endpoint.id)).map((a) => [a.attempt, a.outcome, a.response_status])).toEqual([
      [2, 'delivered', 200],
      [1, 'retryable_failure', 500],
    ]);
    expect((await attemptsOf(endpoint.id))[1]!.response_excerpt).toBe('try later');
  });

  it('400: one attempt, no retry; 302: not followed, one attempt', async () => {
    for (const answer of [{ status: 400 }, { status: 302, headers: { location: 'http://127.0.0.1:9/elsewhere' } }]) {
      const r = (await receiver()).script(answer);
      const endpoint = await subscribe(r.url);
      await dispatchWorkOrder();
      const [got] = await r.waitFor(1);
      await settled(endpoint.id, got!.headers['x-service-delivery'] as string);
      expect(r.received).toHaveLength(1);
      expect((await deliveryOf(endpoint.id))[0]).toMatchObject({ status: 'failed', attempts: 1 });
      expect((await attemptsOf(endpoint.id))[0]).toMatchObject({ outcome: 'permanent_failure', response_status: answer.status });
    }
  });

  it('a receiver that answers after 9 seconds has failed that attempt, and is tried again', async () => {
    const r = (await receiver()).script({ status: 200, afterMs: 9000 });
    const endpoint = await subscribe(r.url);
    await dispatchWorkOrder();
    const got = await r.waitFor(2, 30_000);
    await settled(endpoint.id, got[0]!.headers['x-service-delivery'] as string);
    const attempts = (await attemptsOf(endpoint.id)).reverse();
    expect(attempts[0]).toMatchObject({ attempt: 1, outcome: 'retryable_failure', response_status: null });
    expect(attempts[0]!.duration_ms).toBeGreaterThanOrEqual(7900);
    expect(attempts[0]!.duration_ms).toBeLessThan(9000);
    expect(attempts[1]).toMatchObject({ attempt: 2, outcome: 'delivered' });
  }, 40_000);

  it('five failures: exactly five attempts and the delivery failed; a replay then delivers the same event', async () => {
    const r = (await receiver()).script(...Array.from({ length: 5 }, () => ({ status: 503 })));
    const endpoint = await subscribe(r.url);
    await dispatchWorkOrder();
    const got = await r.waitFor(5);
    const eventId = got[0]!.headers['x-service-delivery'] as string;
    await settled(endpoint.id, eventId);
    expect(r.received).toHaveLength(5);
    const [delivery] = await deliveryOf(endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 5 });
    expect((await attemptsOf(endpoint.id)).map((a) => a.attempt)).toEqual([5, 4, 3, 2, 1]);

    const replay = await api.request(`/api/v1/webhook-deliveries/${delivery.id}/replay`, { method: 'POST', token: admin });
    expect(replay.status).toBe(202);
    const replayed = (await replay.json()) as { delivery_id: string; event_id: string };
    expect(replayed.event_id).toBe(eventId);
    await settled(endpoint.id, eventId, 1);
    expect(r.received).toHaveLength(6);
    expect(r.received[5]!.headers['x-service-delivery']).toBe(eventId);
    expect((await deliveryOf(endpoint.id)).map((d) => [d.series, d.status])).toEqual([
      [0, 'failed'],
      [1, 'delivered'],
    ]);
  });
});

describe('isolation and transactions', () => {
  it("never delivers another tenant's events, and nothing for a refused or rolled-back change", async () => {
    const other = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    const theirs = await receiver();
    const theirsEndpoint = await subscribe(theirs.url, ['*'], await api.tokenFor(other.users.admin!));
    const ours = await receiver();
    const oursEndpoint = await subscribe(ours.url, ['*']);

    await dispatchWorkOrder();
    await ours.waitFor(1);
    // A refused transition (409) records nothing.
    const token = admin;
    const created = await api.request('/api/v1/work-orders', { method: 'POST', token, json: {} });
    const id = ((await created.json()) as { id: string }).id;
    expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token, json: { status: 'COMPLETED' } })).status).toBe(409);
    // A change that rolls back takes its event with it.
    const rolledBack = inTenant(api.orm.em, tenant.id, async (tx) => {
      await recordEvent(tx, tenant.id, 'work_order.cancelled', sampleEventData('work_order.cancelled', { work_order_id: id }));
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect((await owner.query(`select count(*)::int as n from outbox_events where envelope->'data'->>'work_order_id' = $1`, [id])).rows[0].n).toBe(0);

    // Relayed now is every event there is: a delivery exists only as a row the relay wrote. The
    // other tenant's endpoint has none, ours one, settled; so neither receiver gets more.
    await temporal.relay.drainOnce();
    expect(await deliveryOf(theirsEndpoint.id)).toEqual([]);
    const [ourDelivery, ...moreOfOurs] = await deliveryOf(oursEndpoint.id);
    expect(moreOfOurs).toEqual([]);
    await settled(oursEndpoint.id, ourDelivery!.event_id);
    expect(theirs.received).toHaveLength(0);
    expect(ours.received).toHaveLength(1);
  });
});

describe("an endpoint's first event (Stripe's rule)", () => {
  it('an endpoint registered right after a burst of events gets none of them, even relayed after it exists; it gets the next one', async () => {
    // A burst of committed events not yet fanned out (the relay behind, as under load).
    const burst = await inTenant(api.orm.em, tenant.id, async (tx) => {
      const recorded = [];
      for (let i = 0; i < 5; i += 1) recorded.push(await recordEvent(tx, tenant.id, 'work_order.dispatched', sampleEventData('work_order.dispatched', { work_order_id: randomUUID() })));
      return recorded;
    });
    const r = await receiver();
    const endpoint = await subscribe(r.url, ['work_order.dispatched']);
    for (const event of burst) expect(Date.parse(event.created_at)).toBeLessThan(Date.parse(endpoint.created_at));
    // Fanned out now, after the endpoint exists, as the relay's batch would be.
    await temporal.dispatcher.dispatchMany(burst);
    const burstIds = burst.map((e) => e.id);
    expect((await owner.query('select count(*)::int as n from webhook_deliveries where endpoint_id = $1 and event_id = any($2::uuid[])', [endpoint.id, burstIds])).rows[0].n).toBe(0);
    // An event recorded after it was created reaches it, and is all it ever gets.
    const workOrderId = await dispatchWorkOrder();
    const [got] = await r.waitFor(1);
    const envelope = JSON.parse(got!.body) as { id: string; created_at: string; data: { work_order_id: string } };
    expect(envelope.data.work_order_id).toBe(workOrderId);
    expect(Date.parse(envelope.created_at)).toBeGreaterThanOrEqual(Date.parse(endpoint.created_at));
    await settled(endpoint.id, envelope.id);
    expect((await deliveryOf(endpoint.id)).map((d) => d.event_id)).toEqual([envelope.id]);
    expect(r.received).toHaveLength(1);
  });
});

describe('D6: disable after 72 hours of failures, re-enable replays what was missed', () => {
  it('disables an endpoint failing for 72 hours, keeps its events as missed, and delivers them on re-enable', async () => {
    const r = (await receiver()).script({ status: 500 });
    const endpoint = await subscribe(r.url);
    await owner.query(`update webhook_endpoints set failing_since = now() - interval '73 hours' where id = $1`, [endpoint.id]);
    await dispatchWorkOrder();
    const [first] = await r.waitFor(1);
    const firstEvent = first!.headers['x-service-delivery'] as string;
    await settled(endpoint.id, firstEvent);
    const list = WebhookEndpointList.parse(await (await api.request('/api/v1/webhook-endpoints', { token: admin })).json());
    expect(list.data.find((e) => e.id === endpoint.id)!.status).toBe('disabled');

    await dispatchWorkOrder(); // while disabled: not sent, kept as missed
    // A missed row is written instead of a send, in the relay's transaction: once it is there,
    // nothing of that event goes out until the endpoint is enabled again.
    const whileDisabled = await waitUntil('the second delivery, missed', async () => {
      const rows = await deliveryOf(endpoint.id);
      return rows.length === 2 && rows;
    });
    expect(r.received).toHaveLength(1);
    expect(whileDisabled.map((d) => d.status)).toEqual(['missed', 'missed']);

    const enabled = await api.request(`/api/v1/webhook-endpoints/${endpoint.id}`, { method: 'PATCH', token: admin, json: { status: 'enabled' } });
    const enabledBody = await enabled.json();
    expect({ status: enabled.status, body: enabledBody }).toMatchObject({ status: 200 });
    expect(WebhookEndpoint.parse(enabledBody).status).toBe('enabled');
    const got = await r.waitFor(3);
    const replayedEvents = new Set(got.slice(1).map((g) => g.headers['x-service-delivery']));
    expect(replayedEvents.has(firstEvent)).toBe(true);
    expect(replayedEvents.size).toBe(2);
  });
});

describe('D6: the subscription API', () => {
  it('rotates the secret with a 24-hour overlap: deliveries carry both signatures', async () => {
    const r = await receiver();
    const endpoint = await subscribe(r.url);
    const rotated = await api.request(`/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: 'POST', token: admin });
    const { secret } = WebhookEndpointWithSecret.parse(await rotated.json());
    expect(secret).not.toBe(endpoint.secret);
    await dispatchWorkOrder();
    const [got] = await r.waitFor(1);
    const header = got!.headers['x-service-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const s of [secret, endpoint.secret]) expect(Stripe.webhooks.constructEvent(got!.body, header, s)).toBeTruthy();
    const afterOverlap = await owner.query(`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = $1 returning id`, [endpoint.id]);
    expect(afterOverlap.rowCount).toBe(1);
    await dispatchWorkOrder();
    const second = (await r.waitFor(2))[1]!;
    expect((second.headers['x-service-signature'] as string).match(/v1=/g)).toHaveLength(1);
  });

  it('shows the secret only when it is made, validates input, and is ADMIN only', async () => {
    const r = await receiver();
    const endpoint = await subscribe(r.url, ['work_order.completed', 'quote.approved']);
    const list = WebhookEndpointList.parse(await (await api.request('/api/v1/webhook-endpoints', { token: admin })).json());
    expect(JSON.stringify(list)).not.toContain(endpoint.secret);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    const stored = (await owner.query('select secret_ciphertext from webhook_endpoints where id = $1', [endpoint.id])).rows[0].secret_ciphertext as string;
    expect(stored).not.toContain(endpoint.secret.slice(6));
    for (const [body, field] of [
      [{ url: r.url, events: ['order.shipped'] }, 'events.0'],
      [{ url: r.url, events: ['*', 'quote.approved'] }, 'events'],
      [{ url: r.url, events: [] }, 'events'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: r.url, events: ['*'], secret: 'mine' }, 'secret'],
    ] as const) {
      const res = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: body });
      expect({ field, status: res.status }).toEqual({ field, status: 422 });
    }
    for (const who of ['sales', 'tech'] as const) {
      expect((await api.request('/api/v1/webhook-endpoints', { token: await api.tokenFor(tenant.users[who]!) })).status).toBe(403);
    }
    const patched = await api.request(`/api/v1/webhook-endpoints/${endpoint.id}`, { method: 'PATCH', token: admin, json: { events: ['*'], description: null } });
    expect(WebhookEndpoint.parse(await patched.json())).toMatchObject({ events: ['*'], description: null });
    expect((await api.request(`/api/v1/webhook-endpoints/${endpoint.id}`, { method: 'DELETE', token: admin })).status).toBe(204);
    expect((await api.request(`/api/v1/webhook-endpoints/${endpoint.id}`, { method: 'DELETE', token: admin })).status).toBe(404);
    expect((await api.request(`/api/v1/webhook-endpoints/${randomUUID()}/deliveries`, { token: admin })).status).toBe(404);
  });
});

describe('private destinations (D6)', () => {
  it('refuses private, loopback, link-local and unique-local URLs at registration, and a name that rebinds at delivery', async () => {
    const strictTemporal = await startTemporalHarness();
    // Delivery-time DNS answers loopback: the rebinding case.
    await strictTemporal.startWorker({ webhooks: { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, lookup: async () => [{ address: '127.0.0.1', family: 4 }] } });
    const strict = await startApi({
      events: strictTemporal.dispatcher,
      // Registration-time DNS answers a public address; nothing ever connects to it (delivery resolves to loopback and is refused first).
      resolver: async (host: string) => {
        const answers: Record<string, { address: string; family: number }> = {
          'loopback.example.test': { address: '127.0.0.1', family: 4 },
          'private.example.test': { address: '10.0.0.1', family: 4 },
          'metadata.example.test': { address: '169.254.169.254', family: 4 },
          'six.example.test': { address: '::1', family: 6 },
        };
        return [answers[host] ?? { address: '93.184.216.34', family: 4 }];
      },
      env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false' },
    });
    try {
      const token = await strict.tokenFor(tenant.users.admin!);
      for (const url of [
        'https://127.0.0.1/hook', 'https://10.0.0.1/hook', 'https://169.254.169.254/latest', 'https://[::1]/hook', 'https://[fd00::1]/hook',
        'https://loopback.example.test/hook', 'https://private.example.test/hook', 'https://metadata.example.test/latest', 'https://six.example.test/hook',
        'http://hooks.example.test/hook',
      ]) {
        const res = await strict.request('/api/v1/webhook-endpoints', { method: 'POST', token, json: { url, events: ['*'] } });
        expect({ url, status: res.status }).toEqual({ url, status: 400 });
      }
      const r = await receiver();
      const port = new URL(r.url).port;
      const endpoint = await subscribe(`https://hooks.example.test:${port}/hook`, ['*'], token, strict);
      const workOrderId = await dispatchWorkOrder(tenant, strict);
      const event = (await owner.query(`select id from outbox_events where envelope->'data'->>'work_order_id' = $1`, [workOrderId])).rows[0].id as string;
      // Endpoints of this tenant that the default worker serves also get the event; this one is refused.
      await deliverySettled(owner, { endpointId: endpoint.id, eventId: event });
      const attempts = (await owner.query('select outcome, error from webhook_delivery_attempts where endpoint_id = $1', [endpoint.id])).rows;
      expect(attempts).toHaveLength(1);
      expect(attempts[0].outcome).toBe('permanent_failure');
      expect(attempts[0].error).toMatch(/127\.0\.0\.1/);
      expect(r.received).toHaveLength(0);
    } finally {
      await strict.close();
      await strictTemporal.close();
    }
  });
});

// A tenant registers a bounded number of endpoints (docs/webhooks.md).
describe('webhook endpoints per workspace', () => {
  it(`at most ${WEBHOOK_ENDPOINTS_PER_TENANT}: the next is a 422, even when raced; deleting one makes room; other workspaces are unaffected`, async () => {
    const t = await createTenant(owner, { admin: 'ADMIN' });
    const token = await api.tokenFor(t.users.admin!);
    const create = () => api.request('/api/v1/webhook-endpoints', { method: 'POST', token, json: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
    // Raced: twenty at once, of which exactly the limit may succeed.
    const answers = await Promise.all(Array.from({ length: WEBHOOK_ENDPOINTS_PER_TENANT + 4 }, create));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(WEBHOOK_ENDPOINTS_PER_TENANT);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual([422, 422, 422, 422]);
    const body = (await refused[0]!.json()) as { error: { code: string; message: string; details: { fields: Record<string, string> } } };
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details.fields.url).toMatch(new RegExp(`at most ${WEBHOOK_ENDPOINTS_PER_TENANT} webhook endpoints`));
    expect((await owner.query('select count(*)::int as n from webhook_endpoints where organization_id = $1', [t.id])).rows[0].n).toBe(WEBHOOK_ENDPOINTS_PER_TENANT);

    const list = WebhookEndpointList.parse(await (await api.request('/api/v1/webhook-endpoints', { token })).json());
    expect((await api.request(`/api/v1/webhook-endpoints/${list.data[0]!.id}`, { method: 'DELETE', token })).status).toBe(204);
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(422);
    // Another workspace has its own allowance.
    const other = await createTenant(owner, { admin: 'ADMIN' });
    expect((await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: await api.tokenFor(other.users.admin!), json: { url: 'http://127.0.0.1:9/other', events: ['*'] } })).status).toBe(201);
  });
});

describe('every event these tests recorded has the published shape', () => {
  it('parses with its data schema, and as each format sends it with the envelope the OpenAPI document publishes', async () => {
    const checked = await checkRecordedEvents(owner, [tenant.id]);
    expect(checked.length).toBeGreaterThan(0);
    expect(checked.filter((c) => c.problems.length > 0)).toEqual([]);
  });
});
