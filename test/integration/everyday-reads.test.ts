import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';
import { QuoteDetail, QuotePage } from '../../api/quotes/schemas';
import { CustomerPage, V1Quote, V1QuotePage } from '../../api/v1/quotes/schemas';
import { WorkOrder, WorkOrderCreated, WorkOrderList } from '../../api/work-orders/schemas';
import { JobPage } from '../../api/fsm/schemas';
import { CANADIAN_SALES_TAX } from '../../domain/tax/canadian-sales-tax';

/**
 * The everyday reads: a quote is one record whichever interface made it or reads it; a work
 * order by id; a quote by number (`/api/`) or reference (`/v1/`); search by text (`q`) over
 * quotes, customers and jobs, isolated per tenant and answered by trigram indexes; calculate for
 * an existing customer.
 */
let owner: pg.Pool;
let api: ApiHarness;
let a: Tenant;
let b: Tenant;
const tokens: Record<string, string> = {};

async function quoteTenant(): Promise<Tenant> {
  const t = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', tech2: 'TECHNICIAN' });
  await giveRateCard(t.id, SANDBOX_RATE_CARD);
  await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [t.id]);
  for (const p of SANDBOX_PRODUCTS) {
    await owner.query(
      'insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)',
      [t.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null],
    );
  }
  return t;
}

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  a = await quoteTenant();
  b = await quoteTenant();
  for (const [name, user] of Object.entries(a.users)) tokens[name] = await api.tokenFor(user);
  tokens.otherAdmin = await api.tokenFor(b.users.admin!);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

const get = (path: string, token = tokens.admin) => api.request(path, { token });
const post = (path: string, json: unknown, token = tokens.admin) => api.request(path, { method: 'POST', token, json });

async function calculated(overrides: Record<string, unknown> = {}, token = tokens.sales): Promise<{ id: string; number: number }> {
  const res = await post('/api/v1/quotes/calculate', twoWindows({ persist: true, ...overrides }), token);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { quote_id: string; quote_number: number };
  return { id: body.quote_id, number: body.quote_number };
}

async function customerOf(tenant: Tenant, name: string, email: string | null): Promise<string> {
  const { rows } = await owner.query<{ id: string }>('insert into customers (organization_id, name, email) values ($1, $2, $3) returning id', [tenant.id, name, email]);
  return rows[0]!.id;
}

const v1Body = (tenant: Tenant, customerId: string) => ({
  customerId,
  currency: 'CAD',
  taxRegion: 'CA-QC',
  pricebookId: tenant.id,
  lines: [{ sku: 'ROLLER-SCREEN', quantity: 2, configuration: { finishedWidthIn: 72.5, finishedHeightIn: 60, controlSide: 'left', motorised: false } }],
});

const dollars = (cents: number) => cents / 100;

