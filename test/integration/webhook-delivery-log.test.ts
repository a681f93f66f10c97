import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import LinkHeader from 'http-link-header';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { deliverySettled } from '../support/delivery-settled';
import { DeliveryAttemptList, WebhookDeliveryList, WebhookEndpointWithSecret } from '../../api/webhooks/schemas';

/**
 * D13: what the deliveries page reads through the public API: the deliveries newest first with
 * their filters, and each attempt's request as sent and response as received (first 4 KiB).
 */
const KEY = randomBytes(32).toString('base64');
let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let tenant: Tenant;
let admin: string;
let receiver: WebhookReceiver;
let endpointId: string;

beforeAll(async () => {
  owner = ownerPool();
  temporal = await startTemporalHarness();
  await temporal.startWorker({ webhooks: { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true, timeoutMs: 1500 } });
  api = await startApi({ events: temporal.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  admin = await api.tokenFor(tenant.users.admin!);
  receiver = await new WebhookReceiver().start();
  const res = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['*'] } });
  endpointId = WebhookEndpointWithSecret.parse(await res.json()).id;
}, 120_000);
afterAll(async () => {
  await receiver.close();
  await api.close();
  await temporal.close();
  await owner.end();
});

/** work_order.dispatched then, if asked, work_order.cancelled: each delivery settled. */
async function workOrder(cancel: boolean): Promise<void> {
  const created = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { assignedTechnicianId: tenant.users.tech!.id } });
  const id = ((await created.json()) as { id: string }).id;
  // One at a time, each delivery settled before the next change: the receiver answers in order.
  const statuses = cancel ? ['DISPATCHED', 'CANCELLED'] : ['DISPATCHED'];
  for (const [index, status] of statuses.entries()) {
    expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: admin, json: { status } })).status).toBe(200);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { rows } = await owner.query<{ event_id: string; series: number }>(
        `select d.event_id, d.series from webhook_deliveries d join outbox_events o on o.id = d.event_id
          where d.endpoint_id = $1 and o.envelope->'data'->>'work_order_id' = $2 order by o.sequence`,
        [endpointId, id],
      );
      const row = rows[index];
      if (row) {
        await deliverySettled(owner, { endpointId, eventId: row.event_id, series: row.series });
        break;
      }
      if (Date.now() > deadline) throw new Error('no delivery was created');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
const get = async (path: string) => {
  const res = await api.request(path, { token: admin });
  return { res, body: (await res.json()) as unknown };
};

describe('GET /api/v1/webhook-deliveries (D13)', () => {
  it('lists deliveries newest first, by endpoint, status and event, paged with Link', async () => {
    // 1: delivered; 2: refused (400, failed); 3 and 4: delivered.
    await workOrder(false);
    receiver.script({ status: 400, body: 'nope' });
    await workOrder(true);
    const all = WebhookDeliveryList.parse((await get('/api/v1/webhook-deliveries?limit=100')).body).data;
    expect(all.map((d) => [d.event, d.status])).toEqual([
      ['work_order.cancelled', 'delivered'],
      ['work_order.dispatched', 'failed'],
      ['work_order.dispatched', 'delivered'],
    ]);
    expect(all.every((d) => d.endpoint_id === endpointId && d.series === 0)).toBe(true);
    const created = all.map((d) => d.created_at);
    expect([...created].sort().reverse()).toEqual(created);

    const failed = WebhookDeliveryList.parse((await get('/api/v1/webhook-deliveries?status=failed')).body).data;
    expect(failed.map((d) => [d.event, d.attempts, d.last_error])).toEqual([['work_order.dispatched', 1, 'HTTP 400']]);
    const cancelled = WebhookDeliveryList.parse((await get(`/api/v1/webhook-deliveries?event=work_order.cancelled&endpoint_id=${endpointId}`)).body).data;
    expect(cancelled.map((d) => d.id)).toEqual([all[0]!.id]);
    expect(WebhookDeliveryList.parse((await get('/api/v1/webhook-deliveries?endpoint_id=00000000-0000-4000-8000-000000000000')).body).data).toEqual([]);

    const first = await get('/api/v1/webhook-deliveries?limit=2');
    const next = LinkHeader.parse(first.res.headers.get('link')!).rel('next')[0]!.uri;
    const second = WebhookDeliveryList.parse(await (await api.request(new URL(next).pathname + new URL(next).search, { token: admin })).json()).data;
    expect([...WebhookDeliveryList.parse(first.body).data, ...second].map((d) => d.id)).toEqual(all.map((d) => d.id));

    // Another tenant sees none of them; other roles are refused.
    const other = await createTenant(owner, { admin: 'ADMIN' });
    const theirs = await api.request('/api/v1/webhook-deliveries', { token: await api.tokenFor(other.users.admin!) });
    expect(WebhookDeliveryList.parse(await theirs.json()).data).toEqual([]);
    expect((await api.request('/api/v1/webhook-deliveries', { token: await api.tokenFor(tenant.users.sales!) })).status).toBe(403);
  });

  it('refuses filters that are not values of the list with a 422 in the error envelope', async () => {
    for (const query of ['status=lost', 'endpoint_id=not-a-uuid', 'limit=0', 'limit=101', 'event=', 'colour=blue']) {
      const { res, body } = await get(`/api/v1/webhook-deliveries?${query}`);
      expect({ query, status: res.status, code: (body as { error: { code: string } }).error.code }).toEqual({ query, status: 422, code: 'validation_failed' });
    }
    const { res } = await get('/api/v1/webhook-deliveries?cursor=not-a-cursor');
    expect(res.status).toBe(400);
    const attempts = await get(`/api/v1/webhook-endpoints/${endpointId}/deliveries?delivery_id=42`);
    expect(attempts.res.status).toBe(422);
  });
});

