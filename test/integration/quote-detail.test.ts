import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { SANDBOX_ALT_RATE_CARD, SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { CalculationResult, QuoteDetail, QuotePage } from '../../api/quotes/schemas';

let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
let other: Tenant;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  other = await createTenant(owner, { admin: 'ADMIN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  await giveRateCard(other.id, SANDBOX_ALT_RATE_CARD);
  for (const [name, user] of Object.entries(tenant.users)) tokens[name] = await api.tokenFor(user);
  tokens.otherAdmin = await api.tokenFor(other.users.admin!);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

async function persistQuote(token: string, body: Record<string, unknown> = twoWindows({ persist: true, customer: { name: 'Jordan Rivera', email: 'jordan@example.test' } })) {
  const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: body });
  expect(res.status).toBe(200);
  return CalculationResult.parse(await res.json());
}
const getQuote = (id: string, token: string) => api.request(`/api/v1/quotes/${id}`, { token });

describe('GET /api/v1/quotes/{id}', () => {
  it('answers the quote with its lines as asked for and its calculation exactly as calculate answered it', async () => {
    const request = twoWindows({ persist: true, targetMargin: 0.42, customer: { name: 'Jordan Rivera', email: 'jordan@example.test' } });
    const calculated = await persistQuote(tokens.sales!, request);
    const res = await getQuote(calculated.quote_id!, tokens.sales!);
    expect(res.status).toBe(200);
    const detail = QuoteDetail.parse(await res.json());
    expect(detail.calculation).toEqual(calculated);
    expect(detail).toMatchObject({
      id: calculated.quote_id,
      quote_number: calculated.quote_number,
      status: 'DRAFT',
      total_amount_cents: calculated.totals.amount_cents,
      margin_percent: calculated.totals.margin_percent,
      customer_name: 'Jordan Rivera',
      customer_email: 'jordan@example.test',
      created_by: { id: tenant.users.sales!.id, email: tenant.users.sales!.email },
      override_reason: null,
      sent_at: null,
      approved_at: null,
      paid_at: null,
    });
    const asked = (request.lineItems as Record<string, unknown>[]).map((line, position) => ({
      position,
      reference: line.reference ?? null,
      width_inches: line.widthInches,
      drop_inches: line.dropInches,
      quantity: line.quantity,
      fabric_sku_code: line.fabricSkuCode,
      hardware_sku_code: line.hardwareSkuCode,
      motor_sku_code: line.motorSkuCode ?? null,
      trim_sku_code: line.trimSkuCode ?? null,
      cost_cents: calculated.line_items[position]!.cost_cents,
      price_cents: calculated.line_items[position]!.price_cents,
    }));
    expect(detail.lines).toEqual(asked);
  });

  it('keeps the QuoteSummary fields the list answers, and follows the quote through its lifecycle', async () => {
    const calculated = await persistQuote(tokens.admin!);
    const id = calculated.quote_id!;
    const listed = QuotePage.parse(await (await api.request('/api/v1/quotes?limit=100', { token: tokens.admin })).json()).data.find((q) => q.id === id)!;
    const before = QuoteDetail.parse(await (await getQuote(id, tokens.admin!)).json());
    expect(Object.fromEntries(Object.keys(listed).map((k) => [k, before[k as keyof typeof before]]))).toEqual(listed);

    expect((await api.request(`/api/v1/quotes/${id}/send`, { method: 'POST', token: tokens.sales })).status).toBe(200);
    expect((await api.request(`/api/v1/quotes/${id}/approve`, { method: 'POST', token: tokens.sales })).status).toBe(200);
    const after = QuoteDetail.parse(await (await getQuote(id, tokens.sales!)).json());
    expect(after.status).toBe('APPROVED');
    expect(after.calculation.status).toBe('APPROVED');
    expect(after.sent_at).not.toBeNull();
    expect(after.approved_at).not.toBeNull();
    expect(Date.parse(after.approved_at!)).toBeGreaterThanOrEqual(Date.parse(after.sent_at!));
    // The figures do not move after approval (D3: the calculation is frozen).
    expect(after.calculation.totals).toEqual(calculated.totals);
  });

  it('shows the reason of an ADMIN override of the margin floor', async () => {
    const calculated = await persistQuote(tokens.admin!, twoWindows({ persist: true, targetMargin: 0.2, marginOverride: { reason: 'Matching a competitor for a repeat customer' } }));
    const detail = QuoteDetail.parse(await (await getQuote(calculated.quote_id!, tokens.admin!)).json());
    expect(detail.override_reason).toBe('Matching a competitor for a repeat customer');
    expect(detail.calculation.floor_overridden).toBe(true);
  });

  it('D4 roles: ADMIN and SALES read it, a TECHNICIAN is refused (it carries cost and margin)', async () => {
    const { quote_id } = await persistQuote(tokens.sales!);
    expect((await getQuote(quote_id!, tokens.admin!)).status).toBe(200);
    expect((await getQuote(quote_id!, tokens.sales!)).status).toBe(200);
    const tech = await getQuote(quote_id!, tokens.tech!);
    expect(tech.status).toBe(403);
    expect(await tech.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect((await api.request(`/api/v1/quotes/${quote_id}`)).status).toBe(401);
  });

  it("another tenant's quote is a 404, as is an unknown id; a malformed id is a 422", async () => {
    const { quote_id } = await persistQuote(tokens.sales!);
    const foreign = await getQuote(quote_id!, tokens.otherAdmin!);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await getQuote('00000000-0000-4000-8000-000000000000', tokens.admin!)).status).toBe(404);
    const malformed = await getQuote('not-a-uuid', tokens.admin!);
    expect(malformed.status).toBe(422);
    expect(await malformed.json()).toMatchObject({ error: { code: 'validation_failed', details: { fields: { id: expect.any(String) } } } });
  });
});