describe('a quote is one record', () => {
  it('GET /v1/quotes/{id} answers a quote priced through /api/ calculate, with its status now', async () => {
    const made = await calculated({ customer: { name: 'Avery Lindqvist', email: 'avery@a.example.test' } });
    const detail = QuoteDetail.parse(await (await get(`/api/v1/quotes/${made.id}`)).json());
    const res = await get(`/v1/quotes/${made.id}`);
    expect(res.status).toBe(200);
    const quote = V1Quote.parse(await res.json());
    const { rows } = await owner.query<{ id: string }>('select customer_id as id from quotes where id = $1', [made.id]);
    expect(quote).toMatchObject({ id: made.id, reference: `Q-${made.number}`, status: 'draft', revision: 1, currency: 'CAD', customerId: rows[0]!.id, taxRegion: 'CA-ON', pricebookId: a.id });
    // The /api/ figures, in document 001's dollars; D25: a quote without a region is taxed as Ontario's.
    expect(quote.totals.subtotal).toBe(dollars(detail.total_amount_cents));
    expect(quote.taxLines.map((l) => [l.code, l.rate])).toEqual(CANADIAN_SALES_TAX['CA-ON']!.map((t) => [t.code, Number(t.rate)]));
    expect(quote.totals.grandTotal).toBe(dollars(detail.total_amount_cents + Math.round(detail.total_amount_cents * 0.13)));
    expect(quote.lines.map((l) => l.extendedPrice)).toEqual(detail.lines.map((l) => dollars(l.price_cents)));
    expect(quote.lines[0]).toMatchObject({ sku: null, quantity: 2, configuration: { finishedWidthIn: 72.5, finishedHeightIn: 60, controlSide: null, motorised: true, motorSku: 'MTR-BATTERY' } });
    expect(quote.lines[1]!.configuration).toMatchObject({ motorised: false, motorSku: null });

    expect((await post(`/api/v1/quotes/${made.id}/send`, {}, tokens.sales)).status).toBe(200);
    expect(V1Quote.parse(await (await get(`/v1/quotes/${made.id}`)).json()).status).toBe('sent');

    // Without a customer, the quote says so.
    const bare = await calculated();
    expect(V1Quote.parse(await (await get(`/v1/quotes/${bare.id}`)).json()).customerId).toBeNull();
  });

  it('GET /api/v1/quotes/{id} answers a quote made through /v1/quotes', async () => {
    const customerId = await customerOf(a, 'Noor Haddad', 'noor@a.example.test');
    const created = await post('/v1/quotes', v1Body(a, customerId));
    expect(created.status).toBe(201);
    const v1 = V1Quote.parse(await created.json());
    const res = await get(`/api/v1/quotes/${v1.id}`);
    expect(res.status).toBe(200);
    const detail = QuoteDetail.parse(await res.json());
    expect(detail).toMatchObject({ id: v1.id, status: 'DRAFT', customer_name: 'Noor Haddad', customer_email: 'noor@a.example.test' });
    expect(`Q-${detail.quote_number}`).toBe(v1.reference);
    expect(dollars(detail.total_amount_cents)).toBe(v1.totals.subtotal);
    expect(detail.lines.map((l) => dollars(l.price_cents))).toEqual(v1.lines.map((l) => l.extendedPrice));
    // And /v1/ reads it back as it answered it (its product and control side kept).
    expect(V1Quote.parse(await (await get(`/v1/quotes/${v1.id}`)).json())).toEqual(v1);
  });

  it("another tenant's quote is a 404 on both interfaces, whichever made it", async () => {
    const apiQuote = await calculated();
    const v1 = V1Quote.parse(await (await post('/v1/quotes', v1Body(a, await customerOf(a, 'Ines Duarte', null)))).json());
    for (const id of [apiQuote.id, v1.id]) {
      expect((await get(`/v1/quotes/${id}`, tokens.otherAdmin)).status).toBe(404);
      expect((await get(`/api/v1/quotes/${id}`, tokens.otherAdmin)).status).toBe(404);
    }
  });
});

describe('GET /api/v1/work-orders/{id}', () => {
  it('answers the work order as the list shows it; a TECHNICIAN only their own (D4); another tenant 404', async () => {
    const created = await post('/api/v1/work-orders', { assignedTechnicianId: a.users.tech!.id, scheduledDate: '2026-12-09', siteAddress: '14 Reading Lane', notes: 'Side gate' });
    expect(created.status).toBe(201);
    const id = WorkOrderCreated.parse(await created.json()).id;
    const res = await get(`/api/v1/work-orders/${id}`);
    expect(res.status).toBe(200);
    const order = WorkOrder.parse(await res.json());
    const listed = WorkOrderList.parse(await (await get('/api/v1/work-orders?scheduledOn=2026-12-09&limit=100')).json()).data.find((w) => w.id === id);
    expect(order).toEqual(listed);
    expect(order).toMatchObject({ status: 'PENDING', scheduled_date: '2026-12-09T00:00:00.000Z', site_address: '14 Reading Lane', notes: 'Side gate', assigned_technician_id: a.users.tech!.id });

    expect((await get(`/api/v1/work-orders/${id}`, tokens.sales)).status).toBe(200);
    expect((await get(`/api/v1/work-orders/${id}`, tokens.tech)).status).toBe(200);
    expect((await get(`/api/v1/work-orders/${id}`, tokens.tech2)).status).toBe(403);
    const foreign = await get(`/api/v1/work-orders/${id}`, tokens.otherAdmin);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await get('/api/v1/work-orders/0b7e8f1c-3a5d-4c2e-9f1a-6b8d0e2c4a6f')).status).toBe(404);
  });
});

