import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';
import { CANADIAN_SALES_TAX } from '../../domain/tax/canadian-sales-tax';
import { fingerprintOf } from '../../domain/idempotency/idempotency';
import { storedFingerprint } from '../../db/idempotency/keys';

// D14: the alternate /v1/quotes, its lists, its idempotency keys; the same record as /api/.
// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
let admin: string;
let technician: string;
let customerId: string;

async function v1Tenant(plan = 'enterprise'): Promise<{ tenant: Tenant; admin: string; technician: string; customerId: string }> {
  const t = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  await giveRateCard(t.id, SANDBOX_RATE_CARD);
  await owner.query('update organizations set plan = $2 where id = $1', [t.id, plan]);
  for (const p of SANDBOX_PRODUCTS) {
    await owner.query(
      'insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)',
      [t.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null],
    );
  }
  const { rows } = await owner.query<{ id: string }>(`insert into customers (organization_id, name, email) values ($1, 'Jordan Rivera', 'jordan@example.test') returning id`, [t.id]);
  return { tenant: t, admin: await api.tokenFor(t.users.admin!), technician: await api.tokenFor(t.users.tech!), customerId: rows[0]!.id };
}

const body = (overrides: Record<string, unknown> = {}) => ({
  customerId,
  currency: 'CAD',
  taxRegion: 'CA-ON',
  pricebookId: tenant.id,
  lines: [
    { sku: 'ROLLER-SCREEN', quantity: 2, configuration: { finishedWidthIn: 72.5, finishedHeightIn: 60, controlSide: 'left', motorised: true, motorSku: 'MTR-BATTERY' } },
    { sku: 'ROLLER-BLACKOUT-HD-FASCIA', quantity: 1, configuration: { finishedWidthIn: 35.25, finishedHeightIn: 48, controlSide: 'right', motorised: false } },
  ],
  ...overrides,
});

const post = (path: string, json: unknown, key?: string, token = admin) =>
  api.request(path, { method: 'POST', token, json, headers: key === undefined ? {} : { 'Idempotency-Key': key } });

const counts = async () => {
  const { rows } = await owner.query<{ quotes: number; events: number; keys: number }>(
    `select (select count(*)::int from quotes where organization_id = $1) as quotes,
            (select count(*)::int from outbox_events where organization_id = $1 and event = 'quote.created') as events,
            (select count(*)::int from idempotency_keys where organization_id = $1) as keys`,
    [tenant.id],
  );
  return rows[0]!;
};

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  ({ tenant, admin, technician, customerId } = await v1Tenant());
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

