import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { QuotePage, QuoteSummary, SentQuote } from '../../api/quotes/schemas';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  for (const [name, user] of Object.entries(tenant.users)) tokens[name] = await api.tokenFor(user);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

async function persist(who = 'sales', customer?: { name: string; email?: string }): Promise<{ id: string; number: number }> {
  const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: tokens[who], json: twoWindows({ persist: true, ...(customer ? { customer } : {}) }) });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { quote_id: string; quote_number: number };
  return { id: body.quote_id, number: body.quote_number };
}
const list = async (query = '', who = 'sales') => {
  const res = await api.request(`/api/v1/quotes${query}`, { token: tokens[who] });
  expect(res.status).toBe(200);
  return QuotePage.parse(await res.json());
};

describe('GET /api/v1/quotes', () => {
  it('lists newest first with the QuoteSummary shape, 25 by default', async () => {
    const made = [];
    for (let i = 0; i < 27; i++) made.push(await persist(i % 2 ? 'admin' : 'sales', i === 26 ? { name: 'Casey Doe' } : undefined));
    const page = await list();
    expect(page.data).toHaveLength(25);
    expect(page.next_cursor).toBe(page.data[24]!.id);
    expect(page.data[0]!.quote_number).toBe(made[26]!.number);
    expect(page.data[0]).toEqual(
      QuoteSummary.parse({
        ...page.data[0],
        customer_name: 'Casey Doe',
        created_by: { id: tenant.users.sales!.id, name: `sales of ${tenant.subdomain}`, email: tenant.users.sales!.email },
      }),
    );
    expect(page.data[1]!.created_by?.id).toBe(tenant.users.admin!.id);
    const numbers = page.data.map((q) => q.quote_number);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
  });

  it('walks every quote exactly once while new quotes are being created, also when they share a timestamp', async () => {
    // Ten quotes with one identical created_at: only the id orders them.
    const tied = await Promise.all(Array.from({ length: 10 }, () => persist()));
    await owner.query(`update quotes set created_at = '2026-01-01T00:00:00Z' where id = any($1)`, [tied.map((q) => q.id)]);
    const before = await owner.query<{ id: string }>('select id from quotes where organization_id = $1', [tenant.id]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: { id: string }[]; next_cursor: string | null } = await list(`?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.data.map((q) => q.id));
      cursor = page.next_cursor;
      await persist(); // created while walking: newer than the cursor, so never in a later page
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(new Set(before.rows.map((r) => r.id)));
  });

  it('filters by status', async () => {
    const q = await persist();
    expect((await api.request(`/api/v1/quotes/${q.id}/send`, { method: 'POST', token: tokens.sales })).status).toBe(200);
    const sent = await list('?status=SENT&limit=100');
    expect(sent.data.map((s) => s.id)).toContain(q.id);
    for (const s of sent.data) expect(s.status).toBe('SENT');
    expect((await list('?status=REJECTED')).data).toEqual([]);
  });

  it.each([['?limit=0', 'limit'], ['?limit=101', 'limit'], ['?limit=ten', 'limit'], ['?status=WON', 'status'], ['?cursor=nope', 'cursor'], ['?sort=asc', 'sort']])(
    '%s is a 422 naming %s',
    async (query, field) => {
      const res = await api.request(`/api/v1/quotes${query}`, { token: tokens.sales });
      expect(res.status).toBe(422);
      expect(Object.keys(((await res.json()) as { error: { details: { fields: object } } }).error.details.fields)).toContain(field);
    },
  );

  it("a cursor from another tenant is unknown here (422), and a TECHNICIAN is refused (403)", async () => {
    const other = await createTenant(owner, { sales: 'SALES' });
    await giveRateCard(other.id, SANDBOX_RATE_CARD);
    const foreign = (await owner.query('select id from quotes where organization_id = $1 limit 1', [tenant.id])).rows[0].id;
    const res = await api.request(`/api/v1/quotes?cursor=${foreign}`, { token: await api.tokenFor(other.users.sales!) });
    expect(res.status).toBe(422);
    const empty = await api.request('/api/v1/quotes', { token: await api.tokenFor(other.users.sales!) });
    expect(QuotePage.parse(await empty.json())).toEqual({ data: [], next_cursor: null });
    expect((await api.request('/api/v1/quotes', { token: tokens.tech })).status).toBe(403);
  });
});

describe('D3: send and reject', () => {
  const act = (id: string, action: string, who = 'sales') => api.request(`/api/v1/quotes/${id}/${action}`, { method: 'POST', token: tokens[who] });

  it('moves DRAFT to SENT (again: D24) to REJECTED, and answers 409 from every other state', async () => {
    const q = await persist();
    const sent = await act(q.id, 'send');
    expect(sent.status).toBe(200);
    expect(SentQuote.parse(await sent.json()).status).toBe('SENT');
    // D24: sending a SENT quote again sends a new link; it stays SENT.
    const again = await act(q.id, 'send');
    expect(again.status).toBe(200);
    expect(SentQuote.parse(await again.json()).status).toBe('SENT');
    const rejected = await act(q.id, 'reject', 'admin');
    expect(QuoteSummary.parse(await rejected.json()).status).toBe('REJECTED');
    for (const action of ['send', 'reject']) {
      const res = await act(q.id, action);
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('conflict');
    }
    const stamps = await owner.query('select sent_at, rejected_at from quotes where id = $1', [q.id]);
    expect(stamps.rows[0].sent_at).not.toBeNull();
    expect(stamps.rows[0].rejected_at).not.toBeNull();
  });

  it('rejects a DRAFT directly, and refuses APPROVED and EXPIRED quotes with 409', async () => {
    const draft = await persist();
    expect((await act(draft.id, 'reject')).status).toBe(200);
    for (const status of ['APPROVED', 'EXPIRED']) {
      const q = await persist();
      await owner.query('update quotes set status = $1 where id = $2', [status, q.id]);
      expect((await act(q.id, 'send')).status).toBe(409);
      expect((await act(q.id, 'reject')).status).toBe(409);
    }
  });

  it("404 for an unknown id or another tenant's quote, 403 for a TECHNICIAN, 422 for a malformed id", async () => {
    const q = await persist();
    expect((await act('6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', 'send')).status).toBe(404);
    const other = await createTenant(owner, { sales: 'SALES' });
    const foreign = await api.request(`/api/v1/quotes/${q.id}/send`, { method: 'POST', token: await api.tokenFor(other.users.sales!) });
    expect(foreign.status).toBe(404);
    expect((await act(q.id, 'send', 'tech')).status).toBe(403);
    expect((await act('42', 'send')).status).toBe(422);
  });
});