describe('a quote by its number (/api/) or reference (/v1/)', () => {
  it('?number=N on /api/ and ?reference=Q-N on /v1/ find exactly that quote', async () => {
    const made = await calculated();
    await calculated();
    const byNumber = QuotePage.parse(await (await get(`/api/v1/quotes?number=${made.number}`)).json());
    expect(byNumber).toEqual({ data: [expect.objectContaining({ id: made.id, quote_number: made.number })], next_cursor: null });
    const byReference = V1QuotePage.parse(await (await get(`/v1/quotes?reference=Q-${made.number}`)).json());
    expect(byReference.data.map((q) => q.id)).toEqual([made.id]);
    expect(byReference).toMatchObject({ next_cursor: null, has_more: false });

    // A number nobody has, and another tenant's number, find nothing.
    expect(QuotePage.parse(await (await get('/api/v1/quotes?number=999999')).json()).data).toEqual([]);
    expect(V1QuotePage.parse(await (await get(`/v1/quotes?reference=Q-${made.number}`, tokens.otherAdmin)).json()).data.every((q) => q.id !== made.id)).toBe(true);
  });

  it('a malformed number or reference is a 422 naming the parameter', async () => {
    const apiRes = await get('/api/v1/quotes?number=twelve');
    expect(apiRes.status).toBe(422);
    expect(Object.keys(((await apiRes.json()) as { error: { details: { fields: Record<string, string> } } }).error.details.fields)).toEqual(['number']);
    const v1Res = await get('/v1/quotes?reference=12');
    expect(v1Res.status).toBe(422);
    expect(v1Res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await v1Res.json()) as { errors: Record<string, string> }).errors).toEqual({ reference: 'A quote reference: Q- and the quote number, as in Q-12' });
  });
});