describe('POST /v1/quotes (D14)', () => {
  it('prices with the engine of /api/, taxes by region, answers the headers, and keeps the same record as /api/', async () => {
    const res = await post('/v1/quotes', body());
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(Number(res.headers.get('x-engine-latency-ms'))).toBeGreaterThanOrEqual(0);
    const quote = await res.json() as Json;
    expect(quote).toMatchObject({ status: 'draft', revision: 1, currency: 'CAD', customerId, taxRegion: 'CA-ON', pricebookId: tenant.id, reference: expect.stringMatching(/^Q-\d+$/) });
    expect(quote.taxLines).toEqual([{ code: 'HST', rate: 0.13, amount: expect.any(Number) }]);

    // The same engine: /api/v1/quotes/calculate of the same configuration prices the same.
    const calc = await api.request('/api/v1/quotes/calculate', {
      method: 'POST', token: admin,
      json: { laborTierCode: 'STANDARD', lineItems: [
        { widthInches: 72.5, dropInches: 60, quantity: 2, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD', motorSkuCode: 'MTR-BATTERY' },
        { widthInches: 35.25, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD', trimSkuCode: 'TRIM-FASCIA' },
      ] },
    });
    const priced = await calc.json() as Json;
    const subtotalCents = priced.totals.amount_cents;
    expect(Math.round(quote.totals.subtotal * 100)).toBe(subtotalCents);
    expect(Math.round(quote.taxLines[0].amount * 100)).toBe(Math.floor((subtotalCents * 13 + 50) / 100));
    expect(Math.round(quote.totals.grandTotal * 100)).toBe(subtotalCents + Math.round(quote.taxLines[0].amount * 100));
    expect(quote.lines.map((l: { extendedPrice: number }) => Math.round(l.extendedPrice * 100))).toEqual(priced.line_items.map((l: { price_cents: number }) => l.price_cents));
    expect(quote.lines[0]).toMatchObject({ sku: 'ROLLER-SCREEN', quantity: 2, cutList: { tubeIn: 71.375, hembarIn: 71.125, fabricIn: 71 }, deduction: 1.125 });
    const [revision] = (await owner.query('select revision from rate_card_revisions where organization_id = $1', [tenant.id])).rows;
    expect(quote.pricebookRevision).toBe(new Date(revision.revision).toISOString());

    // The same record: listed and approvable through /api/.
    const list = await (await api.request('/api/v1/quotes?limit=50', { token: admin })).json() as Json;
    expect(list.data.map((q: { id: string }) => q.id)).toContain(quote.id);
    expect((await api.request(`/v1/quotes/${quote.id}`, { token: admin })).status).toBe(200);
    const approved = await api.request(`/api/v1/quotes/${quote.id}/approve`, { method: 'POST', token: admin });
    expect(approved.status).toBe(200);
    expect(await (await api.request(`/v1/quotes/${quote.id}`, { token: admin })).json() as Json).toMatchObject({ id: quote.id, status: 'approved' });
    // An approved quote takes no new revision.
    const refused = await post(`/v1/quotes/${quote.id}/revisions`, body());
    expect(refused.status).toBe(409);
    expect((await refused.json() as Json).type).toBe('conflict');
  });

  it.each(Object.entries(CANADIAN_SALES_TAX))('taxes %s with its rates from the table', async (region, components) => {
    const quote = await (await post('/v1/quotes', body({ taxRegion: region }))).json() as Json;
    const subtotal = Math.round(quote.totals.subtotal * 100);
    expect(quote.taxLines.map((l: { code: string; rate: number }) => [l.code, l.rate])).toEqual(components.map((c) => [c.code, Number(c.rate)]));
    for (const [index, line] of quote.taxLines.entries()) {
      // Half-up to the cent on the subtotal, per tax.
      const exact = (subtotal * Number(components[index]!.rate.replace('.', '')) ) / 10 ** (components[index]!.rate.length - 2);
      expect(Math.round(line.amount * 100)).toBe(Math.round(exact));
    }
  });

  it('keeps every revision, each with its own quote.created', async () => {
    const first = await (await post('/v1/quotes', body())).json() as Json;
    const second = await post(`/v1/quotes/${first.id}/revisions`, body({ taxRegion: 'CA-QC', lines: [body().lines[1]] }));
    expect(second.status).toBe(201);
    const revised = await second.json() as Json;
    expect(revised).toMatchObject({ id: first.id, reference: first.reference, revision: 2, taxRegion: 'CA-QC' });
    expect(revised.taxLines.map((l: { code: string }) => l.code)).toEqual(['GST', 'QST']);
    expect(await (await api.request(`/v1/quotes/${first.id}`, { token: admin })).json() as Json).toEqual(revised);
    const events = (await owner.query(`select envelope from outbox_events where event = 'quote.created' and envelope->'data'->>'id' = $1 order by created_at`, [first.id])).rows;
    expect(events.map((e) => e.envelope.data.revision)).toEqual([1, 2]);
    expect(events[1].envelope.data).toMatchObject({ reference: first.reference, status: 'draft', customerId, ownerId: tenant.users.admin!.id, currency: 'CAD', totals: revised.totals, pricebookRevision: revised.pricebookRevision, approval: { required: false, reason: null } });
    // The /api/ record carries the latest revision's figures.
    const detail = await (await api.request(`/api/v1/quotes/${first.id}`, { token: admin })).json() as Json;
    expect(detail.total_amount_cents).toBe(Math.round(revised.totals.subtotal * 100));
    expect(detail.line_items ?? detail.lines).toHaveLength(1);
  });

  it('refuses bad input in the problem shape and writes nothing', async () => {
    const before = await counts();
    const cases: [Record<string, unknown>, string, number][] = [
      [body({ currency: 'USD' }), 'currency', 422],
      [body({ taxRegion: 'CA-XX' }), 'taxRegion', 422],
      [body({ taxRegion: 'US-NY' }), 'taxRegion', 422],
      [body({ lines: [{ ...body().lines[0], sku: 'NOPE' }] }), 'lines.0.sku', 422],
      [body({ customerId: '00000000-0000-4000-8000-000000000000' }), 'customerId', 422],
      [body({ pricebookId: '00000000-0000-4000-8000-000000000000' }), 'pricebookId', 422],
      [body({ lines: [{ ...body().lines[0], configuration: { finishedWidthIn: 50, finishedHeightIn: 50, controlSide: 'left', motorised: true } }] }), 'lines.0.configuration.motorSku', 422],
      [body({ lines: [{ ...body().lines[0], configuration: { finishedWidthIn: 50, finishedHeightIn: 50, controlSide: 'left', motorised: true, motorSku: 'FAB-BLACKOUT' } }] }), 'lines.0.configuration.motorSku', 422],
      [body({ lines: [{ ...body().lines[0], configuration: { finishedWidthIn: 1, finishedHeightIn: 50, controlSide: 'left', motorised: false } }] }), 'lines.0.configuration.finishedWidthIn', 422],
      [body({ lines: [] }), 'lines', 422],
    ];
    for (const [input, field, status] of cases) {
      const res = await post('/v1/quotes', input, `bad-${field}-${Math.random()}`);
      expect([field, res.status]).toEqual([field, status]);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = await res.json() as Json;
      expect(problem.type).toBe('validation-failed');
      expect(Object.keys(problem.errors)).toContain(field);
    }
    for (const key of ['', 'k'.repeat(256)]) {
      const res = await post('/v1/quotes', body(), key);
      expect(res.status).toBe(422);
      expect((await res.json() as Json).errors).toEqual({ 'headers.Idempotency-Key': key ? 'At most 255 characters' : 'Must not be empty' });
    }
    expect(await counts()).toEqual(before);
    // A technician may not quote.
    expect((await post('/v1/quotes', body(), undefined, technician)).status).toBe(403);
  });
});

describe('the lists a quote is filled in from (D14)', () => {
  it('lists products with their components, customers, and the price book; adds a customer', async () => {
    const products = await (await api.request('/v1/products?limit=2', { token: admin })).json() as Json;
    expect(products.data).toHaveLength(2);
    // Opaque, as every /v1/ list's (docs/conventions.md), with has_more beside it.
    expect(products.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(products.next_cursor).not.toBe(products.data[1].sku);
    expect(products.has_more).toBe(true);
    const rest = await (await api.request(`/v1/products?cursor=${products.next_cursor}`, { token: admin })).json() as Json;
    const all = [...products.data, ...rest.data];
    expect(all.map((p: { sku: string }) => p.sku)).toEqual(SANDBOX_PRODUCTS.map((p) => p.sku).sort());
    expect(all.find((p: { sku: string }) => p.sku === 'ROLLER-SCREEN-CASSETTE').components).toEqual({ fabricSku: 'FAB-SCREEN-3', hardwareSku: 'HW-ROLLER-STD', trimSku: 'TRIM-CASSETTE' });

    const added = await post('/v1/customers', { name: 'Casey Moreau', email: 'casey@example.test' });
    expect(added.status).toBe(201);
    const casey = await added.json() as Json;
    const again = await post('/v1/customers', { name: 'Casey M.', email: 'CASEY@example.test' });
    expect(again.status).toBe(200);
    expect((await again.json() as Json).id).toBe(casey.id);
    const customers = await (await api.request('/v1/customers?limit=200', { token: admin })).json() as Json;
    expect(customers.data.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([customerId, casey.id]));
    expect((await post('/v1/customers', { name: '' })).status).toBe(422);

    const pricebooks = await (await api.request('/v1/pricebooks', { token: admin })).json() as Json;
    expect(pricebooks.data).toEqual([{ id: tenant.id, revision: expect.any(String), currency: 'CAD' }]);
    // A quote made for the new customer names it.
    const quote = await (await post('/v1/quotes', body({ customerId: casey.id }))).json() as Json;
    expect(quote.customerId).toBe(casey.id);
  });
});

describe('Idempotency-Key (D14)', () => {
  it('answers the first response again for the same body, 422 for another body', async () => {
    const key = `same-${Date.now()}`;
    const first = await post('/v1/quotes', body(), key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.json() as Json;
    const before = await counts();
    // The same body with its keys in another order and other whitespace is the same request.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body()).reverse()), null, 2);
    const second = await api.request('/v1/quotes', { method: 'POST', token: admin, body: reordered, headers: { 'content-type': 'application/json', 'Idempotency-Key': key } });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('x-engine-latency-ms')).toBe(first.headers.get('x-engine-latency-ms'));
    expect(await second.json() as Json).toEqual(firstBody);
    // A replay draws its token as any request does (D15; counted exactly in plan-limits.test.ts).
    expect(second.headers.get('x-ratelimit-remaining')).not.toBeNull();

    const other = await post('/v1/quotes', body({ taxRegion: 'CA-AB' }), key);
    expect(other.status).toBe(422);
    expect((await other.json() as Json).type).toBe('idempotency-key-reused');
    expect(await counts()).toEqual(before);
  });

  it('20 concurrent requests with one key make one quote and one quote.created', async () => {
    const key = `burst-${Date.now()}`;
    const before = await counts();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('/v1/quotes', body(), key)));
    const statuses = answers.map((a) => a.status);
    const bodies = await Promise.all(answers.map((a) => a.json() as Json));
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const created = bodies.filter((b, i) => statuses[i] === 201);
    expect(new Set(created.map((b) => b.id)).size).toBe(1);
    expect(answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const [i, b] of bodies.entries()) if (statuses[i] === 409) expect(b.type).toBe('idempotency-key-in-use');
    const after = await counts();
    expect([after.quotes - before.quotes, after.events - before.events]).toEqual([1, 1]);
    // Once it has finished, the key answers the first response, to many requests at once too.
    const later = await Promise.all(Array.from({ length: 10 }, () => post('/v1/quotes', body(), key)));
    expect(later.map((a) => [a.status, a.headers.get('idempotent-replayed')])).toEqual(Array.from({ length: 10 }, () => [201, 'true']));
    for (const answer of later) expect((await answer.json() as Json).id).toBe(created[0].id);
  });

  it('a key older than 24 hours runs anew', async () => {
    const key = `old-${Date.now()}`;
    const first = await (await post('/v1/quotes', body(), key)).json() as Json;
    await owner.query(`update idempotency_keys set created_at = now() - interval '24 hours 1 second' where organization_id = $1 and key = $2`, [tenant.id, key]);
    const again = await post('/v1/quotes', body(), key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect((await again.json() as Json).id).not.toBe(first.id);
    // Just under 24 hours it is still a replay.
    await owner.query(`update idempotency_keys set created_at = now() - interval '23 hours 59 minutes' where organization_id = $1 and key = $2`, [tenant.id, key]);
    expect((await post('/v1/quotes', body(), key)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('a key held by a running request is 409; one left running by a process that died is claimed again after its lease', async () => {
    const running = async (key: string, age: string) => {
      // What the first request's claim leaves while it runs: its fingerprint, no answer yet.
      const fingerprint = storedFingerprint(fingerprintOf({ operation: 'POST /v1/quotes', payload: body() }));
      await owner.query(`insert into idempotency_keys (organization_id, key, fingerprint, state, created_at) values ($1, $2, $3, 'running', now() - $4::interval)`, [tenant.id, key, fingerprint, age]);
    };
    const busy = `busy-${Date.now()}`;
    await running(busy, '1 second');
    const before = await counts();
    const inUse = await post('/v1/quotes', body(), busy);
    expect(inUse.status).toBe(409);
    expect((await inUse.json() as Json).type).toBe('idempotency-key-in-use');
    expect(await counts()).toEqual(before);

    const abandoned = `abandoned-${Date.now()}`;
    await running(abandoned, '61 seconds');
    const again = await post('/v1/quotes', body(), abandoned);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    // Its answer was kept with the quote it made.
    const { rows } = await owner.query(`select state, response_status, response_body::jsonb->>'id' as id from idempotency_keys where organization_id = $1 and key = $2`, [tenant.id, abandoned]);
    expect(rows).toEqual([{ state: 'done', response_status: 201, id: (await again.json() as Json).id }]);
  });

  it('POST /v1/customers takes a key too', async () => {
    const key = `customer-${Date.now()}`;
    const first = await post('/v1/customers', { name: 'Robin Keyed' }, key);
    const second = await post('/v1/customers', { name: 'Robin Keyed' }, key);
    expect([first.status, second.status, second.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect((await second.json() as Json).id).toBe((await first.json() as Json).id);
    expect((await post('/v1/customers', { name: 'Someone Else' }, key)).status).toBe(422);
  });

  it('keys are per tenant, and a failed request keeps nothing', async () => {
    const other = await v1Tenant();
    const key = `shared-${Date.now()}`;
    const mine = await post('/v1/quotes', body(), key);
    const theirs = await post('/v1/quotes', { ...body(), customerId: other.customerId, pricebookId: other.tenant.id }, key, other.admin);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();

    const failing = `fails-${Date.now()}`;
    expect((await post('/v1/quotes', body({ customerId: '00000000-0000-4000-8000-000000000000' }), failing)).status).toBe(422);
    const retried = await post('/v1/quotes', body(), failing);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});
