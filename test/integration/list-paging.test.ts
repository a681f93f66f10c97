import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { nextLink } from '../support/link-header';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { WorkOrderCreated, WorkOrderList } from '../../api/work-orders/schemas';
import { SyncRecordList } from '../../api/integrations/schemas';
import { DeliveryAttemptList, WebhookEndpointWithSecret } from '../../api/webhooks/schemas';
import { QuotePage } from '../../api/quotes/schemas';

/**
 * Every list that can exceed a page (work orders, the sync log, the delivery log; quotes have
 * their own next_cursor too) announces the next page in `Link: <...>; rel="next"` (RFC 8288),
 * because the contract's list bodies allow no extra keys. Followed until it is absent, a list
 * yields each row once, in order.
 */
let owner: pg.Pool;
let api: ApiHarness;
let receiver: WebhookReceiver;
let tenant: Tenant;
let other: Tenant;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  owner = ownerPool();
  receiver = await new WebhookReceiver().start();
  api = await startApi({ env: { CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'), OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', tech2: 'TECHNICIAN' });
  other = await createTenant(owner, { admin: 'ADMIN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  await giveRateCard(other.id, SANDBOX_RATE_CARD);
  for (const [name, user] of Object.entries(tenant.users)) tokens[name] = await api.tokenFor(user);
  tokens.otherAdmin = await api.tokenFor(other.users.admin!);
});
afterAll(async () => {
  await api.close();
  await receiver.close();
  await owner.end();
});

/** Follows rel="next" from `path` until the last page; answers the pages' bodies and Link URLs. */
async function follow(path: string, token: string): Promise<{ bodies: unknown[]; links: string[] }> {
  const bodies: unknown[] = [];
  const links: string[] = [];
  let url: string | null = api.url + path;
  while (url) {
    expect(links.length).toBeLessThan(50);
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': api.clientAddress } });
    expect({ url, status: res.status }).toEqual({ url, status: 200 });
    bodies.push(await res.json());
    url = nextLink(res);
    if (url) links.push(url);
  }
  return { bodies, links };
}

async function workOrder(body: Record<string, unknown>, token = tokens.admin!): Promise<string> {
  const res = await api.request('/api/v1/work-orders', { method: 'POST', token, json: body });
  expect(res.status).toBe(201);
  return WorkOrderCreated.parse(await res.json()).id;
}

describe('GET /api/v1/work-orders, paged', () => {
  let ids: string[];

  beforeAll(async () => {
    // Days that repeat, and unscheduled ones (listed last), so the keyset's ties and nulls matter.
    const days = ['2026-12-05', '2026-12-01', null, '2026-12-03', '2026-12-01', null, '2026-12-05', '2026-12-02', '2026-12-01', null, '2026-12-04'];
    for (const [i, day] of days.entries()) {
      const assignee = i % 3 === 0 ? tenant.users.tech2!.id : tenant.users.tech!.id;
      await workOrder({ assignedTechnicianId: assignee, ...(day ? { scheduledDate: day } : {}), siteAddress: `${i + 1} Paging Rd` });
    }
    await workOrder({ scheduledDate: '2026-12-01' }, tokens.otherAdmin);
    const { rows } = await owner.query<{ id: string }>(
      'select id from work_orders where organization_id = $1 order by scheduled_date asc nulls last, created_at asc, id asc',
      [tenant.id],
    );
    ids = rows.map((r) => r.id);
    expect(ids).toHaveLength(11);
  });

  it('follows Link to the end: every work order once, soonest first, unscheduled last; the bodies keep exactly their keys', async () => {
    const { bodies, links } = await follow('/api/v1/work-orders?limit=4', tokens.admin!);
    expect(bodies).toHaveLength(3);
    expect(links).toHaveLength(2);
    const pages = bodies.map((b) => WorkOrderList.parse(b));
    expect(pages.map((p) => p.data.length)).toEqual([4, 4, 3]);
    expect(pages.flatMap((p) => p.data.map((w) => w.id))).toEqual(ids);
    for (const body of bodies) expect(Object.keys(body as object)).toEqual(['data']);
    for (const link of links) {
      expect(new URL(link).origin).toBe(api.url);
      expect(new URL(link).searchParams.get('limit')).toBe('4');
    }
  });

  it('keeps the filters in the Link and pages what they select', async () => {
    const { bodies, links } = await follow('/api/v1/work-orders?scheduledOn=2026-12-01&limit=2', tokens.sales!);
    expect(links.every((l) => new URL(l).searchParams.get('scheduledOn') === '2026-12-01')).toBe(true);
    const seen = bodies.flatMap((b) => WorkOrderList.parse(b).data);
    expect(seen).toHaveLength(3);
    expect(seen.every((w) => w.scheduled_date === '2026-12-01T00:00:00.000Z')).toBe(true);
  });

  it('a TECHNICIAN pages through their own work orders only (D4)', async () => {
    const { bodies } = await follow('/api/v1/work-orders?limit=2', tokens.tech!);
    const seen = bodies.flatMap((b) => WorkOrderList.parse(b).data);
    expect(seen.length).toBe(7);
    expect(seen.every((w) => w.assigned_technician_id === tenant.users.tech!.id)).toBe(true);
    expect(seen.map((w) => w.id)).toEqual(ids.filter((id) => seen.some((w) => w.id === id)));
  });

  it('a work order created between two pages neither repeats nor hides the rest', async () => {
    const first = await api.request('/api/v1/work-orders?limit=4', { token: tokens.admin });
    const next = nextLink(first)!;
    const firstIds = WorkOrderList.parse(await first.json()).data.map((w) => w.id);
    // Sorts before everything already seen.
    const early = await workOrder({ scheduledDate: '2026-11-30' });
    try {
      const rest = await follow(new URL(next).pathname + new URL(next).search, tokens.admin!);
      const restIds = rest.bodies.flatMap((b) => WorkOrderList.parse(b).data.map((w) => w.id));
      expect([...firstIds, ...restIds]).toEqual(ids);
    } finally {
      // Out of the way of the tests after this one, which count this tenant's work orders.
      await owner.query('delete from work_order_history where work_order_id = $1', [early]);
      await owner.query('delete from job_history where work_order_id = $1', [early]);
      await owner.query('delete from work_orders where id = $1', [early]);
    }
  });

  it('the last page has no Link; neither does a short list', async () => {
    const res = await api.request('/api/v1/work-orders?limit=100', { token: tokens.admin });
    expect(res.headers.get('link')).toBeNull();
    expect(WorkOrderList.parse(await res.json()).data).toHaveLength(11);
  });

  it('links on PUBLIC_BASE_URL when it is set (where clients reach the API behind a proxy)', async () => {
    const deployed = await startApi({ env: { PUBLIC_BASE_URL: 'https://shades.example.test' } });
    try {
      const res = await deployed.request('/api/v1/work-orders?limit=4', { token: await deployed.tokenFor(tenant.users.admin!) });
      expect(nextLink(res)).toMatch(/^https:\/\/shades\.example\.test\/api\/v1\/work-orders\?limit=4&cursor=[A-Za-z0-9_-]+$/);
    } finally {
      await deployed.close();
    }
  });

  it("another tenant following this tenant's Link sees only its own work orders", async () => {
    const res = await api.request('/api/v1/work-orders?limit=4', { token: tokens.admin });
    const link = new URL(nextLink(res)!);
    const foreign = await api.request(link.pathname + link.search, { token: tokens.otherAdmin });
    expect(foreign.status).toBe(200);
    const data = WorkOrderList.parse(await foreign.json()).data;
    expect(data.every((w) => !ids.includes(w.id))).toBe(true);
  });
});

describe('GET /api/v1/integrations/syncs, paged', () => {
  it('follows Link to the end: every record once, most recent first, per provider when asked', async () => {
    for (let i = 0; i < 4; i += 1) {
      const calc = await api.request('/api/v1/quotes/calculate', {
        method: 'POST',
        token: tokens.sales,
        json: { laborTierCode: 'STANDARD', persist: true, lineItems: [{ widthInches: 30 + i, dropInches: 40, quantity: 1, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD' }] },
      });
      const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
      for (const provider of ['PAYMENTS', 'ACCOUNTING', 'CRM']) {
        await owner.query(
          `insert into sync_records (organization_id, provider, entity_type, quote_id, local_id, status, last_error) values ($1, $2, 'invoice', $3::uuid, $3::text, 'SKIPPED', 'not connected')`,
          [tenant.id, provider, quoteId],
        );
      }
    }
    const { rows } = await owner.query<{ id: string }>('select id from sync_records where organization_id = $1 order by updated_at desc, id desc', [tenant.id]);
    const { bodies, links } = await follow('/api/v1/integrations/syncs?limit=5', tokens.admin!);
    expect(links).toHaveLength(2);
    expect(bodies.flatMap((b) => SyncRecordList.parse(b).data.map((r) => r.id))).toEqual(rows.map((r) => r.id));
    for (const body of bodies) expect(Object.keys(body as object)).toEqual(['data']);

    const crm = await follow('/api/v1/integrations/syncs?provider=crm&limit=3', tokens.admin!);
    expect(crm.links.every((l) => new URL(l).searchParams.get('provider') === 'crm')).toBe(true);
    const crmRecords = crm.bodies.flatMap((b) => SyncRecordList.parse(b).data);
    expect(crmRecords).toHaveLength(4);
    expect(crmRecords.every((r) => r.provider === 'CRM')).toBe(true);

    // Only ADMIN reads the sync log, on every page.
    const sales = await api.request(new URL(links[0]!).pathname + new URL(links[0]!).search, { token: tokens.sales });
    expect(sales.status).toBe(403);
  });
});

describe('GET /api/v1/webhook-endpoints/{id}/deliveries, paged', () => {
  it('follows Link to the end: every attempt once, newest first', async () => {
    const created = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: tokens.admin, json: { url: receiver.url, events: ['work_order.completed'] } });
    expect(created.status).toBe(201);
    const endpoint = WebhookEndpointWithSecret.parse(await created.json());
    // The attempt log as deliveries write it (no event is emitted here, so nothing is sent).
    for (let d = 0; d < 3; d += 1) {
      const eventId = randomUUID();
      const { rows } = await owner.query<{ id: string }>(
        `insert into webhook_deliveries (organization_id, endpoint_id, event_id, event, status, attempts) values ($1, $2, $3, 'work_order.completed', 'failed', 3) returning id`,
        [tenant.id, endpoint.id, eventId],
      );
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        await owner.query(
          `insert into webhook_delivery_attempts (organization_id, delivery_id, endpoint_id, event_id, event, attempt, outcome, response_status, duration_ms)
           values ($1, $2, $3, $4, 'work_order.completed', $5, 'retryable_failure', 503, 12)`,
          [tenant.id, rows[0]!.id, endpoint.id, eventId, attempt],
        );
      }
    }
    const { rows } = await owner.query<{ id: string }>('select id from webhook_delivery_attempts where endpoint_id = $1 order by attempted_at desc, id desc', [endpoint.id]);
    expect(rows).toHaveLength(9);
    const { bodies, links } = await follow(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=4`, tokens.admin!);
    expect(links).toHaveLength(2);
    expect(bodies.flatMap((b) => DeliveryAttemptList.parse(b).data.map((a) => a.id))).toEqual(rows.map((r) => r.id));

    // Another tenant cannot read it, whatever the cursor says.
    const link = new URL(links[0]!);
    expect((await api.request(link.pathname + link.search, { token: tokens.otherAdmin })).status).toBe(404);
  });
});

describe('GET /api/v1/quotes answers the same Link beside its next_cursor', () => {
  it('the Link carries next_cursor, and is absent when next_cursor is null', async () => {
    for (let i = 0; i < 3; i += 1) {
      const line = { widthInches: 50 + i, dropInches: 40, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-STD' };
      expect((await api.request('/api/v1/quotes/calculate', { method: 'POST', token: tokens.sales, json: { laborTierCode: 'STANDARD', persist: true, lineItems: [line] } })).status).toBe(200);
    }
    const res = await api.request('/api/v1/quotes?limit=2', { token: tokens.sales });
    const page = QuotePage.parse(await res.json());
    expect(page.next_cursor).not.toBeNull();
    expect(new URL(nextLink(res)!).searchParams.get('cursor')).toBe(page.next_cursor);
    const all = await api.request('/api/v1/quotes?limit=100', { token: tokens.sales });
    expect(QuotePage.parse(await all.json()).next_cursor).toBeNull();
    expect(all.headers.get('link')).toBeNull();
  });
});

describe('a cursor the list did not hand out', () => {
  it('is a 400 bad_request in the error envelope, on every paged list', async () => {
    const endpoint = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: tokens.admin, json: { url: receiver.url, events: ['*'] } });
    const endpointId = ((await endpoint.json()) as { id: string }).id;
    const workOrderCursor = new URL(nextLink(await api.request('/api/v1/work-orders?limit=1', { token: tokens.admin }))!).searchParams.get('cursor')!;
    const garbage = ['%%%', 'bm90IGpzb24', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('[null,"2026-01-01",1]').toString('base64url'), 'x'.repeat(600)];
    const lists = ['/api/v1/work-orders', '/api/v1/integrations/syncs', `/api/v1/webhook-endpoints/${endpointId}/deliveries`];
    for (const list of lists) {
      // A work-orders cursor is not a position in the other lists.
      const wrong = list === '/api/v1/work-orders' ? garbage : [...garbage, workOrderCursor];
      for (const cursor of wrong) {
        const res = await api.request(`${list}?cursor=${encodeURIComponent(cursor)}`, { token: tokens.admin, headers: { 'x-request-id': 'paging-check' } });
        expect({ list, cursor, status: res.status }).toEqual({ list, cursor, status: 400 });
        expect(await res.json()).toEqual({ error: { code: 'bad_request', message: expect.stringContaining('cursor'), details: null, request_id: 'paging-check' } });
      }
    }
  });
});