describe('search by text (q)', () => {
  let zephyrQuote: string;
  let zephyrCustomer: string;
  let siteJob: string;
  let customerJob: string;

  beforeAll(async () => {
    zephyrCustomer = await customerOf(a, 'Zephyrine Okafor', 'z.okafor@mail.example.test');
    await customerOf(a, 'Bartholomew Quince', 'bq@zephyr-mail.example.test');
    await customerOf(a, 'Percent 100% Blinds', null);
    // The other tenant has a namesake, whom no search of this tenant may find.
    const namesake = await customerOf(b, 'Zephyrine Namesake', 'zephyrine@b.example.test');
    zephyrQuote = (await calculated({ customerId: zephyrCustomer })).id;
    await calculated({ customerId: namesake }, tokens.otherAdmin);
    const wo = async (body: Record<string, unknown>, token = tokens.admin) => WorkOrderCreated.parse(await (await post('/api/v1/work-orders', body, token)).json()).id;
    siteJob = await wo({ siteAddress: '77 Marigold Crescent, Oakville ON' });
    customerJob = await wo({ quoteId: zephyrQuote, siteAddress: '5 Plain St' });
    await wo({ siteAddress: '78 Marigold Crescent, Oakville ON' }, tokens.otherAdmin);
  });

  it('quotes: customer name or reference, case-insensitive, on both interfaces', async () => {
    const apiHits = QuotePage.parse(await (await get('/api/v1/quotes?q=ZEPHYRINE&limit=100')).json()).data;
    expect(apiHits.map((q) => q.id)).toEqual([zephyrQuote]);
    const v1Hits = V1QuotePage.parse(await (await get('/v1/quotes?q=zephyrine%20oka')).json()).data;
    expect(v1Hits.map((q) => q.id)).toEqual([zephyrQuote]);
    const number = apiHits[0]!.quote_number;
    const byReference = QuotePage.parse(await (await get(`/api/v1/quotes?q=q-${number}&limit=100`)).json()).data;
    expect(byReference.map((q) => q.quote_number)).toContain(number);
    expect(byReference.every((q) => `Q-${q.quote_number}`.includes(`Q-${number}`) || (q.customer_name ?? '').toLowerCase().includes(`q-${number}`))).toBe(true);
  });

  it('customers: name or email; LIKE wildcards are matched literally', async () => {
    const byName = CustomerPage.parse(await (await get('/v1/customers?q=zephyrine')).json());
    expect(byName.data.map((c) => c.id)).toEqual([zephyrCustomer]);
    expect(byName.has_more).toBe(false);
    // Not across the name and the email: the text is one, the fields two, but a name's end and an email's start rarely meet.
    const byEmail = CustomerPage.parse(await (await get('/v1/customers?q=zephyr-mail')).json());
    expect(byEmail.data.map((c) => c.name)).toEqual(['Bartholomew Quince']);
    expect(CustomerPage.parse(await (await get('/v1/customers?q=100%25')).json()).data.map((c) => c.name)).toEqual(['Percent 100% Blinds']);
    expect(CustomerPage.parse(await (await get('/v1/customers?q=_')).json()).data).toEqual([]);
  });

  it('jobs: the site or the customer', async () => {
    const bySite = JobPage.parse(await (await get('/v1/fsm/jobs?q=marigold')).json()).data;
    expect(bySite.map((j) => j.job_id)).toEqual([siteJob]);
    const byCustomer = JobPage.parse(await (await get('/v1/fsm/jobs?q=okafor')).json()).data;
    expect(byCustomer.map((j) => j.job_id)).toEqual([customerJob]);
  });

  it("is isolated per tenant: the other tenant finds only its own namesake, on every list", async () => {
    const quotes = QuotePage.parse(await (await get('/api/v1/quotes?q=zephyrine', tokens.otherAdmin)).json()).data;
    expect(quotes.map((q) => q.customer_name)).toEqual(['Zephyrine Namesake']);
    const customers = CustomerPage.parse(await (await get('/v1/customers?q=zephyr', tokens.otherAdmin)).json()).data;
    expect(customers.map((c) => c.name)).toEqual(['Zephyrine Namesake']);
    const jobs = JobPage.parse(await (await get('/v1/fsm/jobs?q=marigold', tokens.otherAdmin)).json()).data;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.job_id).not.toBe(siteJob);
    expect(V1QuotePage.parse(await (await get('/v1/quotes?q=okafor', tokens.otherAdmin)).json()).data).toEqual([]);
  });

  it('an empty q is a 422 naming it', async () => {
    const res = await get('/v1/customers?q=%20');
    expect(res.status).toBe(422);
    expect(Object.keys(((await res.json()) as { errors: Record<string, string> }).errors)).toEqual(['q']);
  });

  it('each search is answered by a trigram index (pg_trgm GIN) once the planner may not scan', async () => {
    const plans: Record<string, string> = {};
    const client = await owner.connect();
    try {
      await client.query('begin');
      // A workspace of realistic size (rolled back below), so the costs are those of a real table.
      await client.query(
        `insert into customers (organization_id, name, email) select $1, 'Filler ' || n, 'filler' || n || '@b.example.test' from generate_series(1, 5000) n`,
        [b.id],
      );
      await client.query(`insert into sites (organization_id, name, region, address_key) select $1, n || ' Filler Road', 'CA-ON', n || ' filler road' from generate_series(1, 5000) n`, [b.id]);
      await client.query('analyze customers, sites, quotes');
      await client.query('set local enable_seqscan = off');
      const explain = async (sql: string) => (await client.query<{ 'QUERY PLAN': string }>(`explain ${sql}`)).rows.map((r) => r['QUERY PLAN']).join('\n');
      // As the lists ask: the customer's name or email, and the reference.
      plans.customer = await explain(`select id from customers where (name || ' ' || coalesce(email, '')) ilike '%zephyr%'`);
      plans.site = await explain(`select id from sites where name ilike '%marigold%'`);
      plans.reference = await explain(`select id from quotes where ('Q-' || quote_number::text) ilike '%q-12%'`);
      await client.query('rollback');
    } finally {
      client.release();
    }
    expect(plans.customer).toContain('customers_text_trgm');
    expect(plans.site).toContain('sites_name_trgm');
    expect(plans.reference).toContain('quotes_reference_trgm');
  });
});

