import { describe, expect, it } from '@jest/globals';
import { completionRequirement, drawsBeyondQuote, partsConsumed, timeAndMaterials, TIME_AND_MATERIALS_TIER, UnpricedSkuError } from '../../domain/invoicing/completion-invoice';
import { buildRateCardSnapshot } from '../../domain/pricing/rate-card';
import { priceQuote } from '../../domain/pricing/engine';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { dollars } from '../../domain/money';

// Issue 30: the worked examples of docs/pricing.md section 13, priced to the cent.
const rateCard = buildRateCardSnapshot({ revision: '2026-11-21T00:00:00.000Z', settings: SANDBOX_RATE_CARD.settings, skus: SANDBOX_RATE_CARD.skus, labourTiers: SANDBOX_RATE_CARD.labourTiers });
const skus = (code: string) => rateCard.skus.get(code);

/** Section 9's quote, priced by the engine: its bill of materials is its components, summed per SKU. */
const sectionNine = priceQuote({
  request: {
    laborTierCode: 'PREMIUM',
    lineItems: [
      { reference: 'Living room', widthInches: 48.5, dropInches: 72, quantity: 2, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD', motorSkuCode: 'MTR-BATTERY', trimSkuCode: 'TRIM-CASSETTE' },
      { reference: 'Bedroom', widthInches: 35.25, dropInches: 60, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD', trimSkuCode: 'TRIM-FASCIA' },
    ],
  },
  rateCard,
  overrideAuthorised: false,
});
const billOfMaterials = sectionNine.line_items.flatMap((line) => line.components.filter((c) => c.sku_code !== null).map((c) => ({ sku: c.sku_code!, quantity: c.quantity })));

const EXAMPLE_A_DRAWS = [
  { sku: 'HW-ROLLER-STD', quantity: '8', vanId: 'VAN-1' },
  { sku: 'MTR-BATTERY', quantity: '2', vanId: 'VAN-1' },
  { sku: 'TRIM-FASCIA', quantity: '3', vanId: 'VAN-1' },
  { sku: 'TRIM-FASCIA', quantity: '1.5', vanId: 'VAN-2' },
  { sku: 'MTR-WIRED', quantity: '1', vanId: 'VAN-2' },
];

describe('completion invoices (issue 30, docs/pricing.md section 13)', () => {
  it('example A: the draws beyond the quote, priced on its revision at its applied margin, with the Ontario HST', () => {
    expect(sectionNine.applied_margin).toBe('0.35');
    expect(billOfMaterials.filter((b) => ['HW-ROLLER-STD', 'TRIM-FASCIA'].includes(b.sku))).toEqual([
      { sku: 'HW-ROLLER-STD', quantity: '7.8958' },
      { sku: 'TRIM-FASCIA', quantity: '2.9375' },
    ]);
    const invoice = drawsBeyondQuote({ draws: EXAMPLE_A_DRAWS, billOfMaterials, skus, appliedMargin: sectionNine.applied_margin, region: null })!;
    expect(invoice.lines.map((l) => [l.sku, l.quantity, l.amountCents])).toEqual([
      ['HW-ROLLER-STD', '0.1042', 117],
      ['TRIM-FASCIA', '1.5625', 2074],
      ['MTR-WIRED', '1', 30539],
    ]);
    expect(invoice.subtotalCents).toBe(32730);
    expect(invoice.tax.lines).toEqual([{ code: 'HST', rate: '0.13', amount_cents: 4255 }]);
    expect([dollars(invoice.subtotalCents), dollars(invoice.tax.total_cents), dollars(invoice.subtotalCents + invoice.tax.total_cents)]).toEqual([327.3, 42.55, 369.85]);
    expect(partsConsumed(EXAMPLE_A_DRAWS)).toEqual(EXAMPLE_A_DRAWS);
  });

  it('example B: time and materials at the STANDARD tier and the margin floor, with the Alberta GST', () => {
    const invoice = timeAndMaterials({
      loggedSeconds: '12000',
      labourTier: rateCard.labourTiers.get(TIME_AND_MATERIALS_TIER)!,
      draws: [
        { sku: 'HW-ROLLER-STD', quantity: '4.5', vanId: 'VAN-1' },
        { sku: 'FAB-SCREEN-3', quantity: '12.25', vanId: null },
      ],
      skus,
      marginFloor: rateCard.marginFloor,
      region: 'CA-AB',
    });
    expect(invoice.lines.map((l) => [l.sku, l.quantity, l.amountCents])).toEqual([
      [null, '3.33', 28333],
      ['HW-ROLLER-STD', '4.5', 5020],
      ['FAB-SCREEN-3', '12.25', 8245],
    ]);
    expect(invoice.subtotalCents).toBe(41598);
    expect(invoice.tax.lines).toEqual([{ code: 'GST', rate: '0.05', amount_cents: 2080 }]);
    expect(invoice.subtotalCents + invoice.tax.total_cents).toBe(43678);
  });

  it('nothing beyond the quote is no second invoice; drawing less than quoted credits nothing', () => {
    const within = billOfMaterials.map((b) => ({ sku: b.sku, quantity: b.quantity, vanId: null }));
    expect(drawsBeyondQuote({ draws: within, billOfMaterials, skus, appliedMargin: '0.35', region: null })).toBeNull();
    expect(drawsBeyondQuote({ draws: [{ sku: 'MTR-BATTERY', quantity: '1', vanId: 'VAN-1' }], billOfMaterials, skus, appliedMargin: '0.35', region: null })).toBeNull();
  });

  it('logged time is exact: 20 minutes are a third of an hour, and a job of draws alone has no labour line', () => {
    const tier = rateCard.labourTiers.get(TIME_AND_MATERIALS_TIER)!;
    const third = timeAndMaterials({ loggedSeconds: '1200', labourTier: tier, draws: [], skus, marginFloor: '0.35', region: null });
    // 1200 * 8500 / 3600 = 2833.33… → 2833 (0.33 h * 8500 would be 2805).
    expect(third.lines).toEqual([{ description: 'Labour, 0.33 h at Standard installation (STANDARD)', sku: null, quantity: '0.33', amountCents: 2833 }]);
    const drawsOnly = timeAndMaterials({ loggedSeconds: '0', labourTier: tier, draws: [{ sku: 'MTR-WIRED', quantity: '1', vanId: null }], skus, marginFloor: '0.35', region: 'CA-QC' });
    expect(drawsOnly.lines.map((l) => l.sku)).toEqual(['MTR-WIRED']);
    expect(drawsOnly.tax.lines.map((l) => l.code)).toEqual(['GST', 'QST']);
  });

  it('a SKU no revision prices is refused by name', () => {
    expect(() => timeAndMaterials({ loggedSeconds: '0', labourTier: rateCard.labourTiers.get('STANDARD')!, draws: [{ sku: 'GONE-1', quantity: '1', vanId: null }], skus, marginFloor: '0.35', region: null })).toThrow(UnpricedSkuError);
  });

  it('a job without a quote needs a customer to complete; one with a quote does not', () => {
    expect(completionRequirement({ quoteId: null, customerId: null })).toMatchObject({ field: 'customer_id' });
    expect(completionRequirement({ quoteId: null, customerId: 'c' })).toBeNull();
    expect(completionRequirement({ quoteId: 'q', customerId: null })).toBeNull();
  });
});