describe("each attempt's request and response (D13)", () => {
  it('keeps the request as sent and the response as received, the body cut at 4 KiB; no response is null', async () => {
    const big = 'é'.repeat(3000); // 6000 bytes of UTF-8
    receiver.script({ status: 503, body: big, headers: { 'x-receiver': 'down', 'retry-after': '7' } }, { status: 200, body: '{"ok":true}', afterMs: 2500 });
    await workOrder(false);
    const [delivery] = WebhookDeliveryList.parse((await get('/api/v1/webhook-deliveries?limit=1')).body).data;
    const attempts = DeliveryAttemptList.parse((await get(`/api/v1/webhook-endpoints/${endpointId}/deliveries?delivery_id=${delivery!.id}`)).body).data;
    expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [3, 'delivered'],
      [2, 'retryable_failure'],
      [1, 'retryable_failure'],
    ]);
    const received = receiver.received.slice(-3);
    const [third, second, first] = attempts;

    // The request: headers and body exactly as the receiver got them.
    expect(first!.request!.body).toBe(received[0]!.body);
    for (const [name, value] of Object.entries(first!.request!.headers)) expect({ name, value }).toEqual({ name, value: received[0]!.headers[name.toLowerCase()] });
    expect(Object.keys(first!.request!.headers).map((h) => h.toLowerCase()).sort()).toEqual(
      ['content-length', 'content-type', 'host', 'user-agent', 'x-service-delivery', 'x-service-event', 'x-service-signature'],
    );
    // The response: status, headers, the first 4 KiB of the body, the duration.
    expect(first!.response).toMatchObject({ status: 503, headers: { 'x-receiver': 'down', 'retry-after': '7', 'content-type': 'application/json' } });
    expect(Buffer.byteLength(first!.response!.body_excerpt.replace(/\uFFFD$/, ''), 'utf8')).toBeLessThanOrEqual(4096);
    expect(first!.response!.body_excerpt.startsWith('é'.repeat(2000))).toBe(true);
    expect(first!.response!.duration_ms).toBe(first!.duration_ms);
    // A window that ran out: the request was sent, no response.
    expect(second!.response).toBeNull();
    expect(second!.error).toMatch(/timeout/);
    expect(second!.request!.body).toBe(received[1]!.body);
    expect(third!.response).toMatchObject({ status: 200, body_excerpt: '{"ok":true}' });
  });
});