describe('calculate for an existing customer', () => {
  it('customerId quotes that customer and makes no new one', async () => {
    const customerId = await customerOf(a, 'Kit Marlowe', 'kit@a.example.test');
    const count = async () => Number((await owner.query<{ n: string }>('select count(*) as n from customers where organization_id = $1', [a.id])).rows[0]!.n);
    const before = await count();
    const first = await calculated({ customerId });
    const second = await calculated({ customerId });
    expect(await count()).toBe(before);
    for (const made of [first, second]) {
      expect(QuoteDetail.parse(await (await get(`/api/v1/quotes/${made.id}`)).json())).toMatchObject({ customer_name: 'Kit Marlowe', customer_email: 'kit@a.example.test' });
      expect(V1Quote.parse(await (await get(`/v1/quotes/${made.id}`)).json()).customerId).toBe(customerId);
    }
  });

  it("an unknown customer (another tenant's included), or customerId with customer, is a 422 naming customerId", async () => {
    const theirs = await customerOf(b, 'Not Yours', null);
    for (const json of [twoWindows({ persist: true, customerId: theirs }), twoWindows({ persist: true, customerId: theirs, customer: { name: 'Both' } })]) {
      const res = await post('/api/v1/quotes/calculate', json, tokens.sales);
      expect(res.status).toBe(422);
      expect(Object.keys(((await res.json()) as { error: { details: { fields: Record<string, string> } } }).error.details.fields)).toEqual(['customerId']);
    }
  });
});

