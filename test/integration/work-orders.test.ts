import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { WORK_ORDER_STATUSES, decideTransition, type WorkOrderStatus } from '../../domain/work-orders/status-table';
import { WorkOrderCreated, WorkOrderList, WorkOrderStatusResult } from '../../api/work-orders/schemas';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', tech2: 'TECHNICIAN', retired: 'TECHNICIAN' });
  await owner.query('update users set active = false where id = $1', [tenant.users.retired!.id]);
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  for (const [name, user] of Object.entries(tenant.users)) tokens[name] = await api.tokenFor(user);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

const create = (body: Record<string, unknown>, who = 'admin') => api.request('/api/v1/work-orders', { method: 'POST', token: tokens[who], json: body });
const patch = (id: string, body: Record<string, unknown>, who = 'admin') => api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: tokens[who], json: body });
async function newWorkOrder(body: Record<string, unknown> = {}): Promise<string> {
  const res = await create({ assignedTechnicianId: tenant.users.tech!.id, ...body });
  expect(res.status).toBe(201);
  return WorkOrderCreated.parse(await res.json()).id;
}
const eventsOf = async (workOrderId: string) =>
  (await owner.query(`select event, envelope from outbox_events where envelope->'data'->>'work_order_id' = $1 order by sequence`, [workOrderId])).rows as {
    event: string;
    envelope: { id: string; event: string; organization_id: string; created_at: string; data: Record<string, unknown> };
  }[];
const historyOf = async (workOrderId: string) =>
  (await owner.query(`select from_status, to_status, changed_by_user_id, notes from work_order_history where work_order_id = $1 order by sequence`, [workOrderId])).rows;

describe('PATCH /api/v1/work-orders/{id}/status: every pair from every role', () => {
  const roles = ['admin', 'tech', 'tech2', 'sales'] as const;
  const cases = WORK_ORDER_STATUSES.flatMap((from) => WORK_ORDER_STATUSES.flatMap((to) => roles.map((who) => [from, to, who] as const)));
  it('covers 16 pairs x 4 roles', () => expect(cases).toHaveLength(64));

  it.each(cases)('%s -> %s as %s', async (from, to, who) => {
    const id = await newWorkOrder();
    await owner.query('update work_orders set status = $1 where id = $2', [from, id]);
    const before = (await eventsOf(id)).length;
    const res = await patch(id, { status: to, notes: `from ${from} to ${to}` }, who);
    const events = await eventsOf(id);

    // D4: SALES may not; a technician only on the work order assigned to them.
    if (who === 'sales' || who === 'tech2') {
      expect(res.status).toBe(403);
      expect(events).toHaveLength(before);
      return;
    }
    const decision = decideTransition(from, to);
    if (decision.kind === 'refused') {
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('conflict');
      expect(events).toHaveLength(before);
      return;
    }
    expect(res.status).toBe(200);
    const body = WorkOrderStatusResult.parse(await res.json());
    expect(body).toEqual({ id, status: to, unchanged: decision.kind === 'unchanged' });
    if (decision.kind === 'unchanged') {
      expect(events).toHaveLength(before);
      return;
    }
    expect(events).toHaveLength(before + 1);
    const envelope = events[events.length - 1]!.envelope;
    expect(envelope.event).toBe(decision.event);
    expect(envelope.organization_id).toBe(tenant.id);
    expect(envelope.data).toEqual({
      work_order_id: id,
      status: to,
      quote_id: null,
      assigned_technician_id: tenant.users.tech!.id,
      changed_by_user_id: tenant.users[who]!.id,
      changed_at: envelope.created_at,
    });
    const history = await historyOf(id);
    expect(history[history.length - 1]).toEqual({ from_status: from, to_status: to, changed_by_user_id: tenant.users[who]!.id, notes: `from ${from} to ${to}` });
  });
});

