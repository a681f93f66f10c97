import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { WorkOrderCreated, WorkOrderHistory } from '../../api/work-orders/schemas';
import { nextLink } from '../support/link-header';

let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
let other: Tenant;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', tech2: 'TECHNICIAN' });
  other = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
  for (const [name, user] of Object.entries(tenant.users)) tokens[name] = await api.tokenFor(user);
  tokens.otherAdmin = await api.tokenFor(other.users.admin!);
  tokens.otherTech = await api.tokenFor(other.users.tech!);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

async function newWorkOrder(body: Record<string, unknown> = { assignedTechnicianId: tenant.users.tech!.id }, token = tokens.admin): Promise<string> {
  const res = await api.request('/api/v1/work-orders', { method: 'POST', token, json: body });
  expect(res.status).toBe(201);
  return WorkOrderCreated.parse(await res.json()).id;
}
const patch = async (id: string, body: Record<string, unknown>, token = tokens.admin) => {
  const res = await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token, json: body });
  expect(res.status).toBe(200);
};
const history = (id: string, token: string | undefined, query = '') => api.request(`/api/v1/work-orders/${id}/history${query}`, { token });

describe('GET /api/v1/work-orders/{id}/history', () => {
  it('reads back every note sent with a status change, with who and when, oldest first', async () => {
    const id = await newWorkOrder({ assignedTechnicianId: tenant.users.tech!.id, notes: 'Gate code 4512' });
    await patch(id, { status: 'DISPATCHED', notes: 'Van 3, morning slot' });
    // A repeated status with notes: kept as a note entry (from = to), no transition.
    await patch(id, { status: 'DISPATCHED', notes: 'On site; bracket needs a longer screw' }, tokens.tech);
    await patch(id, { status: 'COMPLETED', notes: 'Installed, customer happy' }, tokens.tech);

    const res = await history(id, tokens.admin);
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBeNull();
    const { data } = WorkOrderHistory.parse(await res.json());
    expect(data.map(({ from_status, to_status, changed_by, notes }) => ({ from_status, to_status, by: changed_by.id, notes }))).toEqual([
      { from_status: null, to_status: 'PENDING', by: tenant.users.admin!.id, notes: 'Gate code 4512' },
      { from_status: 'PENDING', to_status: 'DISPATCHED', by: tenant.users.admin!.id, notes: 'Van 3, morning slot' },
      { from_status: 'DISPATCHED', to_status: 'DISPATCHED', by: tenant.users.tech!.id, notes: 'On site; bracket needs a longer screw' },
      { from_status: 'DISPATCHED', to_status: 'COMPLETED', by: tenant.users.tech!.id, notes: 'Installed, customer happy' },
    ]);
    expect(data.every((e) => e.changed_by.name.length > 0)).toBe(true);
    const times = data.map((e) => Date.parse(e.changed_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('D4 roles: ADMIN and SALES read any, the assigned TECHNICIAN reads theirs, another TECHNICIAN is refused', async () => {
    const id = await newWorkOrder();
    expect((await history(id, tokens.admin)).status).toBe(200);
    expect((await history(id, tokens.sales)).status).toBe(200);
    expect((await history(id, tokens.tech)).status).toBe(200);
    const refused = await history(id, tokens.tech2);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'forbidden' } });
    const unassigned = await newWorkOrder({});
    expect((await history(unassigned, tokens.tech)).status).toBe(403);
    expect((await history(id, undefined)).status).toBe(401);
  });

  it("another tenant's work order is a 404 for every role; so is an unknown id", async () => {
    const id = await newWorkOrder();
    for (const token of [tokens.otherAdmin, tokens.otherTech]) {
      const res = await history(id, token);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
    }
    expect((await history('00000000-0000-4000-8000-000000000000', tokens.admin)).status).toBe(404);
    expect((await history('nope', tokens.admin)).status).toBe(422);
  });

  it('pages a long history through Link until it ends, every entry once and in order', async () => {
    const id = await newWorkOrder();
    for (let i = 1; i <= 6; i += 1) await patch(id, { status: 'PENDING', notes: `Call ${i}: customer asked to reschedule` });
    const seen: (string | null)[] = [];
    let url: string | null = `${api.url}/api/v1/work-orders/${id}/history?limit=3`;
    let pages = 0;
    while (url) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${tokens.sales}`, 'x-forwarded-for': api.clientAddress } });
      expect(res.status).toBe(200);
      seen.push(...WorkOrderHistory.parse(await res.json()).data.map((e) => e.notes));
      url = nextLink(res);
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([null, ...[1, 2, 3, 4, 5, 6].map((i) => `Call ${i}: customer asked to reschedule`)]);
  });

  it('a cursor it did not hand out is a 400 in the error envelope', async () => {
    const id = await newWorkOrder();
    for (const cursor of ['not a cursor', Buffer.from('["x"]').toString('base64url'), Buffer.from('[1,2,3]').toString('base64url')]) {
      const res = await history(id, tokens.admin, `?cursor=${encodeURIComponent(cursor)}`);
      expect({ cursor, status: res.status }).toEqual({ cursor, status: 400 });
      expect(await res.json()).toMatchObject({ error: { code: 'bad_request', message: expect.stringContaining('cursor'), details: null, request_id: expect.any(String) } });
    }
  });
});