describe('PATCH /api/v1/work-orders/{id}', () => {
  const patch = (id: string, json: unknown, token = tokens.admin) => api.request(`/api/v1/work-orders/${id}`, { method: 'PATCH', token, json });
  const events = async (id: string) =>
    (await owner.query<{ event: string }>(`select event from outbox_events where organization_id = $1 and (envelope->'data'->>'work_order_id' = $2 or envelope->'data'->>'job_id' = $2) order by sequence`, [a.id, id])).rows.map((r) => r.event);
  const history = async (id: string) =>
    ((await (await get(`/api/v1/work-orders/${id}/history`)).json()) as { data: { from_status: string | null; to_status: string; notes: string | null }[] }).data;

  it('changes the day, site and notes of a pending work order, with a history entry and no status event', async () => {
    const id = WorkOrderCreated.parse(await (await post('/api/v1/work-orders', { scheduledDate: '2026-12-09', siteAddress: '1 Old Rd' })).json()).id;
    const before = await events(id);
    const res = await patch(id, { scheduledDate: '2026-12-11', siteAddress: '2 New Rd', notes: 'Ring twice' });
    expect(res.status).toBe(200);
    expect(WorkOrder.parse(await res.json())).toMatchObject({ id, status: 'PENDING', scheduled_date: '2026-12-11T00:00:00.000Z', site_address: '2 New Rd', notes: 'Ring twice' });
    expect(WorkOrder.parse(await (await get(`/api/v1/work-orders/${id}`)).json()).scheduled_date).toBe('2026-12-11T00:00:00.000Z');
    expect((await history(id)).at(-1)).toEqual(
      expect.objectContaining({ from_status: 'PENDING', to_status: 'PENDING', notes: 'Edited: date 2026-12-09 → 2026-12-11; site 1 Old Rd → 2 New Rd; notes none → Ring twice' }),
    );
    expect(await events(id)).toEqual(before);
    // The job's site follows (D11).
    const job = (await (await get(`/v1/fsm/jobs/${id}`)).json()) as { site: { name: string } | null };
    expect(job.site?.name).toBe('2 New Rd');
    // Null clears a field.
    expect(WorkOrder.parse(await (await patch(id, { notes: null })).json()).notes).toBeNull();
  });

  it('a dispatched work order moved to another day goes back to PENDING with work_order.pending and job.status_changed', async () => {
    const id = WorkOrderCreated.parse(await (await post('/api/v1/work-orders', { assignedTechnicianId: a.users.tech!.id, scheduledDate: '2026-12-09' })).json()).id;
    expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: tokens.admin, json: { status: 'DISPATCHED' } })).status).toBe(200);
    const before = await events(id);
    const moved = WorkOrder.parse(await (await patch(id, { scheduledDate: '2026-12-12' })).json());
    expect(moved).toMatchObject({ status: 'PENDING', scheduled_date: '2026-12-12T00:00:00.000Z', dispatched_at: null });
    expect((await events(id)).slice(before.length).sort()).toEqual(['job.status_changed', 'work_order.pending']);
    expect((await history(id)).slice(-2).map((h) => [h.from_status, h.to_status])).toEqual([['DISPATCHED', 'PENDING'], ['PENDING', 'PENDING']]);
    // Its notes alone move nothing.
    expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: tokens.admin, json: { status: 'DISPATCHED' } })).status).toBe(200);
    const again = await events(id);
    expect(WorkOrder.parse(await (await patch(id, { notes: 'Bring the tall ladder' })).json()).status).toBe('DISPATCHED');
    expect(await events(id)).toEqual(again);
  });

  it('ADMIN only; a final work order is 409; bad input 422 at its path; another tenant 404', async () => {
    const id = WorkOrderCreated.parse(await (await post('/api/v1/work-orders', { assignedTechnicianId: a.users.tech!.id })).json()).id;
    expect((await patch(id, { notes: 'x' }, tokens.sales)).status).toBe(403);
    expect((await patch(id, { notes: 'x' }, tokens.tech)).status).toBe(403);
    expect((await patch(id, { notes: 'x' }, tokens.otherAdmin)).status).toBe(404);
    const bad = await patch(id, { scheduledDate: '2026-13-40' });
    expect(bad.status).toBe(422);
    expect(Object.keys(((await bad.json()) as { error: { details: { fields: Record<string, string> } } }).error.details.fields)).toEqual(['scheduledDate']);
    expect((await patch(id, {})).status).toBe(422);
    expect((await patch(id, { status: 'COMPLETED' })).status).toBe(422);
    expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: tokens.admin, json: { status: 'CANCELLED' } })).status).toBe(200);
    const final = await patch(id, { notes: 'too late' });
    expect(final.status).toBe(409);
    expect(((await final.json()) as { error: { code: string } }).error.code).toBe('conflict');
  });

  it("customerId (D11): ADMIN sets a customer of the workspace (another tenant's is 404), null clears it; each change a history entry, job.customer_changed and an audit event", async () => {
    const id = WorkOrderCreated.parse(await (await post('/api/v1/work-orders', { assignedTechnicianId: a.users.tech!.id })).json()).id;
    const ours = await customerOf(a, 'Pat Morrow', null);
    const theirs = await customerOf(b, 'Not Yours', null);
    expect((await patch(id, { customerId: ours }, tokens.sales)).status).toBe(403);
    const foreign = await patch(id, { customerId: theirs });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { message: string } }).error.message).toMatch(/^customerId/);
    const bad = await patch(id, { customerId: 'C-1' });
    expect(bad.status).toBe(422);
    expect(Object.keys(((await bad.json()) as { error: { details: { fields: Record<string, string> } } }).error.details.fields)).toEqual(['customerId']);
    const before = await events(id);

    const set = await patch(id, { customerId: ours, notes: 'Billed to Pat' });
    expect(set.status).toBe(200);
    expect(WorkOrder.parse(await set.json())).toMatchObject({ id, status: 'PENDING', customer_id: ours, notes: 'Billed to Pat' });
    expect(WorkOrder.parse(await (await get(`/api/v1/work-orders/${id}`)).json()).customer_id).toBe(ours);
    expect(((await (await get(`/v1/fsm/jobs/${id}`)).json()) as { customer_id: string | null }).customer_id).toBe(ours);
    expect(WorkOrder.parse(await (await patch(id, { customerId: null })).json()).customer_id).toBeNull();
    expect((await events(id)).slice(before.length)).toEqual(['job.customer_changed', 'job.customer_changed']);
    expect((await history(id)).slice(-3).map((h) => h.notes)).toEqual([`Customer: none → ${ours}`, 'Edited: notes none → Billed to Pat', `Customer: ${ours} → none`]);
    const audit = await owner.query(`select action, actor_id, changes from audit_events where entity_type = 'work_order' and entity_id = $1 order by occurred_at, id`, [id]);
    expect(audit.rows.map((r) => [r.action, r.actor_id, r.changes])).toEqual([
      ['work_order.customer_changed', a.users.admin!.id, [{ field: 'customer_id', before: null, after: ours }]],
      ['work_order.customer_changed', a.users.admin!.id, [{ field: 'customer_id', before: ours, after: null }]],
    ]);

    // A work order with a quote is invoiced to its quote's customer; a cancelled one bills nothing.
    const quote = (await (await post('/api/v1/quotes/calculate', twoWindows({ persist: true }), tokens.sales)).json()) as { quote_id: string };
    const quoted = WorkOrderCreated.parse(await (await post('/api/v1/work-orders', { quoteId: quote.quote_id })).json()).id;
    expect((await patch(quoted, { customerId: ours })).status).toBe(409);
    expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: tokens.admin, json: { status: 'CANCELLED' } })).status).toBe(200);
    expect((await patch(id, { customerId: ours })).status).toBe(409);
  });
});
