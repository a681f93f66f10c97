import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { CalculationResult, type CalculateBody } from '../../api/quotes/schemas';
import { RateCardRepository } from '../../db/rate-cards/repository';
import { priceQuote } from '../../domain/pricing/engine';
import { buildRateCardSnapshot } from '../../domain/pricing/rate-card';
import { SANDBOX_ALT_RATE_CARD, SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

let owner: pg.Pool;
let api: ApiHarness;
let rateCards: RateCardRepository;
let tenant: Tenant;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  owner = ownerPool();
  rateCards = new RateCardRepository();
  api = await startApi({ rateCards });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  for (const [name, user] of Object.entries(tenant.users)) tokens[name] = await api.tokenFor(user);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

const calculate = (who: string, body: unknown) => api.request('/api/v1/quotes/calculate', { method: 'POST', token: tokens[who], json: body });
async function ok(res: Response) {
  expect(res.status).toBe(200);
  return CalculationResult.parse(await res.json());
}
async function refused(res: Response, status: number) {
  const body = (await res.json()) as { error: { code: string; message: string; details?: { fields: Record<string, string> } | null } };
  expect({ status: res.status, body }).toMatchObject({ status });
  return body.error;
}

describe('POST /api/v1/quotes/calculate: the six rules of 4.3', () => {
  it('rule 1: without targetMargin it prices at the floor, and does not persist by default (rule 4)', async () => {
    const result = await ok(await calculate('sales', twoWindows()));
    expect(result).toMatchObject({ currency: 'CAD', margin_floor: '0.35', applied_margin: '0.35', target_margin: '0.35', floor_overridden: false });
    expect(result).toMatchObject({ persisted: false, quote_id: null, quote_number: null, status: null });
    expect(result.line_items).toHaveLength(2);
    expect(result.totals.amount_cents).toBe(result.line_items.reduce((sum, l) => sum + l.price_cents, 0));
  });

  it('rule 2: a target above the floor is accepted and applied', async () => {
    const result = await ok(await calculate('sales', twoWindows({ targetMargin: 0.42 })));
    expect(result.applied_margin).toBe('0.42');
    expect(result.floor_overridden).toBe(false);
  });

  it('rule 3: below the floor is 400 without an override, 403 for a non-ADMIN override, accepted for an ADMIN with the reason stored', async () => {
    expect((await refused(await calculate('admin', twoWindows({ targetMargin: 0.2 })), 400)).code).toBe('bad_request');
    const override = { targetMargin: 0.2, marginOverride: { reason: 'Builder volume pricing, approved by owner' } };
    expect((await refused(await calculate('sales', twoWindows(override)), 403)).code).toBe('forbidden');
    const result = await ok(await calculate('admin', twoWindows({ ...override, persist: true })));
    expect(result).toMatchObject({ applied_margin: '0.2', floor_overridden: true, persisted: true, status: 'DRAFT' });
    const stored = await owner.query('select override_reason, floor_overridden, applied_margin from quotes where id = $1', [result.quote_id]);
    expect(stored.rows[0]).toEqual({ override_reason: override.marginOverride.reason, floor_overridden: true, applied_margin: '0.2' });
  });

  it('the answer is the whole result as JSON text, with its type and length', async () => {
    const res = await calculate('sales', twoWindows());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    const expected = priceQuote({ request: twoWindows() as unknown as CalculateBody, rateCard: buildRateCardSnapshot({ revision: 'x', ...SANDBOX_RATE_CARD }), overrideAuthorised: false });
    expect(text).toBe(JSON.stringify({ ...expected, quote_id: null, quote_number: null, status: null, persisted: false }));
  });

  it('rule 5: every figure comes from the rate card; a client cost is not even accepted', async () => {
    const body = twoWindows();
    (body.lineItems as Record<string, unknown>[])[0]!.unitCostCents = 1;
    const error = await refused(await calculate('sales', body), 422);
    expect(error.details!.fields['lineItems.0.unitCostCents']).toBe('Unrecognized key');
    // The price is the engine's on the tenant's own card, and another tenant's card prices differently.
    const own = await ok(await calculate('sales', twoWindows()));
    const expected = priceQuote({ request: twoWindows() as unknown as CalculateBody, rateCard: buildRateCardSnapshot({ revision: 'x', ...SANDBOX_RATE_CARD }), overrideAuthorised: false });
    expect(own.totals).toEqual(expected.totals);
    // A tenant of its own on the sandbox's other card: the shared sandbox-alt tenant's book is
    // republished by other files (test/support/populate-tenant.ts).
    const other = await createTenant(owner, { sales: 'SALES' });
    await giveRateCard(other.id, SANDBOX_ALT_RATE_CARD);
    const altResult = await ok(await api.request('/api/v1/quotes/calculate', { method: 'POST', token: await api.tokenFor(other.users.sales!), json: twoWindows() }));
    const altExpected = priceQuote({ request: twoWindows() as unknown as CalculateBody, rateCard: buildRateCardSnapshot({ revision: 'x', ...SANDBOX_ALT_RATE_CARD }), overrideAuthorised: false });
    expect(altResult.totals).toEqual(altExpected.totals);
    expect(altResult.totals.amount_cents).not.toBe(own.totals.amount_cents);
  });

  it.each([
    ['an unknown fabric SKU', { fabricSkuCode: 'FAB-NOPE' }, 'FAB-NOPE'],
    ['an unknown hardware SKU', { hardwareSkuCode: 'HW-NOPE' }, 'HW-NOPE'],
    ['a fabric code as hardware', { hardwareSkuCode: 'FAB-BLACKOUT' }, 'FAB-BLACKOUT'],
    ['a hardware code as motor', { motorSkuCode: 'HW-ROLLER-HD' }, 'HW-ROLLER-HD'],
    ['a motor code as trim', { trimSkuCode: 'MTR-WIRED' }, 'MTR-WIRED'],
  ])('rule 6: %s is a 400 naming the code', async (_name, change, code) => {
    const body = twoWindows();
    Object.assign((body.lineItems as Record<string, unknown>[])[1]!, change);
    const error = await refused(await calculate('sales', body), 400);
    expect(error.code).toBe('bad_request');
    expect(error.message).toContain(code);
  });

  it('rule 6: an unknown labour tier is a 400 naming it', async () => {
    const error = await refused(await calculate('sales', twoWindows({ laborTierCode: 'GOLD' })), 400);
    expect(error.message).toContain('GOLD');
  });

  it('a workspace without a rate card is a 400 saying so, persisted or not, and stores nothing', async () => {
    const bare = await createTenant(owner, { sales: 'SALES' });
    const token = await api.tokenFor(bare.users.sales!);
    for (const persist of [false, true]) {
      const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist }) });
      expect(await refused(res, 400)).toMatchObject({ code: 'bad_request', message: 'This workspace has no rate card yet.' });
    }
    expect((await owner.query('select count(*)::int as n from quotes where organization_id = $1', [bare.id])).rows[0].n).toBe(0);
  });

  it('a TECHNICIAN is refused with 403', async () => {
    expect((await refused(await calculate('tech', twoWindows()), 403)).code).toBe('forbidden');
  });
});