describe('PATCH details', () => {
  it('sets the completion time itself and refuses a completedAt from the client (422)', async () => {
    const id = await newWorkOrder();
    expect((await patch(id, { status: 'DISPATCHED' })).status).toBe(200);
    const refused = await patch(id, { status: 'COMPLETED', completedAt: '2020-01-01T00:00:00Z' }, 'tech');
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { details: { fields: object } } }).error.details.fields).toHaveProperty('completedAt');
    const started = Date.now();
    expect((await patch(id, { status: 'COMPLETED' }, 'tech')).status).toBe(200);
    const list = WorkOrderList.parse(await (await api.request('/api/v1/work-orders?status=COMPLETED&limit=100', { token: tokens.tech })).json());
    const done = list.data.find((w) => w.id === id)!;
    expect(Math.abs(Date.parse(done.completed_at!) - started)).toBeLessThan(10_000);
    expect(done.dispatched_at).not.toBeNull();
  });

  it('keeps notes of a repeated status in the history without a transition or an event', async () => {
    const id = await newWorkOrder();
    const res = await patch(id, { status: 'PENDING', notes: 'Customer asked to call before arriving' });
    expect(WorkOrderStatusResult.parse(await res.json()).unchanged).toBe(true);
    expect(await eventsOf(id)).toEqual([]);
    expect(await historyOf(id)).toEqual([
      { from_status: null, to_status: 'PENDING', changed_by_user_id: tenant.users.admin!.id, notes: null },
      { from_status: 'PENDING', to_status: 'PENDING', changed_by_user_id: tenant.users.admin!.id, notes: 'Customer asked to call before arriving' },
    ]);
  });

  it('404 for an unknown or foreign work order, 422 for a bad status or id', async () => {
    const other = await createTenant(owner, { admin: 'ADMIN' });
    const id = await newWorkOrder();
    expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: await api.tokenFor(other.users.admin!), json: { status: 'DISPATCHED' } })).status).toBe(404);
    expect((await patch('6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', { status: 'DISPATCHED' })).status).toBe(404);
    expect((await patch(id, { status: 'DONE' })).status).toBe(422);
    expect((await patch(id, { status: 'DISPATCHED', notes: 'n'.repeat(2001) })).status).toBe(422);
    expect((await patch('nope', { status: 'DISPATCHED' })).status).toBe(422);
  });

  it('concurrent PATCHes of one work order equal some serial order, and the history shows exactly what took effect', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await newWorkOrder();
      const targets: WorkOrderStatus[] = ['DISPATCHED', 'CANCELLED', 'PENDING', 'COMPLETED', 'DISPATCHED', 'PENDING', 'COMPLETED', 'CANCELLED'];
      const responses = await Promise.all(targets.map((status, i) => patch(id, { status }, i % 2 ? 'tech' : 'admin')));
      const results = await Promise.all(responses.map(async (r) => ({ status: r.status, body: r.status === 200 ? WorkOrderStatusResult.parse(await r.json()) : null })));
      const moved = results.filter((r) => r.body && !r.body.unchanged);
      const transitions = (await historyOf(id)).filter((h) => h.from_status !== null && h.from_status !== h.to_status);
      // Every transition in the history is allowed and follows on from the previous one.
      let current: WorkOrderStatus = 'PENDING';
      for (const t of transitions) {
        expect(t.from_status).toBe(current);
        expect(decideTransition(current, t.to_status).kind).toBe('move');
        current = t.to_status;
      }
      expect(transitions).toHaveLength(moved.length);
      expect((await eventsOf(id)).map((e) => e.event)).toEqual(transitions.map((t) => decideTransition(t.from_status, t.to_status)).map((d) => (d.kind === 'move' ? d.event : '')));
      const [row] = (await owner.query('select status from work_orders where id = $1', [id])).rows;
      expect(row.status).toBe(current);
      for (const r of results) expect([200, 409]).toContain(r.status);
    }
  });
});

describe('POST /api/v1/work-orders', () => {
  it('creates a PENDING work order (201) with every field optional', async () => {
    const quote = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: tokens.sales, json: twoWindows({ persist: true }) });
    const quoteId = ((await quote.json()) as { quote_id: string }).quote_id;
    const res = await create({ quoteId, assignedTechnicianId: tenant.users.tech!.id, scheduledDate: '2026-12-03', siteAddress: '12 Elm St, Halifax NS', notes: 'Two motorised shades' });
    expect(res.status).toBe(201);
    expect(WorkOrderCreated.parse(await res.json())).toMatchObject({ status: 'PENDING', scheduled_date: '2026-12-03T00:00:00.000Z', assigned_technician_id: tenant.users.tech!.id });
    const bare = await create({});
    expect(WorkOrderCreated.parse(await bare.json())).toMatchObject({ status: 'PENDING', scheduled_date: null, assigned_technician_id: null });
  });

  it('names the wrong reference with 404, refuses a non-technician or deactivated assignee with 400', async () => {
    const other = await createTenant(owner, { tech: 'TECHNICIAN' });
    const missingQuote = await create({ quoteId: '6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10' });
    expect(missingQuote.status).toBe(404);
    expect(((await missingQuote.json()) as { error: { message: string } }).error.message).toContain('quoteId');
    const foreignTech = await create({ assignedTechnicianId: other.users.tech!.id });
    expect(foreignTech.status).toBe(404);
    expect(((await foreignTech.json()) as { error: { message: string } }).error.message).toContain('assignedTechnicianId');
    expect((await create({ assignedTechnicianId: tenant.users.sales!.id })).status).toBe(400);
    expect((await create({ assignedTechnicianId: tenant.users.retired!.id })).status).toBe(400);
  });

  it('is ADMIN only, and validates every field', async () => {
    expect((await create({}, 'sales')).status).toBe(403);
    expect((await create({}, 'tech')).status).toBe(403);
    for (const [body, field] of [
      [{ siteAddress: 'a'.repeat(401) }, 'siteAddress'],
      [{ notes: 'n'.repeat(2001) }, 'notes'],
      [{ scheduledDate: '2026-13-01' }, 'scheduledDate'],
      [{ scheduledDate: '2026-12-03T10:00:00Z' }, 'scheduledDate'],
      [{ quoteId: 'Q-1' }, 'quoteId'],
      [{ technicianId: tenant.users.tech!.id }, 'technicianId'],
    ] as const) {
      const res = await create(body);
      expect({ field, status: res.status }).toEqual({ field, status: 422 });
      expect(Object.keys(((await res.json()) as { error: { details: { fields: object } } }).error.details.fields)).toContain(field);
    }
  });
});

