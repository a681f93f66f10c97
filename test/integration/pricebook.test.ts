import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { waitUntil } from '../../scripts/harness/wait-until';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';
import { PricebookWorkflows } from '../../infra/temporal/pricebook-workflows';
import { block, boldFigures, pricingSection, table } from '../support/pricing-doc';
import { EVENT_SCHEMAS } from '../../api/events/schemas';
import { pricebookPublicationWorkflowId } from '../../infra/temporal/contracts';
import { instantToLocal, localTimeToInstant } from '../../domain/organizations/local-time';
import { tsToMs } from '@temporalio/common/lib/time';

// D21: the price book as immutable revisions, through the /v1/ interface, against PostgreSQL and Temporal.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
let owner: pg.Pool;
let api: ApiHarness;
let temporal: TemporalHarness;

interface Book {
  tenant: Tenant;
  admin: string;
  sales: string;
  customerId: string;
}

async function newBook(): Promise<Book> {
  const tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [tenant.id]);
  for (const p of SANDBOX_PRODUCTS) {
    await owner.query('insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)', [
      tenant.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null,
    ]);
  }
  const { rows } = await owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Jordan Rivera') returning id`, [tenant.id]);
  return { tenant, admin: await api.tokenFor(tenant.users.admin!), sales: await api.tokenFor(tenant.users.sales!), customerId: rows[0]!.id };
}

const get = async (book: Book, path: string, token = book.sales) => {
  const res = await api.request(path, { token });
  return { status: res.status, body: (await res.json()) as Json };
};
const publish = async (book: Book, json: unknown, token = book.admin) => {
  const res = await api.request(`/v1/pricebooks/${book.tenant.id}/revisions`, { method: 'POST', token, json });
  return { status: res.status, body: (await res.json()) as Json };
};
const current = async (book: Book) => (await get(book, `/v1/pricebooks/${book.tenant.id}`)).body;
/** GraphQL's answer for the current revision (D17 over D21). */
const graphqlBook = async (book: Book) => {
  const res = await api.request('/v1/graphql', { method: 'POST', token: book.sales, json: { query: '{ pricebook { id revision effectiveFrom marginFloor skus(first: 2) { code unitCostCents active } } }' } });
  return ((await res.json()) as Json).data.pricebook;
};
const stored = async (book: Book) => {
  const { rows } = await owner.query<{ revisions: number; audits: number; events: number }>(
    `select (select count(*)::int from rate_card_revisions where organization_id = $1) as revisions,
            (select count(*)::int from audit_events where organization_id = $1) as audits,
            (select count(*)::int from outbox_events where organization_id = $1 and event = 'pricebook.published') as events`,
    [book.tenant.id],
  );
  return rows[0]!;
};
const quoteBody = (book: Book) => ({
  customerId: book.customerId,
  currency: 'CAD',
  taxRegion: 'CA-ON',
  pricebookId: book.tenant.id,
  lines: [{ sku: 'ROLLER-SCREEN', quantity: 2, configuration: { finishedWidthIn: 48.5, finishedHeightIn: 72, controlSide: 'left', motorised: false } }],
});

beforeAll(async () => {
  owner = ownerPool();
  temporal = await startTemporalHarness();
  await temporal.startWorker();
  api = await startApi({ events: temporal.dispatcher, pricebookWorkflows: new PricebookWorkflows(temporal.client, { taskQueue: temporal.taskQueue, timing: TEST_TIMING }) });
}, 120_000);
afterAll(async () => {
  await api.close();
  await temporal.close();
  await owner.end();
});

describe('D21: reading the price book', () => {
  it('answers the current revision whole, with exact decimal strings, to ADMIN and SALES; /v1/pricebooks names the same revision', async () => {
    const book = await newBook();
    const whole = await current(book);
    expect(whole).toMatchObject({ id: book.tenant.id, current: true, settings: { margin_floor: '0.35', fabric_waste_factor: '0.1', tube_deduction_inches: '1.125' } });
    expect(whole.skus).toContainEqual({ code: 'FAB-SCREEN-3', component: 'fabric', description: 'Solar screen fabric, 3% openness', unit: 'sq_ft', unit_cost_cents: '437.5', active: true });
    expect(whole.labour_tiers).toContainEqual({ code: 'PREMIUM', name: 'Premium installation', hourly_rate_cents: 11500, multiplier: '1.25' });
    expect(whole.products.map((p: Json) => p.sku)).toEqual(SANDBOX_PRODUCTS.map((p) => p.sku).sort());
    const list = (await get(book, '/v1/pricebooks')).body;
    expect(list.data).toEqual([{ id: book.tenant.id, revision: whole.revision, currency: 'CAD' }]);
    expect((await get(book, `/v1/pricebooks/${book.tenant.id}`, book.admin)).status).toBe(200);
    // A revision the book does not have, or a stamp that names none, is not found.
    expect((await get(book, `/v1/pricebooks/${book.tenant.id}/revisions/2020-01-01T00:00:00.000Z`)).status).toBe(404);
    expect((await get(book, `/v1/pricebooks/${book.tenant.id}/revisions/not-a-revision`)).status).toBe(404);
    expect((await get(book, `/v1/pricebooks/${book.tenant.id}/revisions/${whole.revision}`)).body).toEqual({ ...whole });
    // Another tenant's id is not found.
    const other = await newBook();
    expect((await get(book, `/v1/pricebooks/${other.tenant.id}`)).status).toBe(404);
  });
});