describe('limits of section 8 are 422 with dotted paths', () => {
  const line = () => (twoWindows().lineItems as Record<string, unknown>[])[0]!;
  const cases: [string, Record<string, unknown>, string][] = [
    ['no lines', { lineItems: [] }, 'lineItems'],
    ['201 lines', { lineItems: Array.from({ length: 201 }, line) }, 'lineItems'],
    ['quantity 0', { lineItems: [line(), { ...line(), quantity: 0 }] }, 'lineItems.1.quantity'],
    ['quantity 501', { lineItems: [{ ...line(), quantity: 501 }] }, 'lineItems.0.quantity'],
    ['fractional quantity', { lineItems: [{ ...line(), quantity: 1.5 }] }, 'lineItems.0.quantity'],
    ['zero width', { lineItems: [{ ...line(), widthInches: 0 }] }, 'lineItems.0.widthInches'],
    ['negative drop', { lineItems: [line(), { ...line(), dropInches: -3 }] }, 'lineItems.1.dropInches'],
    ['width as a string', { lineItems: [{ ...line(), widthInches: '72' }] }, 'lineItems.0.widthInches'],
    ['reference of 121', { lineItems: [{ ...line(), reference: 'r'.repeat(121) }] }, 'lineItems.0.reference'],
    ['SKU code of 65', { lineItems: [{ ...line(), fabricSkuCode: 'F'.repeat(65) }] }, 'lineItems.0.fabricSkuCode'],
    ['empty SKU code', { lineItems: [{ ...line(), trimSkuCode: '' }] }, 'lineItems.0.trimSkuCode'],
    ['missing hardware', { lineItems: [{ ...line(), hardwareSkuCode: undefined }] }, 'lineItems.0.hardwareSkuCode'],
    ['tier code of 33', { laborTierCode: 'T'.repeat(33) }, 'laborTierCode'],
    ['margin of 1', { targetMargin: 1 }, 'targetMargin'],
    ['negative margin', { targetMargin: -0.1 }, 'targetMargin'],
    ['override reason of 9', { targetMargin: 0.1, marginOverride: { reason: 'too short' } }, 'marginOverride.reason'],
    ['override reason of 501', { marginOverride: { reason: 'r'.repeat(501) } }, 'marginOverride.reason'],
    ['customer name of 201', { customer: { name: 'n'.repeat(201) } }, 'customer.name'],
    ['empty customer name', { customer: { name: '' } }, 'customer.name'],
    ['bad customer email', { customer: { name: 'Pat', email: 'pat@' } }, 'customer.email'],
    ['unknown top-level key', { discount: 5 }, 'discount'],
  ];
  it.each(cases)('%s', async (_name, change, path) => {
    const error = await refused(await calculate('admin', { ...twoWindows(), ...change }), 422);
    expect(error.code).toBe('validation_failed');
    expect(Object.keys(error.details!.fields)).toContain(path);
  });

  it('accepts exactly 200 lines of quantity 500', async () => {
    const lines = Array.from({ length: 200 }, () => ({ ...line(), quantity: 500 }));
    const result = await ok(await calculate('admin', { ...twoWindows(), lineItems: lines }));
    expect(result.line_items).toHaveLength(200);
  });
});

