import { describe, expect, it } from '@jest/globals';
import { priceChangeOrder } from '../../domain/pricing/change-order-pricing';
import { dollars } from '../../domain/money';
import { buildRateCardSnapshot } from '../../domain/pricing/rate-card';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { quoteTax } from '../../domain/tax/quote-tax';

// D12: the worked example of docs/pricing.md section 10, priced to the cent.
const rateCard = buildRateCardSnapshot({
  revision: '2026-11-21T00:00:00.000Z',
  settings: SANDBOX_RATE_CARD.settings,
  skus: SANDBOX_RATE_CARD.skus,
  labourTiers: SANDBOX_RATE_CARD.labourTiers,
});
const BEDROOM = { reference: 'Bedroom', widthInches: 35.25, dropInches: 60, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD', trimSkuCode: 'TRIM-FASCIA' };

describe('change-order pricing (D12, docs/pricing.md section 10)', () => {
  it('prices the worked example to the cent, the floor engaged', () => {
    const priced = priceChangeOrder({ lineItems: [BEDROOM], extraLabourHours: '1.5', rateCard, labourTierCode: 'PREMIUM', quoteMargin: '0.35', tenantFloor: '0.40' });
    expect(priced).toMatchObject({ labourHours: '2.8047', materialCostCents: 12992, directCostCents: 45246, sellCents: 75410, appliedMargin: '0.4', floorEngaged: true });
    expect(priced.lines!.line_items[0]!.cost_cents).toBe(27996);
    expect(priced.lines!.line_items[0]!.price_cents).toBe(46660);
    expect(priced.extraLabour).toEqual({ hours: '1.5', cost_cents: 17250, price_cents: 28750 });
    expect([dollars(12992), dollars(45246), dollars(75410), dollars(261099), dollars(261099 + 75410)]).toEqual([129.92, 452.46, 754.1, 2610.99, 3365.09]);
    expect(dollars(quoteTax(null, 75410).total_cents)).toBe(98.03);
  });

  it('keeps the quote margin when it meets the floor, and prices negative hours as a credit', () => {
    const priced = priceChangeOrder({ lineItems: [], extraLabourHours: '-1.5', rateCard, labourTierCode: 'PREMIUM', quoteMargin: '0.45', tenantFloor: '0.35' });
    expect(priced).toMatchObject({ labourHours: '-1.5', materialCostCents: 0, directCostCents: -17250, appliedMargin: '0.45', floorEngaged: false, lines: null });
    // 17250 / 0.55 = 31363.63… → 31364, credited.
    expect(priced.sellCents).toBe(-31364);
  });

  it('refuses what the engine refuses: an unknown SKU, an unknown tier', () => {
    expect(() => priceChangeOrder({ lineItems: [{ ...BEDROOM, fabricSkuCode: 'FAB-NOPE' }], extraLabourHours: '0', rateCard, labourTierCode: 'PREMIUM', quoteMargin: '0.35', tenantFloor: '0.35' })).toThrow(/FAB-NOPE/);
    expect(() => priceChangeOrder({ lineItems: [], extraLabourHours: '1', rateCard, labourTierCode: 'NOPE', quoteMargin: '0.35', tenantFloor: '0.35' })).toThrow(/NOPE/);
  });
});