describe('POST /api/v1/webhook-endpoints/{id}/recover (Svix-style recovery)', () => {
  const recover = (json: unknown, token = admin, id = endpointId) => api.request(`/api/v1/webhook-endpoints/${id}/recover`, { method: 'POST', token, json });
  /** The endpoint's latest event, with its first delivery settled. */
  const latestEvent = async () =>
    (await owner.query<{ event_id: string }>(`select d.event_id from webhook_deliveries d join outbox_events o on o.id = d.event_id where d.endpoint_id = $1 and d.series = 0 order by o.sequence desc limit 1`, [endpointId])).rows[0]!.event_id;

  it('re-sends every event the endpoint failed since then, once each, in the order they happened, with the same envelope ids and bytes', async () => {
    // Failed before `since`: not re-sent.
    receiver.script({ status: 400, body: 'nope' });
    await workOrder(false);
    const before = await latestEvent();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const since = new Date().toISOString();
    // Seven events: the fourth delivered, the six others refused (400: failed at once).
    const events: { id: string; failed: boolean }[] = [];
    for (let i = 0; i < 7; i++) {
      if (i !== 3) receiver.script({ status: 400, body: 'nope' });
      await workOrder(false);
      events.push({ id: await latestEvent(), failed: i !== 3 });
    }
    // The second is replayed by hand and delivered: not failed any more, so not re-sent.
    const [replayedDelivery] = (await owner.query<{ id: string }>(`select id from webhook_deliveries where endpoint_id = $1 and event_id = $2`, [endpointId, events[1]!.id])).rows;
    expect((await api.request(`/api/v1/webhook-deliveries/${replayedDelivery!.id}/replay`, { method: 'POST', token: admin })).status).toBe(202);
    expect(await deliverySettled(owner, { endpointId, eventId: events[1]!.id, series: 1 })).toMatchObject({ status: 'delivered' });

    const expected = events.filter((event, index) => event.failed && index !== 1).map((event) => event.id);
    expect(expected).toHaveLength(5);
    const firstBodies = new Map(receiver.received.map((r) => [r.headers['x-service-delivery'] as string, r.body]));
    const received = receiver.received.length;
    const res = await recover({ since });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ endpoint_id: endpointId, since, recovered: 5, status: 'pending' });
    for (const eventId of expected) expect(await deliverySettled(owner, { endpointId, eventId, series: 1 })).toMatchObject({ status: 'delivered', attempts: 1 });
    const resent = (await receiver.waitFor(received + 5)).slice(received);
    // In order, each once, with its envelope id and its very bytes; nothing else was sent.
    expect(resent.map((r) => r.headers['x-service-delivery'])).toEqual(expected);
    for (const r of resent) expect(r.body).toBe(firstBodies.get(r.headers['x-service-delivery'] as string));
    expect(resent.map((r) => r.headers['x-service-delivery'])).not.toContain(before);

    // Asking again re-sends nothing: every one of them has been delivered since.
    const again = await recover({ since });
    expect(await again.json()).toMatchObject({ recovered: 0 });
    const { rows: series } = await owner.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where endpoint_id = $1 and series > 1`, [endpointId]);
    expect(series[0]!.n).toBe(0);

    // Audited (D22): who, since when, how many.
    const audit = (await (await api.request(`/api/v1/audit-events?action=webhook_endpoint.recovered&entity_id=${endpointId}`, { token: admin })).json()) as { data: { changes: unknown; actor: { id: string } }[] };
    expect(audit.data.map((entry) => entry.changes)).toEqual([
      [{ field: 'since', before: null, after: since }, { field: 'recovered', before: null, after: 0 }],
      [{ field: 'since', before: null, after: since }, { field: 'recovered', before: null, after: 5 }],
    ]);
    expect(receiver.received.length).toBe(received + 5);
  }, 120_000);

  it('refuses a since in the future or not an instant (422), an unknown endpoint (404), a disabled one (409) and other roles (403)', async () => {
    for (const json of [{}, { since: 'yesterday' }, { since: new Date(Date.now() + 3_600_000).toISOString() }, { since: '2026-11-20T00:00:00Z', until: 'now' }]) {
      const res = await recover(json);
      expect({ json, status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code }).toEqual({ json, status: 422, code: 'validation_failed' });
    }
    const since = '2026-01-01T00:00:00.000Z';
    expect((await recover({ since }, admin, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await recover({ since }, await api.tokenFor(tenant.users.sales!))).status).toBe(403);
    const other = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: `${receiver.url}/off`, events: ['pricebook.published'] } });
    const otherId = WebhookEndpointWithSecret.parse(await other.json()).id;
    expect((await api.request(`/api/v1/webhook-endpoints/${otherId}`, { method: 'PATCH', token: admin, json: { status: 'disabled' } })).status).toBe(200);
    expect((await recover({ since }, admin, otherId)).status).toBe(409);
    expect((await api.request(`/api/v1/webhook-endpoints/${otherId}`, { method: 'DELETE', token: admin })).status).toBe(204);
  });
});