describe('D21: publishing a change set', () => {
  it('publishes a new revision (201) with field-level changes, lists it newest first, compares, audits and announces it; quotes keep theirs', async () => {
    const book = await newBook();
    const base = await current(book);
    const quoted = await api.request('/v1/quotes', { method: 'POST', token: book.sales, json: quoteBody(book) });
    expect(quoted.status).toBe(201);
    const quote = (await quoted.json()) as Json;
    expect(quote.pricebookRevision).toBe(base.revision);

    const res = await publish(book, {
      base_revision: base.revision,
      changes: [
        { op: 'set_setting', field: 'margin_floor', value: '0.4' },
        { op: 'adjust_costs', component: 'hardware', percent: '10' },
        { op: 'upsert_sku', sku: { code: 'FAB-LINEN', component: 'fabric', description: 'Linen-look fabric', unit: 'sq_ft', unit_cost_cents: '412.25' } },
      ],
    });
    expect(res.status).toBe(201);
    const published = res.body;
    expect(published).toMatchObject({ id: book.tenant.id, current: true, settings: { margin_floor: '0.4' } });
    expect(published.revision > base.revision).toBe(true);
    // 725 * 1.10 = 797.5 -> whole cents as the cost carried, half-up: 798; 1087.5 * 1.10 = 1196.25 -> one place: 1196.3.
    expect(published.skus.find((s: Json) => s.code === 'HW-ROLLER-STD').unit_cost_cents).toBe('798');
    expect(published.skus.find((s: Json) => s.code === 'HW-ROLLER-HD').unit_cost_cents).toBe('1196.3');
    expect(published.changes).toEqual(expect.arrayContaining([
      { entity: 'setting', key: 'margin_floor', field: 'value', before: '0.35', after: '0.4' },
      { entity: 'sku', key: 'HW-ROLLER-STD', field: 'unit_cost_cents', before: '725', after: '798' },
      { entity: 'sku', key: 'FAB-LINEN', field: 'unit_cost_cents', before: null, after: '412.25' },
    ]));

    expect((await current(book)).revision).toBe(published.revision);
    expect((await get(book, '/v1/pricebooks')).body.data[0].revision).toBe(published.revision);
    expect(await graphqlBook(book)).toEqual({
      id: book.tenant.id, revision: published.revision, effectiveFrom: published.revision, marginFloor: '0.4',
      skus: [{ code: 'FAB-BLACKOUT', unitCostCents: '396.75', active: true }, { code: 'FAB-LINEN', unitCostCents: '412.25', active: true }],
    });
    const page = (await get(book, `/v1/pricebooks/${book.tenant.id}/revisions?limit=1`)).body;
    expect(page.data).toEqual([{ revision: published.revision, effective_from: published.revision, current: true, published_by_user_id: book.tenant.users.admin!.id }]);
    const next = (await get(book, `/v1/pricebooks/${book.tenant.id}/revisions?limit=1&cursor=${page.next_cursor}`)).body;
    expect(next.data.map((r: Json) => r.revision)).toEqual([base.revision]);
    expect(next.next_cursor).toBeNull();
    const old = (await get(book, `/v1/pricebooks/${book.tenant.id}/revisions/${base.revision}`)).body;
    expect(old).toMatchObject({ revision: base.revision, current: false, settings: { margin_floor: '0.35' } });
    const compared = (await get(book, `/v1/pricebooks/${book.tenant.id}/revisions/${published.revision}?compare_to=${base.revision}`)).body;
    expect(compared.changes).toEqual(published.changes);

    // D22: one audit event, field-level, by the admin, in the same transaction.
    const audits = (await owner.query(`select action, entity_type, actor_id, changes from audit_events where organization_id = $1`, [book.tenant.id])).rows;
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ action: 'pricebook.published', entity_type: 'pricebook', actor_id: book.tenant.users.admin!.id });
    expect(audits[0].changes).toEqual(expect.arrayContaining([
      { field: 'revision', before: base.revision, after: published.revision },
      { field: 'setting.margin_floor', before: '0.35', after: '0.4' },
      { field: 'sku.unit_cost_cents', before: { key: 'HW-ROLLER-STD', value: '725' }, after: { key: 'HW-ROLLER-STD', value: '798' } },
    ]));
    // pricebook.published, in its published schema.
    const events = (await owner.query(`select envelope from outbox_events where organization_id = $1 and event = 'pricebook.published'`, [book.tenant.id])).rows;
    expect(events).toHaveLength(1);
    expect(EVENT_SCHEMAS['pricebook.published'].parse(events[0].envelope).data).toEqual({
      pricebook_id: book.tenant.id, revision: published.revision, effective_from: published.revision, published_by_user_id: book.tenant.users.admin!.id,
    });

    // GET /v1/quotes/{id} keeps the revision it was priced on and its totals; a new quote takes the new one.
    const kept = (await get(book, `/v1/quotes/${quote.id}`)).body;
    expect(kept.pricebookRevision).toBe(base.revision);
    expect(kept.totals).toEqual(quote.totals);
    const fresh = (await (await api.request('/v1/quotes', { method: 'POST', token: book.sales, json: quoteBody(book) })).json()) as Json;
    expect(fresh.pricebookRevision).toBe(published.revision);
    expect(fresh.totals.subtotal).toBeGreaterThan(quote.totals.subtotal);
  });

  it('answers 409 when base_revision is not the newest (another admin published first), and writes nothing', async () => {
    const book = await newBook();
    const base = (await current(book)).revision;
    const change = { base_revision: base, changes: [{ op: 'set_setting', field: 'fabric_waste_factor', value: '0.12' }] };
    expect((await publish(book, change)).status).toBe(201);
    const before = await stored(book);
    const stale = await publish(book, { ...change, changes: [{ op: 'set_setting', field: 'margin_floor', value: '0.3' }] });
    expect(stale.status).toBe(409);
    expect(stale.body.type).toBe('conflict');
    expect(await stored(book)).toEqual(before);
    // An import naming a stale base is refused the same way.
    const csv = await api.request(`/v1/pricebooks/${book.tenant.id}/imports?dry_run=false&base_revision=${base}`, {
      method: 'POST', token: book.admin, headers: { 'content-type': 'text/csv' }, body: 'code,component,description,unit,unit_cost_cents,active\r\nFAB-NEW,fabric,New,sq_ft,1,true\r\n',
    });
    expect(csv.status).toBe(409);
    expect(await stored(book)).toEqual(before);
  });

  it('two admins publishing on the same base at the same moment: one revision, the other 409', async () => {
    const book = await newBook();
    const base = (await current(book)).revision;
    const before = await stored(book);
    const answers = await Promise.all(['0.36', '0.37'].map((value) => publish(book, { base_revision: base, changes: [{ op: 'set_setting', field: 'margin_floor', value }] })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(await stored(book)).toEqual({ revisions: before.revisions + 1, audits: before.audits + 1, events: before.events + 1 });
  });

  it('five imports at the same moment, none naming a base or an effective_from: each publishes in turn on the one before, never a complaint about effective_from', async () => {
    const book = await newBook();
    const before = await stored(book);
    const codes = ['FAB-RACE-1', 'FAB-RACE-2', 'FAB-RACE-3', 'FAB-RACE-4', 'FAB-RACE-5'];
    // Each file is the whole book as exported (every row planned under the book's lock) and one SKU of its own.
    const exported = await (await api.request(`/v1/pricebooks/${book.tenant.id}/export.csv`, { token: book.sales })).text();
    expect(exported.endsWith('\r\n')).toBe(true);
    const answers = await Promise.all(codes.map(async (code) => {
      const res = await api.request(`/v1/pricebooks/${book.tenant.id}/imports?dry_run=false`, {
        method: 'POST', token: book.admin, headers: { 'content-type': 'text/csv' }, body: `${exported}${code},fabric,Race ${code},sq_ft,100,true\r\n`,
      });
      return { status: res.status, body: (await res.json()) as Json };
    }));
    // Nobody sent effective_from, so nobody is told about it: a publication that waited on the
    // lock publishes on top of the one before it (no base_revision was named to be stale).
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toMatch(/effective_from.*Must not be before/);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    const newest = await current(book);
    expect(newest.skus.filter((s: Json) => codes.includes(s.code)).map((s: Json) => s.code).sort()).toEqual(codes);
    expect(new Set(answers.map((a) => a.body.revision.revision)).size).toBe(5);
    expect(await stored(book)).toEqual({ revisions: before.revisions + 5, audits: before.audits + 5, events: before.events + 5 });
  });

  it('refuses a set with any bad change, all or nothing, each complaint at its dotted path', async () => {
    const book = await newBook();
    const base = (await current(book)).revision;
    const before = await stored(book);
    const cases: [unknown[], Record<string, string | RegExp>][] = [
      // Shape: a negative or non-decimal cost, an unknown component or unit.
      [[{ op: 'set_setting', field: 'margin_floor', value: '0.3' }, { op: 'upsert_sku', sku: { code: 'X-1', component: 'fabric', description: 'x', unit: 'sq_ft', unit_cost_cents: '-1' } }], { 'changes.1.sku.unit_cost_cents': /non-negative/ }],
      [[{ op: 'upsert_sku', sku: { code: 'X-1', component: 'fabric', description: 'x', unit: 'sq_ft', unit_cost_cents: 'abc' } }], { 'changes.0.sku.unit_cost_cents': /decimal/ }],
      [[{ op: 'upsert_sku', sku: { code: 'X-1', component: 'glass', description: 'x', unit: 'sq_ft', unit_cost_cents: '1' } }], { 'changes.0.sku.component': /.+/ }],
      [[{ op: 'upsert_sku', sku: { code: 'X-1', component: 'fabric', description: 'x', unit: 'yard', unit_cost_cents: '1' } }], { 'changes.0.sku.unit': /.+/ }],
      // Meaning: duplicates, unknown codes, bounds, a SKU an active product uses.
      [[{ op: 'set_setting', field: 'margin_floor', value: '0.3' }, { op: 'upsert_sku', sku: { code: 'X-1', component: 'fabric', description: 'x', unit: 'sq_ft', unit_cost_cents: '1' } }, { op: 'upsert_sku', sku: { code: 'X-1', component: 'fabric', description: 'y', unit: 'sq_ft', unit_cost_cents: '2' } }], { 'changes.2.sku.code': /twice/ }],
      [[{ op: 'deactivate_sku', code: 'NOPE' }], { 'changes.0.code': 'Unknown SKU NOPE' }],
      [[{ op: 'set_setting', field: 'margin_floor', value: '1' }], { 'changes.0.value': /less than 1/ }],
      [[{ op: 'set_setting', field: 'fabric_waste_factor', value: '11' }], { 'changes.0.value': /at most 10/ }],
      [[{ op: 'upsert_labour_tier', tier: { code: 'NIGHT', name: 'Night', hourly_rate_cents: 9000, multiplier: '0' } }], { 'changes.0.tier.multiplier': /greater than 0/ }],
      [[{ op: 'adjust_costs', component: 'fabric', percent: '-101' }], { 'changes.0.percent': /between -100 and 1000/ }],
      [[{ op: 'set_setting', field: 'margin_floor', value: '0.3' }, { op: 'adjust_costs', component: 'glass', percent: '5' }], { 'changes.1.component': /fabric.*hardware/ }],
      [[{ op: 'adjust_costs', percent: 'ten' }], { 'changes.0.percent': /decimal/ }],
      // What a spreadsheet would run is refused as the CSV import refuses it (the apostrophe form is text).
      [[{ op: 'upsert_sku', sku: { code: 'TRIM-EVIL', component: 'trim', description: "=cmd|' /C calc'!A0", unit: 'each', unit_cost_cents: '100' } }], { 'changes.0.sku.description': /Begins with "=", which a spreadsheet runs as a formula/ }],
      [[{ op: 'upsert_sku', sku: { code: 'TRIM-EVIL', component: 'trim', description: '@SUM(A1)', unit: 'each', unit_cost_cents: '100' } }], { 'changes.0.sku.description': /Begins with "@", which a spreadsheet runs as a formula/ }],
      [[{ op: 'deactivate_sku', code: 'HW-ROLLER-HD' }], { 'changes.0.code': /used by active product ROLLER-BLACKOUT-HD-FASCIA/ }],
      [[{ op: 'upsert_product', product: { sku: 'ROLLER-ODD', name: 'Odd', fabric_sku: 'HW-ROLLER-STD', hardware_sku: 'HW-ROLLER-STD' } }], { 'changes.0.product.fabric_sku': /hardware SKU, not fabric/ }],
    ];
    for (const [changes, expected] of cases) {
      const res = await publish(book, { base_revision: base, changes });
      expect({ changes, status: res.status }).toEqual({ changes, status: 422 });
      for (const [path, why] of Object.entries(expected)) {
        expect({ path, got: res.body.errors?.[path] }).toEqual({ path, got: typeof why === 'string' ? why : expect.stringMatching(why) });
      }
    }
    expect(await stored(book)).toEqual(before);
    // Deactivating the SKU together with the product that uses it is accepted.
    const both = await publish(book, { base_revision: base, changes: [
      { op: 'upsert_product', product: { sku: 'ROLLER-BLACKOUT-HD-FASCIA', name: 'Blackout roller shade, heavy duty, with fascia', fabric_sku: 'FAB-BLACKOUT', hardware_sku: 'HW-ROLLER-HD', trim_sku: 'TRIM-FASCIA', active: false } },
      { op: 'deactivate_sku', code: 'HW-ROLLER-HD' },
    ] });
    expect(both.status).toBe(201);
    expect(both.body.skus.find((s: Json) => s.code === 'HW-ROLLER-HD').active).toBe(false);
    // The products of the current revision are what /v1/products lists and /v1/quotes accepts.
    const products = (await get(book, '/v1/products')).body;
    expect(products.data.map((p: Json) => p.sku)).toEqual(['ROLLER-BLACKOUT', 'ROLLER-SCREEN', 'ROLLER-SCREEN-CASSETTE']);
    const gone = await api.request('/v1/quotes', { method: 'POST', token: book.sales, json: { ...quoteBody(book), lines: [{ ...quoteBody(book).lines[0], sku: 'ROLLER-BLACKOUT-HD-FASCIA' }] } });
    expect(gone.status).toBe(422);
    expect(((await gone.json()) as Json).errors['lines.0.sku']).toMatch(/Unknown product/);
    // A SALES user may read but not publish.
    expect((await publish(book, { base_revision: both.body.revision, changes: [{ op: 'set_setting', field: 'margin_floor', value: '0.3' }] }, book.sales)).status).toBe(403);
  });

  it('dry_run answers the revision that would be published, with its changes, and writes nothing', async () => {
    const book = await newBook();
    const base = (await current(book)).revision;
    const before = await stored(book);
    const res = await publish(book, { base_revision: base, dry_run: true, changes: [{ op: 'adjust_costs', percent: '-3' }] });
    expect(res.status).toBe(200);
    expect(res.body.revision).toBeNull();
    expect(res.body.skus.find((s: Json) => s.code === 'MTR-BATTERY').unit_cost_cents).toBe('23183');
    expect(res.body.changes.length).toBe(SANDBOX_RATE_CARD.skus.length);
    expect(await stored(book)).toEqual(before);
    expect((await current(book)).revision).toBe(base);
  });
});