describe('persist: true', () => {
  it('stores the quote, its lines, the customer, the revision and the calculation as priced', async () => {
    const body = twoWindows({ persist: true, customer: { name: 'Jordan Rivera', email: 'jordan@example.test' } });
    const result = await ok(await calculate('sales', body));
    expect(result).toMatchObject({ persisted: true, status: 'DRAFT' });
    expect(result.quote_number).toBeGreaterThan(0);
    const quote = await owner.query(
      `select q.*, c.name as customer_name, c.email as customer_email, r.revision from quotes q
         join customers c on c.id = q.customer_id join rate_card_revisions r on r.id = q.rate_card_revision_id where q.id = $1`,
      [result.quote_id],
    );
    const row = quote.rows[0];
    expect(row).toMatchObject({ organization_id: tenant.id, quote_number: result.quote_number, status: 'DRAFT', created_by_user_id: tenant.users.sales!.id });
    expect(row).toMatchObject({ customer_name: 'Jordan Rivera', customer_email: 'jordan@example.test', override_reason: null });
    expect(Number(row.total_amount_cents)).toBe(result.totals.amount_cents);
    expect(row.margin_percent).toBe(result.totals.margin_percent);
    const { quote_id: _id, quote_number: _n, status: _s, persisted: _p, ...priced } = result;
    expect(row.calculation).toEqual(priced);
    const lines = await owner.query('select position, reference, quantity, cost_cents, price_cents from quote_lines where quote_id = $1 order by position', [result.quote_id]);
    expect(lines.rows.map((l) => [l.reference, l.quantity, Number(l.cost_cents), Number(l.price_cents)])).toEqual(
      result.line_items.map((l) => [l.reference, l.quantity, l.cost_cents, l.price_cents]),
    );
    // The same customer email is the same customer.
    const again = await ok(await calculate('sales', body));
    const customers = await owner.query('select distinct customer_id from quotes where id = any($1)', [[result.quote_id, again.quote_id]]);
    expect(customers.rowCount).toBe(1);
  });

  it('records the revision it was priced on, so an old quote is still explained after the card changes (D2)', async () => {
    const loadsBefore = rateCards.loads;
    const first = await ok(await calculate('sales', twoWindows({ persist: true })));
    await ok(await calculate('sales', twoWindows()));
    await ok(await calculate('admin', twoWindows({ targetMargin: 0.5 })));
    // Read once per revision, not per request or per line.
    expect(rateCards.loads - loadsBefore).toBeLessThanOrEqual(1);

    const dearer = { ...SANDBOX_RATE_CARD, skus: SANDBOX_RATE_CARD.skus.map((s) => ({ ...s, unitCostCents: String(Number(s.unitCostCents) * 2) })) };
    await giveRateCard(tenant.id, dearer);
    const second = await ok(await calculate('sales', twoWindows({ persist: true })));
    expect(second.totals.amount_cents).toBeGreaterThan(first.totals.amount_cents);
    // A calculate that is not persisted reads the current revision outside a transaction
    // (one statement), and prices on the new card at once.
    const unsaved = await ok(await calculate('sales', twoWindows()));
    expect(unsaved.totals.amount_cents).toBe(second.totals.amount_cents);
    const revisions = await owner.query('select id, rate_card_revision_id, request, calculation from quotes where id = any($1) order by quote_number', [[first.quote_id, second.quote_id]]);
    expect(revisions.rows[0].rate_card_revision_id).not.toBe(revisions.rows[1].rate_card_revision_id);
    // Re-pricing the stored request on its stored revision reproduces the stored calculation.
    const em = api.orm.em.fork();
    const { inTenant } = await import('../../db/tenant-scope');
    for (const row of revisions.rows) {
      const snapshot = await inTenant(em, tenant.id, (tx) => new RateCardRepository().byId(tx, row.rate_card_revision_id));
      expect(priceQuote({ request: row.request, rateCard: snapshot, overrideAuthorised: false })).toEqual(row.calculation);
    }
  });

  it('numbers quotes 1..50 per tenant under 50 concurrent persists in each of two tenants', async () => {
    const tenants = await Promise.all([createTenant(owner, { sales: 'SALES' }), createTenant(owner, { sales: 'SALES' })]);
    for (const t of tenants) await giveRateCard(t.id, SANDBOX_RATE_CARD);
    const salesTokens = await Promise.all(tenants.map((t) => api.tokenFor(t.users.sales!)));
    const responses = await Promise.all(
      tenants.flatMap((_, i) =>
        Array.from({ length: 50 }, () => api.request('/api/v1/quotes/calculate', { method: 'POST', token: salesTokens[i], json: twoWindows({ persist: true }) })),
      ),
    );
    for (const res of responses) expect(res.status).toBe(200);
    for (const t of tenants) {
      const numbers = await owner.query<{ quote_number: number }>('select quote_number from quotes where organization_id = $1 order by 1', [t.id]);
      expect(numbers.rows.map((r) => r.quote_number)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    }
  });
});
