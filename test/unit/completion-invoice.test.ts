import { describe, expect, it } from '@jest/globals';
import { completionBilling, decideCustomerChange, describeMissingPrices, drawsBeyondQuote, missingPrices, partsConsumed, timeAndMaterials, TIME_AND_MATERIALS_TIER, UnpricedSkuError } from '../../domain/invoicing/completion-invoice';
import { buildRateCardSnapshot } from '../../domain/pricing/rate-card';
import { priceQuote } from '../../domain/pricing/engine';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import Decimal from 'decimal.js';
import { dollars } from '../../domain/money';
import { boldFigures, example, pricingSection, statedCents, statedFigure, table } from '../support/pricing-doc';

// Issue 30: the worked examples of docs/pricing.md section 13, priced to the cent. The figures
// expected are the document's own, read from its example tables.
const section13 = pricingSection(13);
const exampleA = table(example(section13, 'Example A'));
const exampleB = table(example(section13, 'Example B'));
/** The figures the document states after an example's table, in order (subtotal, tax, total, ...). */
const statedTotals = (t: { after: string }) => boldFigures(t.after);
const sumBySku = (items: readonly { sku: string; quantity: string }[], code: string) => items.filter((i) => i.sku === code).reduce((sum, i) => sum.plus(i.quantity), new Decimal(0));
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
  it("example A: the draws beyond the quote, priced on its revision at its applied margin, with the Ontario HST, as the document's table states", () => {
    expect(sectionNine.applied_margin).toBe('0.35');
    expect(Object.keys(exampleA.rows[0]!)).toEqual(['SKU', 'drawn', 'quoted', 'beyond', 'cost', `price at ${sectionNine.applied_margin}`]);
    // The table's rows are the SKUs drawn, with what was drawn and what the quote priced.
    expect(exampleA.rows.map((r) => r['SKU'])).toEqual([...new Set(EXAMPLE_A_DRAWS.map((d) => d.sku))]);
    for (const row of exampleA.rows) {
      expect([row['SKU'], sumBySku(EXAMPLE_A_DRAWS, row['SKU']!).eq(row['drawn']!), sumBySku(billOfMaterials, row['SKU']!).eq(row['quoted']!)]).toEqual([row['SKU'], true, true]);
    }
    const invoice = drawsBeyondQuote({ draws: EXAMPLE_A_DRAWS, billOfMaterials, skus, appliedMargin: sectionNine.applied_margin, region: null })!;
    // A row without a price is no line: nothing of that SKU was beyond the quote.
    const priced = exampleA.rows.filter((r) => statedFigure(r[`price at ${sectionNine.applied_margin}`]!) !== null);
    expect(priced.length).toBeGreaterThan(0);
    expect(invoice.lines.map((l) => [l.sku, l.quantity, l.amountCents])).toEqual(priced.map((r) => [r['SKU'], r['beyond'], statedCents(r[`price at ${sectionNine.applied_margin}`]!)]));
    const [subtotal, tax, total, ...inEvents] = statedTotals(exampleA);
    expect(invoice.subtotalCents).toBe(Number(subtotal));
    expect(invoice.tax.lines).toEqual([{ code: 'HST', rate: '0.13', amount_cents: Number(tax) }]);
    expect(invoice.subtotalCents + invoice.tax.total_cents).toBe(Number(total));
    expect([dollars(invoice.subtotalCents), dollars(invoice.tax.total_cents), dollars(invoice.subtotalCents + invoice.tax.total_cents)]).toEqual(inEvents.map(Number));
    expect(partsConsumed(EXAMPLE_A_DRAWS)).toEqual(EXAMPLE_A_DRAWS);
  });

  it("example B: time and materials at the STANDARD tier and the margin floor, with the Alberta GST, as the document's table states", () => {
    // The example's inputs as the document gives them: the seconds logged, and each table row a
    // labour line (`Labour, <hours> h at <tier>`) or a SKU and the quantity drawn.
    const seconds = /\((\d+) s\)/.exec(exampleB.before)?.[1];
    expect(seconds).toBeDefined();
    const rows = exampleB.rows.map((r) => {
      const labour = /^Labour, (\d+\.\d+) h at (\w+)$/.exec(r['line']!);
      const material = /^([A-Z0-9-]+) (\d+(?:\.\d+)?)$/.exec(r['line']!);
      if (!labour && !material) throw new Error(`example B: a line "${r['line']}" neither labour nor a SKU`);
      return labour ? { sku: null, quantity: labour[1]!, tier: labour[2], price: statedCents(r['price']!) } : { sku: material![1]!, quantity: material![2]!, price: statedCents(r['price']!) };
    });
    expect(rows.filter((r) => r.sku === null).map((r) => r.tier)).toEqual([TIME_AND_MATERIALS_TIER]);
    const draws = rows.flatMap((r) => (r.sku === null ? [] : [{ sku: r.sku, quantity: r.quantity, vanId: null }]));
    expect(draws.length).toBeGreaterThan(0);
    const invoice = timeAndMaterials({
      loggedSeconds: seconds!,
      labourTier: rateCard.labourTiers.get(TIME_AND_MATERIALS_TIER)!,
      draws,
      skus,
      marginFloor: rateCard.marginFloor,
      region: 'CA-AB',
    });
    expect(invoice.lines.map((l) => [l.sku, l.quantity, l.amountCents])).toEqual(rows.map((r) => [r.sku, r.quantity, r.price]));
    const [subtotal, tax, total] = statedTotals(exampleB);
    expect(invoice.subtotalCents).toBe(Number(subtotal));
    expect(invoice.tax.lines).toEqual([{ code: 'GST', rate: '0.05', amount_cents: Number(tax) }]);
    expect(invoice.subtotalCents + invoice.tax.total_cents).toBe(Number(total));
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

  it('D11: completing asks nothing of a job; its invoice goes to its quote, to its customer, or waits for a customer', () => {
    expect(completionBilling({ quoteId: 'q', customerId: null })).toBe('quote');
    expect(completionBilling({ quoteId: null, customerId: 'c' })).toBe('customer');
    expect(completionBilling({ quoteId: null, customerId: null })).toBe('awaiting_customer');
  });

  it("D11: the office sets a job's customer before completion freely, after it only to release an invoice waiting for one", () => {
    const job = (jobStatus: string, customerId: string | null, invoice: { customerId: string | null } | null = null, quoteId: string | null = null) => ({ quoteId, jobStatus, customerId, invoice });
    for (const status of ['scheduled', 'dispatched', 'in_progress', 'on_hold']) {
      expect(decideCustomerChange(job(status, null), 'c')).toEqual({ kind: 'apply', bindsInvoice: false });
      expect(decideCustomerChange(job(status, 'c'), 'd')).toEqual({ kind: 'apply', bindsInvoice: false });
      expect(decideCustomerChange(job(status, 'c'), null)).toEqual({ kind: 'apply', bindsInvoice: false });
    }
    expect(decideCustomerChange(job('in_progress', 'c'), 'c')).toEqual({ kind: 'unchanged' });
    expect(decideCustomerChange(job('complete', null, { customerId: null }), 'c')).toEqual({ kind: 'apply', bindsInvoice: true });
    expect(decideCustomerChange(job('complete', 'c', { customerId: 'c' }), 'd')).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/already billed/) });
    expect(decideCustomerChange(job('complete', null, { customerId: null }), null)).toEqual({ kind: 'unchanged' });
    expect(decideCustomerChange(job('complete', 'c', { customerId: 'c' }), null)).toMatchObject({ kind: 'refused' });
    expect(decideCustomerChange(job('complete', null, null), 'c')).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/nothing to bill/) });
    expect(decideCustomerChange(job('cancelled', null), 'c')).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/cancelled/) });
    expect(decideCustomerChange(job('scheduled', null, null, 'q'), 'c')).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/quote/) });
  });

  it('D11: what the price book lacks to price a completion invoice: the price book, the STANDARD tier (without a quote), the SKUs to bill that no revision prices', () => {
    const known = (code: string) => (code === 'HW-1' ? { code, component: 'hardware' as const, description: 'Roller', unit: 'each' as const, unitCostCents: '100' } : undefined);
    const draws = [
      { sku: 'GONE-2', quantity: '1', vanId: null },
      { sku: 'HW-1', quantity: '3', vanId: null },
      { sku: 'GONE-1', quantity: '2', vanId: null },
      { sku: 'GONE-2', quantity: '1', vanId: 'VAN-1' },
    ];
    // Without a quote: every drawn SKU is billed, and the time at STANDARD.
    expect(missingPrices({ draws, billOfMaterials: null, skus: known, labourTiers: new Set(['STANDARD', 'PREMIUM']) })).toEqual({ price_book: false, labour_tier: null, skus: ['GONE-2', 'GONE-1'] });
    expect(missingPrices({ draws: [], billOfMaterials: null, skus: known, labourTiers: new Set(['PREMIUM']) })).toEqual({ price_book: false, labour_tier: 'STANDARD', skus: [] });
    expect(missingPrices({ draws: [], billOfMaterials: null, skus: known, labourTiers: null })).toEqual({ price_book: true, labour_tier: 'STANDARD', skus: [] });
    expect(missingPrices({ draws: draws.slice(1, 2), billOfMaterials: null, skus: known, labourTiers: new Set(['STANDARD']) })).toBeNull();
    // With a quote: only the draws beyond its bill of materials are billed; no labour tier asked.
    expect(missingPrices({ draws, billOfMaterials: [{ sku: 'GONE-2', quantity: '2' }, { sku: 'GONE-1', quantity: '1' }], skus: known, labourTiers: null })).toEqual({ price_book: false, labour_tier: null, skus: ['GONE-1'] });
    expect(missingPrices({ draws, billOfMaterials: [{ sku: 'GONE-2', quantity: '2' }, { sku: 'GONE-1', quantity: '2' }], skus: known, labourTiers: null })).toBeNull();

    expect(describeMissingPrices({ price_book: true, labour_tier: 'STANDARD', skus: [] })).toBe('no price book; no STANDARD labour tier');
    expect(describeMissingPrices({ price_book: false, labour_tier: null, skus: ['GONE-1'] })).toBe('SKU GONE-1 priced by no revision');
    expect(describeMissingPrices({ price_book: false, labour_tier: 'STANDARD', skus: ['A', 'B'] })).toBe('no STANDARD labour tier; SKUs A, B priced by no revision');
  });
});