describe('D21: a future effective_from', () => {
  it('prices with the old revision before the instant and the new one from it, whatever the timer; the timer then announces it', async () => {
    const book = await newBook();
    const base = await current(book);
    const at = new Date(Date.now() + 4_000).toISOString();
    const res = await publish(book, { base_revision: base.revision, effective_from: at, changes: [{ op: 'adjust_costs', component: 'fabric', percent: '7.5' }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ effective_from: at, current: false });
    expect((await owner.query(`select action from audit_events where organization_id = $1`, [book.tenant.id])).rows).toEqual([{ action: 'pricebook.scheduled' }]);
    const scheduled = (await owner.query(`select changes from audit_events where organization_id = $1`, [book.tenant.id])).rows[0].changes;
    expect(scheduled).toContainEqual({ field: 'effective_from', before: base.revision, after: at });
    // Before the instant: the current revision prices, and is what /v1/pricebooks answers.
    const early = (await (await api.request('/v1/quotes', { method: 'POST', token: book.sales, json: quoteBody(book) })).json()) as Json;
    expect(early.pricebookRevision).toBe(base.revision);
    expect((await get(book, '/v1/pricebooks')).body.data[0].revision).toBe(base.revision);
    expect((await graphqlBook(book)).revision).toBe(base.revision);
    expect((await get(book, `/v1/pricebooks/${book.tenant.id}/revisions`)).body.data[0]).toMatchObject({ revision: res.body.revision, current: false });
    expect((await stored(book)).events).toBe(0);
    // From the instant: decided by effective_from, not by the timer having fired.
    await waitUntil('the revision’s instant', () => Date.now() > Date.parse(at) + 50, { timeoutMs: 10_000 });
    const late = (await (await api.request('/v1/quotes', { method: 'POST', token: book.sales, json: quoteBody(book) })).json()) as Json;
    expect(late.pricebookRevision).toBe(res.body.revision);
    expect(late.totals.subtotal).toBeGreaterThan(early.totals.subtotal);
    expect((await current(book)).revision).toBe(res.body.revision);
    expect((await get(book, '/v1/pricebooks')).body.data[0].revision).toBe(res.body.revision);
    expect((await graphqlBook(book)).revision).toBe(res.body.revision);
    // The timer announces it once.
    await waitUntil('pricebook.published from the timer', async () => (await stored(book)).events === 1, { timeoutMs: 20_000 });
    const [event] = (await owner.query(`select envelope from outbox_events where organization_id = $1 and event = 'pricebook.published'`, [book.tenant.id])).rows;
    expect(EVENT_SCHEMAS['pricebook.published'].parse(event.envelope).data).toMatchObject({ revision: res.body.revision, effective_from: at });
    // D22: the ADMIN's act was `pricebook.scheduled`; the instant itself is the system's `pricebook.published`.
    const audits = (await owner.query(`select action, actor_type, changes from audit_events where organization_id = $1 order by occurred_at`, [book.tenant.id])).rows;
    expect(audits).toEqual([
      expect.objectContaining({ action: 'pricebook.scheduled', actor_type: 'user' }),
      { action: 'pricebook.published', actor_type: 'system', changes: [{ field: 'current_revision', before: base.revision, after: res.body.revision }] },
    ]);
  }, 60_000);

  it('publishes nothing (503) when the timer cannot be started', async () => {
    const book = await newBook();
    const base = (await current(book)).revision;
    const before = await stored(book);
    const unreachable = { schedule: () => Promise.reject(new Error('Temporal is unreachable')) } as unknown as PricebookWorkflows;
    const broken = await startApi({ events: temporal.dispatcher, pricebookWorkflows: unreachable });
    try {
      const res = await broken.request(`/v1/pricebooks/${book.tenant.id}/revisions`, {
        method: 'POST', token: book.admin, json: { base_revision: base, effective_from: new Date(Date.now() + 3_600_000).toISOString(), changes: [{ op: 'set_setting', field: 'margin_floor', value: '0.3' }] },
      });
      expect(res.status).toBe(503);
      expect(await stored(book)).toEqual(before);
    } finally {
      await broken.close();
    }
  });

  it('refuses an effective_from in the past, and one before a scheduled revision', async () => {
    const book = await newBook();
    const base = (await current(book)).revision;
    const past = await publish(book, { base_revision: base, effective_from: '2020-01-01T00:00:00.000Z', changes: [{ op: 'set_setting', field: 'margin_floor', value: '0.3' }] });
    expect(past.status).toBe(422);
    expect(past.body.errors.effective_from).toMatch(/past/);
    const later = await publish(book, { base_revision: base, effective_from: new Date(Date.now() + 3_600_000).toISOString(), changes: [{ op: 'set_setting', field: 'margin_floor', value: '0.3' }] });
    expect(later.status).toBe(201);
    const sooner = await publish(book, { base_revision: later.body.revision, changes: [{ op: 'set_setting', field: 'margin_floor', value: '0.31' }] });
    expect(sooner.status).toBe(422);
    expect(sooner.body.errors.effective_from).toMatch(/Must not be before/);
  });
});

describe('D21: CSV import and export', () => {
  const csvPost = (book: Book, body: string | Buffer, query = '') =>
    api.request(`/v1/pricebooks/${book.tenant.id}/imports${query}`, { method: 'POST', token: book.admin, headers: { 'content-type': 'text/csv' }, body });
  const HEADER = 'code,component,description,unit,unit_cost_cents,active';

  it('exports UTF-8 with a BOM and CRLF, quotes commas, and escapes formula cells; the file imports back unchanged', async () => {
    const book = await newBook();
    const base = (await current(book)).revision;
    // Written with the apostrophe (a bare formula is refused, as the CSV import refuses it), kept as the text itself.
    const set = await publish(book, { base_revision: base, changes: [{ op: 'upsert_sku', sku: { code: 'TRIM-EVIL', component: 'trim', description: '\'=cmd|\' /C calc\'!A0', unit: 'each', unit_cost_cents: '100' } }] });
    expect(set.status).toBe(201);
    expect(set.body.skus.find((s: Json) => s.code === 'TRIM-EVIL').description).toBe('=cmd|\' /C calc\'!A0');
    const res = await api.request(`/v1/pricebooks/${book.tenant.id}/export.csv`, { token: book.sales });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text.split('\r\n')[0]).toBe(HEADER);
    expect(text).toContain('FAB-SCREEN-3,fabric,"Solar screen fabric, 3% openness",sq_ft,437.5,true\r\n');
    expect(text).toContain(`TRIM-EVIL,trim,'=cmd|' /C calc'!A0,each,100,true\r\n`);
    expect(text).not.toMatch(/(^|,)=cmd/m);
    const back = await csvPost(book, bytes);
    expect(back.status).toBe(200);
    const result = (await back.json()) as Json;
    expect(result.summary).toEqual({ rows: SANDBOX_RATE_CARD.skus.length + 1, created: 0, updated: 0, unchanged: SANDBOX_RATE_CARD.skus.length + 1, refused: 0 });
    // An older revision by its stamp.
    const older = await (await api.request(`/v1/pricebooks/${book.tenant.id}/export.csv?revision=${base}`, { token: book.sales })).text();
    expect(older).not.toContain('TRIM-EVIL');
  });

  it('validates by default (dry run): a result per row, nothing written; with dry_run=false publishes one revision for the whole file', async () => {
    const book = await newBook();
    const file = [HEADER, 'FAB-SCREEN-3,fabric,"Solar screen fabric, 3% openness",sq_ft,470.3,true', 'FAB-LINEN,fabric,"Linen ""look"", light",sq_ft,412.25,TRUE', 'TRIM-FASCIA,trim,"Fascia cover, fabric-wrapped",linear_ft,862.5,true', ''].join('\r\n');
    const before = await stored(book);
    const dry = await csvPost(book, '\uFEFF' + file);
    expect(dry.status).toBe(200);
    expect(((await dry.json()) as Json).results).toEqual([
      { row: 2, code: 'FAB-SCREEN-3', result: 'updated' },
      { row: 3, code: 'FAB-LINEN', result: 'created' },
      { row: 4, code: 'TRIM-FASCIA', result: 'unchanged' },
    ]);
    expect(await stored(book)).toEqual(before);
    const real = await csvPost(book, file, '?dry_run=false');
    expect(real.status).toBe(201);
    const published = (await real.json()) as Json;
    expect(published.revision.skus.find((s: Json) => s.code === 'FAB-LINEN')).toEqual({ code: 'FAB-LINEN', component: 'fabric', description: 'Linen "look", light', unit: 'sq_ft', unit_cost_cents: '412.25', active: true });
    expect(await stored(book)).toEqual({ revisions: before.revisions + 1, audits: before.audits + 1, events: before.events + 1 });
  });

  it('refuses bad files and bad rows with their complaints, publishing nothing', async () => {
    const book = await newBook();
    const before = await stored(book);
    const refusal = async (body: string | Buffer, query = '?dry_run=false') => {
      const res = await csvPost(book, body, query);
      return { status: res.status, body: (await res.json()) as Json };
    };
    const missing = await refusal('code,component,description,unit,unit_cost_cents\r\nX,fabric,x,sq_ft,1\r\n');
    expect(missing).toMatchObject({ status: 422, body: { errors: { header: expect.stringMatching(/Missing column active/) } } });
    const extra = await refusal(`${HEADER},colour\r\nX,fabric,x,sq_ft,1,true,red\r\n`);
    expect(extra).toMatchObject({ status: 422, body: { errors: { header: expect.stringMatching(/Unknown column colour/) } } });
    const latin1 = await refusal(Buffer.from(`${HEADER}\r\nFAB-X,fabric,Toile écrue,sq_ft,1,true\r\n`, 'latin1'));
    expect(latin1).toMatchObject({ status: 422, body: { errors: { file: expect.stringMatching(/not UTF-8/) } } });
    const many = [HEADER, ...Array.from({ length: 5_001 }, (_, i) => `SKU-${i},trim,Trim ${i},each,1,true`)].join('\n');
    expect(await refusal(many)).toMatchObject({ status: 422, body: { errors: { file: expect.stringMatching(/5001 rows; at most 5000/) } } });
    // The same file under the default dry run: refused whole, no result per row, nothing published.
    expect(await refusal(many, '')).toEqual({ status: 422, body: expect.objectContaining({ errors: { file: expect.stringMatching(/5001 rows; at most 5000/) } }) });
    expect(await stored(book)).toEqual(before);
    const rows = [
      HEADER,
      'FAB-OK,fabric,Fine,sq_ft,1,true',
      'FAB-NEG,fabric,Negative,sq_ft,-1,true',
      'FAB-BAD,velvet,Odd,yard,1,maybe',
      'FAB-EVIL,fabric,=cmd|\' /C calc\'!A0,sq_ft,1,true',
      'HW-ROLLER-HD,hardware,"Heavy-duty roller hardware, 2 in tube with brackets and clutch",linear_ft,1087.5,false',
      'FAB-OK,fabric,Twice,sq_ft,2,true',
      'FAB-WORD,fabric,Worded cost,sq_ft,twelve,true',
      'FAB-COMMA,fabric,Decimal comma,sq_ft,"437,5",true',
      'FAB-EXP,fabric,Exponent,sq_ft,1e3,true',
    ].join('\r\n');
    const refused = await refusal(rows);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toMatchObject({
      'rows.3.unit_cost_cents': expect.stringMatching(/non-negative/),
      'rows.4.component': expect.stringMatching(/Unknown component "velvet"/),
      'rows.4.unit': expect.stringMatching(/Unknown unit "yard"/),
      'rows.4.active': expect.stringMatching(/true or false/),
      'rows.5.description': expect.stringMatching(/formula/),
      'rows.7.code': 'Code FAB-OK is already on row 2',
      'rows.8.unit_cost_cents': '"twelve" is not a non-negative decimal such as 437.5',
      'rows.9.unit_cost_cents': '"437,5" is not a non-negative decimal such as 437.5',
      'rows.10.unit_cost_cents': '"1e3" is not a non-negative decimal such as 437.5',
    });
    // The dry run reports each row, the SKU an active product uses included.
    const dry = await refusal(rows, '');
    expect(dry.status).toBe(200);
    expect(dry.body.results.map((r: Json) => [r.row, r.result])).toEqual([[2, 'created'], [3, 'refused'], [4, 'refused'], [5, 'refused'], [6, 'updated'], [7, 'refused'], [8, 'refused'], [9, 'refused'], [10, 'refused']]);
    const consistency = await refusal([HEADER, 'HW-ROLLER-HD,hardware,"Heavy-duty roller hardware, 2 in tube with brackets and clutch",linear_ft,1087.5,false'].join('\n'));
    expect(consistency.body.errors['rows.2.active']).toMatch(/used by active product ROLLER-BLACKOUT-HD-FASCIA/);
    expect(await stored(book)).toEqual(before);
  });
});