describe('GET /api/v1/work-orders', () => {
  it('lists soonest first, unscheduled last, with a stable tie-break, and no money anywhere', async () => {
    const t = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    const adminToken = await api.tokenFor(t.users.admin!);
    const made: string[] = [];
    for (const scheduledDate of ['2026-12-05', undefined, '2026-12-01', '2026-12-05', undefined, '2026-11-30']) {
      const res = await api.request('/api/v1/work-orders', { method: 'POST', token: adminToken, json: scheduledDate ? { scheduledDate } : {} });
      made.push(WorkOrderCreated.parse(await res.json()).id);
    }
    const list = WorkOrderList.parse(await (await api.request('/api/v1/work-orders', { token: adminToken })).json());
    expect(list.data.map((w) => w.scheduled_date?.slice(0, 10) ?? null)).toEqual(['2026-11-30', '2026-12-01', '2026-12-05', '2026-12-05', null, null]);
    expect([list.data[2]!.id, list.data[3]!.id]).toEqual([made[0], made[3]]);
    expect([list.data[4]!.id, list.data[5]!.id]).toEqual([made[1], made[4]]);
    expect(JSON.stringify(list)).not.toMatch(/cents|margin|total|cost/i);
    const day = WorkOrderList.parse(await (await api.request('/api/v1/work-orders?scheduledOn=2026-12-05', { token: adminToken })).json());
    expect(day.data.map((w) => w.id)).toEqual([made[0], made[3]]);
    const two = WorkOrderList.parse(await (await api.request('/api/v1/work-orders?limit=2', { token: adminToken })).json());
    expect(two.data).toHaveLength(2);
  });

  it.each([['?limit=0', 'limit'], ['?limit=101', 'limit'], ['?status=OPEN', 'status'], ['?scheduledOn=05-12-2026', 'scheduledOn'], ['?assignee=me', 'assignee']])(
    '%s is a 422 naming %s',
    async (query, field) => {
      const res = await api.request(`/api/v1/work-orders${query}`, { token: tokens.admin });
      expect(res.status).toBe(422);
      expect(Object.keys(((await res.json()) as { error: { details: { fields: object } } }).error.details.fields)).toContain(field);
    },
  );

  it("a technician's list never holds another technician's work order, in either tenant", async () => {
    const tenants = [tenant, await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN', tech2: 'TECHNICIAN' })];
    for (const t of tenants) {
      const adminToken = await api.tokenFor(t.users.admin!);
      for (const who of ['tech', 'tech2', 'tech', 'tech2']) {
        await api.request('/api/v1/work-orders', { method: 'POST', token: adminToken, json: { assignedTechnicianId: t.users[who]!.id, scheduledDate: '2026-12-10' } });
      }
      await api.request('/api/v1/work-orders', { method: 'POST', token: adminToken, json: {} });
    }
    for (const t of tenants) {
      for (const who of ['tech', 'tech2']) {
        const list = WorkOrderList.parse(await (await api.request('/api/v1/work-orders?limit=100', { token: await api.tokenFor(t.users[who]!) })).json());
        expect(list.data.length).toBeGreaterThanOrEqual(2);
        for (const w of list.data) expect(w.assigned_technician_id).toBe(t.users[who]!.id);
      }
      const all = WorkOrderList.parse(await (await api.request('/api/v1/work-orders?limit=100', { token: await api.tokenFor(t.users.admin!) })).json());
      const ids = new Set((await owner.query('select id from work_orders where organization_id = $1', [t.id])).rows.map((r) => r.id));
      for (const w of all.data) expect(ids.has(w.id)).toBe(true);
    }
  });
});