describe('D21: the worked example of docs/pricing.md section 12', () => {
  const SECTION_9_REQUEST = {
    laborTierCode: 'PREMIUM',
    lineItems: [
      { reference: 'Living room', widthInches: 48.5, dropInches: 72, quantity: 2, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD', motorSkuCode: 'MTR-BATTERY', trimSkuCode: 'TRIM-CASSETTE' },
      { reference: 'Bedroom', widthInches: 35.25, dropInches: 60, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD', trimSkuCode: 'TRIM-FASCIA' },
    ],
  };
  /**
   * The coming Monday (never today), 00:00 on the tenant's wall clocks: its time zone from its
   * settings, the date and the instant by the project's local-time rules (so 05:00 UTC in winter
   * and 04:00 in summer for Toronto).
   */
  const nextMonday = async (book: Book) => {
    const organization = await get(book, '/api/v1/organization', book.admin);
    expect(organization.status).toBe(200);
    const zone: string = organization.body.time_zone;
    const today = instantToLocal(new Date(), zone).slice(0, 10);
    const [y, m, d] = today.split('-').map(Number) as [number, number, number];
    const weekday = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
    const monday = new Date(Date.UTC(y, m - 1, d + (((8 - weekday) % 7) || 7))).toISOString().slice(0, 10);
    return { zone, date: monday, at: localTimeToInstant(monday, '00:00', zone).toISOString() };
  };
  const calculate = async (book: Book) => {
    const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: book.sales, json: SECTION_9_REQUEST });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    return {
      fabric: body.line_items.map((l: Json) => l.components[0].extended_cost_cents),
      lines: body.line_items.map((l: Json) => [l.cost_cents, l.price_cents]),
      totals: body.totals,
    };
  };

  /**
   * The example's figures as docs/pricing.md states them: the two changes the publication lists
   * (`CODE` `before` → `exact` → **after**), the fabric components' table (**after** (was before))
   * and the before / from Monday table of lines and totals.
   */
  const { BEFORE, AFTER, FABRIC_CHANGES } = (() => {
    const text = block(pricingSection(12), '### Worked example: 7.5 % on fabric');
    const components = table(text, 0);
    const totals = table(text, 1);
    const changes = [...components.before.matchAll(/`([A-Z0-9-]+)`\s+`(\d+(?:\.\d+)?)`\s+→\s+`\d+(?:\.\d+)?`\s+→\s+\*\*(\d+(?:\.\d+)?)\*\*/g)]
      .map((m) => ({ entity: 'sku', key: m[1]!, field: 'unit_cost_cents', before: m[2]!, after: m[3]! }))
      .sort((a, b) => a.key.localeCompare(b.key));
    if (changes.length !== 2) throw new Error(`docs/pricing.md section 12: ${changes.length} changes stated, not the two fabric SKUs`);
    const row = (label: string) => {
      const found = totals.rows.find((r) => Object.values(r)[0] === label);
      if (!found) throw new Error(`docs/pricing.md section 12: no row "${label}"`);
      return found;
    };
    const beforeOf = (label: string) => row(label)['before']!.split('/').map((cell) => cell.trim().replace(/"/g, ''));
    const afterOf = (label: string) => boldFigures(row(label)['from Monday']!);
    const priced = (of: (label: string) => string[], fabric: number[]) => ({
      fabric,
      lines: [of('line 0 cost / price').map(Number), of('line 1 cost / price').map(Number)],
      totals: { cost_cents: Number(of('cost_cents')[0]), amount_cents: Number(of('amount_cents')[0]), profit_cents: Number(of('profit_cents')[0]), margin_percent: of('margin_percent')[0] },
    });
    const extended = components.rows.map((r) => r['extended_cost_cents']!);
    return {
      FABRIC_CHANGES: changes,
      BEFORE: priced(beforeOf, extended.map((cell) => Number(/\(was (\d+)\)/.exec(cell)![1]))),
      AFTER: priced(afterOf, extended.map((cell) => Number(boldFigures(cell)[0]))),
    };
  })();
  /** The revision's timer (D21): the instant its durable timer was started for, from the workflow's history. */
  const timerFiresAt = async (book: Book, revision: string) => {
    const { rows } = await owner.query<{ id: string }>(`select id from rate_card_revisions where organization_id = $1 and date_trunc('milliseconds', revision) = $2::timestamptz`, [book.tenant.id, revision]);
    const handle = temporal.client.workflow.getHandle(pricebookPublicationWorkflowId({ organizationId: book.tenant.id, revisionId: rows[0]!.id }));
    return waitUntil('the revision’s timer started', async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const timer = events.find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes;
      if (!timer) return undefined;
      // The workflow's clock is its task's start: the task that started the timer, plus the timer's duration.
      // Event ids are 64-bit (Long): compared by their text.
      const completed = events.find((e) => String(e.eventId) === String(timer.workflowTaskCompletedEventId));
      const taskStarted = events.find((e) => String(e.eventId) === String(completed!.workflowTaskCompletedEventAttributes!.startedEventId));
      return new Date(tsToMs(taskStarted!.eventTime!) + tsToMs(timer.startToFireTimeout!));
    }, { timeoutMs: 20_000 });
  };

  it('a 7.5 % fabric increase published for next Monday, 00:00 in the tenant’s time zone: its changes, section 9’s figures until then, and the timer set for that instant', async () => {
    const book = await newBook();
    const base = (await current(book)).revision;
    const monday = await nextMonday(book);
    expect(monday.zone).toBe('America/Toronto');
    expect(instantToLocal(new Date(monday.at), monday.zone)).toBe(`${monday.date}T00:00`);
    const res = await publish(book, { base_revision: base, effective_from: monday.at, changes: [{ op: 'adjust_costs', component: 'fabric', percent: '7.5' }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ effective_from: monday.at, current: false });
    expect(res.body.changes).toEqual(FABRIC_CHANGES);

    // Before Monday: section 9's figures, from the revision current now.
    expect(await calculate(book)).toEqual(BEFORE);
    expect((await current(book)).revision).toBe(base);
    // Monday comes by a durable timer started for that very instant, not by anyone acting.
    const firesAt = await timerFiresAt(book, res.body.revision);
    expect(Math.abs(firesAt.getTime() - Date.parse(monday.at))).toBeLessThan(1_000);
    expect((await stored(book)).events).toBe(0);
  });

  it('the same increase published a few seconds ahead: its timer fires for real, announces it, and the same request then prices to the cent of the table', async () => {
    const book = await newBook();
    const base = (await current(book)).revision;
    const at = new Date(Date.now() + 5_000).toISOString();
    const res = await publish(book, { base_revision: base, effective_from: at, changes: [{ op: 'adjust_costs', component: 'fabric', percent: '7.5' }] });
    expect(res.status).toBe(201);
    expect(res.body.changes).toEqual(FABRIC_CHANGES);
    expect(await calculate(book)).toEqual(BEFORE);
    // The timer fires: pricebook.published by the system, after the instant, and the book's current revision is the new one.
    await waitUntil('pricebook.published from the timer', async () => (await stored(book)).events === 1 || undefined, { timeoutMs: 30_000, intervalMs: 200 });
    const { rows } = await owner.query(`select created_at, envelope from outbox_events where organization_id = $1 and event = 'pricebook.published'`, [book.tenant.id]);
    expect(rows[0].created_at.getTime()).toBeGreaterThanOrEqual(Date.parse(at));
    expect(EVENT_SCHEMAS['pricebook.published'].parse(rows[0].envelope).data).toMatchObject({ revision: res.body.revision, effective_from: at });
    expect((await current(book)).revision).toBe(res.body.revision);
    expect(await calculate(book)).toEqual(AFTER);
  }, 60_000);
});
