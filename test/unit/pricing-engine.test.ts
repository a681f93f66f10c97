import { describe, expect, it } from '@jest/globals';
import { priceQuote } from '../../domain/pricing/engine';
import type { PricedQuote } from '../../domain/pricing/reference-engine';
import {
  MarginBelowFloorError,
  MarginOverrideNotAuthorisedError,
  PricingError,
  SkuComponentMismatchError,
  UnknownLabourTierError,
  UnknownSkuError,
  UnpriceableInputError,
} from '../../domain/pricing/errors';
import { buildRateCardSnapshot } from '../../domain/pricing/rate-card';
import type { RateCardSettings, RateCardSku, RateCardSnapshot } from '../../domain/pricing/rate-card';
import { EXAMPLE_SETTINGS, EXAMPLE_SKUS, EXAMPLE_TIERS } from '../../scripts/harness/worked-example-card';
import type { CalculationLineItem, CalculationRequest } from '../../domain/pricing/request';
import { SANDBOX_ALT_RATE_CARD, SANDBOX_RATE_CARD, SANDBOX_RATE_CARDS } from '../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_TENANTS } from '../../db/sandbox';

function exampleRateCard(overrides: Partial<RateCardSettings> = {}, skus: RateCardSku[] = EXAMPLE_SKUS): RateCardSnapshot {
  return buildRateCardSnapshot({
    revision: '2026-11-21T00:00:00.000Z',
    settings: { ...EXAMPLE_SETTINGS, ...overrides },
    skus,
    labourTiers: EXAMPLE_TIERS,
  });
}

const EXAMPLE_REQUEST: CalculationRequest = {
  laborTierCode: 'PREMIUM',
  lineItems: [
    {
      reference: 'Living room',
      widthInches: 48.5,
      dropInches: 72,
      quantity: 2,
      fabricSkuCode: 'FAB-SCREEN-3',
      hardwareSkuCode: 'HW-ROLLER-STD',
      motorSkuCode: 'MTR-BATTERY',
      trimSkuCode: 'TRIM-CASSETTE',
    },
    {
      reference: 'Bedroom',
      widthInches: 35.25,
      dropInches: 60,
      quantity: 1,
      fabricSkuCode: 'FAB-BLACKOUT',
      hardwareSkuCode: 'HW-ROLLER-HD',
      trimSkuCode: 'TRIM-FASCIA',
    },
  ],
};

const line = (overrides: Partial<CalculationLineItem> = {}): CalculationLineItem => ({
  widthInches: 36,
  dropInches: 48,
  quantity: 1,
  fabricSkuCode: 'FAB-SCREEN-3',
  hardwareSkuCode: 'HW-ROLLER-STD',
  ...overrides,
});

function price(request: Partial<CalculationRequest>, rateCard = exampleRateCard(), overrideAuthorised = false): PricedQuote {
  return priceQuote({ request: { laborTierCode: 'STANDARD', lineItems: [line()], ...request }, rateCard, overrideAuthorised });
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('pricing engine: the worked example of docs/pricing.md section 9 (D2)', () => {
  it('prices the two-line example to the cent', () => {
    const result = priceQuote({ request: EXAMPLE_REQUEST, rateCard: exampleRateCard(), overrideAuthorised: false });
    expect(result).toStrictEqual({
      currency: 'CAD',
      labor_tier: { code: 'PREMIUM', name: 'Premium installation', hourly_rate_cents: 11500, multiplier: '1.25' },
      margin_floor: '0.35',
      applied_margin: '0.35',
      floor_overridden: false,
      target_margin: '0.35',
      line_items: [
        {
          reference: 'Living room',
          width_inches: 48.5,
          drop_inches: 72,
          quantity: 2,
          opening_square_feet: '48.5000',
          fabric_square_feet_with_waste: '60.3168',
          labour_hours: '4.3376',
          cut_list: {
            tube_length_inches: '47.3750',
            hembar_length_inches: '47.1250',
            fabric_width_inches: '47.0000',
            fabric_drop_inches: '84.0000',
            fabric_square_feet: '27.4167',
          },
          components: [
            { component: 'fabric', sku_code: 'FAB-SCREEN-3', description: 'Solar screen fabric, 3% openness', quantity: '60.3168', unit: 'sq_ft', unit_cost_cents: '437.5', extended_cost_cents: 26389 },
            { component: 'hardware', sku_code: 'HW-ROLLER-STD', description: 'Roller hardware, 1.5 in tube with brackets and clutch', quantity: '7.8958', unit: 'linear_ft', unit_cost_cents: '725', extended_cost_cents: 5724 },
            { component: 'motor', sku_code: 'MTR-BATTERY', description: 'Rechargeable battery motor with remote', quantity: '2.0000', unit: 'each', unit_cost_cents: '23900', extended_cost_cents: 47800 },
            { component: 'trim', sku_code: 'TRIM-CASSETTE', description: 'Aluminium cassette valance', quantity: '8.0834', unit: 'linear_ft', unit_cost_cents: '1475', extended_cost_cents: 11923 },
            { component: 'labour', sku_code: null, description: 'Installation labour, Premium installation', quantity: '4.3376', unit: 'hour', unit_cost_cents: '11500', extended_cost_cents: 49882 },
          ],
          cost_cents: 141718,
          price_cents: 218028,
        },
        {
          reference: 'Bedroom',
          width_inches: 35.25,
          drop_inches: 60,
          quantity: 1,
          opening_square_feet: '14.6875',
          fabric_square_feet_with_waste: '18.5625',
          labour_hours: '1.3047',
          cut_list: {
            tube_length_inches: '34.1250',
            hembar_length_inches: '33.8750',
            fabric_width_inches: '33.7500',
            fabric_drop_inches: '72.0000',
            fabric_square_feet: '16.8750',
          },
          components: [
            { component: 'fabric', sku_code: 'FAB-BLACKOUT', description: 'Blackout fabric, vinyl-backed', quantity: '18.5625', unit: 'sq_ft', unit_cost_cents: '396.75', extended_cost_cents: 7365 },
            { component: 'hardware', sku_code: 'HW-ROLLER-HD', description: 'Heavy-duty roller hardware, 2 in tube with brackets and clutch', quantity: '2.8438', unit: 'linear_ft', unit_cost_cents: '1087.5', extended_cost_cents: 3093 },
            { component: 'trim', sku_code: 'TRIM-FASCIA', description: 'Fascia cover, fabric-wrapped', quantity: '2.9375', unit: 'linear_ft', unit_cost_cents: '862.5', extended_cost_cents: 2534 },
            { component: 'labour', sku_code: null, description: 'Installation labour, Premium installation', quantity: '1.3047', unit: 'hour', unit_cost_cents: '11500', extended_cost_cents: 15004 },
          ],
          cost_cents: 27996,
          price_cents: 43071,
        },
      ],
      totals: { cost_cents: 169714, amount_cents: 261099, profit_cents: 91385, margin_percent: '0.3500' },
      assumptions: {
        fabric_waste_factor: '0.1',
        labour_base_hours_per_unit: '0.75',
        labour_hours_per_square_foot: '0.02',
        labour_motorisation_hours: '0.5',
      },
    });
  });

  it('prices the documented variant at targetMargin 0.4 (above the floor, accepted)', () => {
    const result = priceQuote({ request: { ...EXAMPLE_REQUEST, targetMargin: 0.4 }, rateCard: exampleRateCard(), overrideAuthorised: false });
    expect(result.applied_margin).toBe('0.4');
    expect(result.target_margin).toBe('0.4');
    expect(result.floor_overridden).toBe(false);
    expect(result.line_items.map((l) => [l.cost_cents, l.price_cents])).toEqual([
      [141718, 236197],
      [27996, 46660],
    ]);
    expect(result.totals).toEqual({ cost_cents: 169714, amount_cents: 282857, profit_cents: 113143, margin_percent: '0.4000' });
  });

  it('matches the documented example on the sandbox tenant data too (D1)', () => {
    const sandbox = buildRateCardSnapshot({ revision: 'r', ...SANDBOX_RATE_CARD });
    expect(priceQuote({ request: EXAMPLE_REQUEST, rateCard: sandbox, overrideAuthorised: false }).totals.amount_cents).toBe(261099);
  });
});

describe('pricing engine: margin rules (spec 4.3 rules 1-3, D2)', () => {
  it('prices at the floor when targetMargin is omitted', () => {
    const result = price({});
    expect(result.applied_margin).toBe('0.35');
    expect(result.margin_floor).toBe('0.35');
    expect(result.floor_overridden).toBe(false);
  });

  it('accepts a target equal to the floor without an override', () => {
    expect(price({ targetMargin: 0.35 }).floor_overridden).toBe(false);
  });

  it('ignores an override that is not needed', () => {
    const result = price({ targetMargin: 0.5, marginOverride: { reason: 'not needed at all' } });
    expect(result.applied_margin).toBe('0.5');
    expect(result.floor_overridden).toBe(false);
  });

  it('applies an authorised override below the floor and says so', () => {
    const result = price({ targetMargin: 0.2, marginOverride: { reason: 'volume deal, approved' } }, exampleRateCard(), true);
    expect(result.applied_margin).toBe('0.2');
    expect(result.target_margin).toBe('0.2');
    expect(result.floor_overridden).toBe(true);
    // price = ceiling(cost / 0.8), checked in integers: the smallest p with p * 4 >= cost * 5.
    for (const l of result.line_items) {
      expect(l.price_cents * 4).toBeGreaterThanOrEqual(l.cost_cents * 5);
      expect((l.price_cents - 1) * 4).toBeLessThan(l.cost_cents * 5);
    }
  });

  it('refuses a target below the floor without an override: 400 naming the values', () => {
    const error = thrown(() => price({ targetMargin: 0.2 }, exampleRateCard(), true));
    expect(error).toBeInstanceOf(MarginBelowFloorError);
    expect(error).toMatchObject({ kind: 'bad_request', targetMargin: '0.2', marginFloor: '0.35' });
    expect((error as Error).message).toContain('0.2');
    expect((error as Error).message).toContain('0.35');
  });

  it('refuses an override by a caller who may not override: 403', () => {
    const error = thrown(() => price({ targetMargin: 0.1, marginOverride: { reason: 'sales rep wants it' } }));
    expect(error).toBeInstanceOf(MarginOverrideNotAuthorisedError);
    expect(error).toBeInstanceOf(PricingError);
    expect(error).toMatchObject({ kind: 'forbidden' });
  });

  it('compares exactly: a hair under the floor is below it', () => {
    expect(() => price({ targetMargin: 0.34999999 })).toThrow(MarginBelowFloorError);
  });

  it('refuses a target margin outside [0, 1) that slipped past validation', () => {
    for (const targetMargin of [1, -0.1, Number.NaN]) {
      const error = thrown(() => price({ targetMargin }));
      expect(error).toBeInstanceOf(UnpriceableInputError);
      expect(error).toMatchObject({ kind: 'bad_request', field: 'targetMargin' });
    }
  });

  it('never realises less than the applied margin on a line (price rounds up, D2)', () => {
    // 101 / 0.65 = 155.38: half-up would give 155, a realised margin of 0.3484 < 0.35.
    const zeroLabour = exampleRateCard({ labourBaseHoursPerUnit: '0', labourHoursPerSquareFoot: '0' }, [
      { code: 'F', component: 'fabric', description: 'f', unit: 'each', unitCostCents: '101' },
      { code: 'H', component: 'hardware', description: 'h', unit: 'each', unitCostCents: '0' },
    ]);
    const result = price({ lineItems: [line({ fabricSkuCode: 'F', hardwareSkuCode: 'H' })] }, zeroLabour);
    expect(result.line_items[0]?.cost_cents).toBe(101);
    expect(result.line_items[0]?.price_cents).toBe(156);
    expect(result.totals.margin_percent).toBe('0.3526');
  });

  it('prices a quote whose every cost is zero at zero, with margin_percent 0', () => {
    const free = buildRateCardSnapshot({
      revision: 'r',
      settings: EXAMPLE_SETTINGS,
      skus: [
        { code: 'F', component: 'fabric', description: 'f', unit: 'sq_ft', unitCostCents: '0' },
        { code: 'H', component: 'hardware', description: 'h', unit: 'each', unitCostCents: '0' },
      ],
      labourTiers: [{ code: 'STANDARD', name: 'Volunteer', hourlyRateCents: 0, multiplier: '1' }],
    });
    const result = price({ lineItems: [line({ fabricSkuCode: 'F', hardwareSkuCode: 'H' })] }, free);
    expect(result.totals).toEqual({ cost_cents: 0, amount_cents: 0, profit_cents: 0, margin_percent: '0.0000' });
  });
});

describe('pricing engine: refused codes (spec 4.3 rule 6)', () => {
  it('refuses an unknown SKU with its code and field path', () => {
    const error = thrown(() => price({ lineItems: [line(), line({ fabricSkuCode: 'FAB-NOPE' })] }));
    expect(error).toBeInstanceOf(UnknownSkuError);
    expect(error).toMatchObject({ kind: 'bad_request', skuCode: 'FAB-NOPE', field: 'lineItems.1.fabricSkuCode' });
    expect((error as Error).message).toContain('FAB-NOPE');
    expect((error as Error).message).toContain('lineItems.1.fabricSkuCode');
    expect((error as Error).name).toBe('UnknownSkuError');
    expect(error).toBeInstanceOf(PricingError);
  });

  it('names the field of each SKU slot', () => {
    const cases: [Partial<CalculationLineItem>, string][] = [
      [{ hardwareSkuCode: 'X' }, 'lineItems.0.hardwareSkuCode'],
      [{ motorSkuCode: 'X' }, 'lineItems.0.motorSkuCode'],
      [{ trimSkuCode: 'X' }, 'lineItems.0.trimSkuCode'],
    ];
    for (const [overrides, field] of cases) {
      expect(thrown(() => price({ lineItems: [line(overrides)] }))).toMatchObject({ skuCode: 'X', field });
    }
  });

  it('treats an SKU missing from the snapshot (inactive) as unknown', () => {
    const withoutWired = exampleRateCard({}, EXAMPLE_SKUS.filter((s) => s.code !== 'MTR-WIRED'));
    expect(() => price({ lineItems: [line({ motorSkuCode: 'MTR-WIRED' })] }, withoutWired)).toThrow(UnknownSkuError);
  });

  it('refuses a SKU of the wrong component, naming the code', () => {
    const error = thrown(() => price({ lineItems: [line({ hardwareSkuCode: 'FAB-BLACKOUT' })] }));
    expect(error).toBeInstanceOf(SkuComponentMismatchError);
    expect(error).toMatchObject({
      kind: 'bad_request',
      skuCode: 'FAB-BLACKOUT',
      field: 'lineItems.0.hardwareSkuCode',
      expected: 'hardware',
      actual: 'fabric',
    });
    expect((error as Error).message).toContain('FAB-BLACKOUT');
  });

  it('refuses an unknown labour tier, naming the code', () => {
    const error = thrown(() => price({ laborTierCode: 'GOLD' }));
    expect(error).toBeInstanceOf(UnknownLabourTierError);
    expect(error).toMatchObject({ kind: 'bad_request', tierCode: 'GOLD', field: 'laborTierCode' });
    expect((error as Error).message).toContain('GOLD');
  });

  it('refuses a shade narrower than the cut deductions', () => {
    const error = thrown(() => price({ lineItems: [line(), line({ widthInches: 1.25 })] }));
    expect(error).toBeInstanceOf(UnpriceableInputError);
    expect(error).toMatchObject({ kind: 'bad_request', field: 'lineItems.1.widthInches' });
  });

  it('refuses a quote too large for exact integer cents', () => {
    const error = thrown(() => price({ lineItems: [line({ widthInches: 1e12, dropInches: 1e12, quantity: 500 })] }));
    expect(error).toBeInstanceOf(UnpriceableInputError);
  });
});

describe('pricing engine: quantities per unit kind (docs/pricing.md step 5)', () => {
  const odd: RateCardSku[] = [
    { code: 'F-LIN', component: 'fabric', description: 'fabric by the running foot', unit: 'linear_ft', unitCostCents: '1000' },
    { code: 'F-EACH', component: 'fabric', description: 'fabric kit', unit: 'each', unitCostCents: '1000' },
    { code: 'H-SQ', component: 'hardware', description: 'hardware by area', unit: 'sq_ft', unitCostCents: '100' },
    { code: 'H-EACH', component: 'hardware', description: 'hardware kit', unit: 'each', unitCostCents: '5000' },
    { code: 'M-LIN', component: 'motor', description: 'motor by tube foot', unit: 'linear_ft', unitCostCents: '100' },
    { code: 'T-LIN', component: 'trim', description: 'trim', unit: 'linear_ft', unitCostCents: '100' },
    { code: 'T-SQ', component: 'trim', description: 'trim by area', unit: 'sq_ft', unitCostCents: '100' },
  ];
  const card = exampleRateCard({}, odd);
  const quantities = (l: CalculationLineItem) =>
    price({ lineItems: [l] }, card).line_items[0]?.components.map((c) => [c.sku_code, c.quantity, c.unit]);

  it('measures fabric, hardware, motor and trim as documented', () => {
    // 36 x 48 in, 3 shades: tube 34.875, fabric drop 60, opening 12 sq ft.
    expect(quantities(line({ widthInches: 36, dropInches: 48, quantity: 3, fabricSkuCode: 'F-LIN', hardwareSkuCode: 'H-SQ', motorSkuCode: 'M-LIN', trimSkuCode: 'T-LIN' }))).toEqual([
      ['F-LIN', '16.5000', 'linear_ft'], // 60 * 1.1 / 12 = 5.5 per shade
      ['H-SQ', '36.0000', 'sq_ft'], // opening 12 per shade
      ['M-LIN', '8.7189', 'linear_ft'], // 34.875 / 12 = 2.90625 -> 2.9063 per shade
      ['T-LIN', '9.0000', 'linear_ft'], // full width 36 / 12 = 3 per shade
      [null, '4.4700', 'hour'], // (0.75 + 0.02 * 12 + 0.5 motor) * 1 = 1.49 per shade
    ]);
    expect(quantities(line({ quantity: 2, fabricSkuCode: 'F-EACH', hardwareSkuCode: 'H-EACH', trimSkuCode: 'T-SQ' }))?.slice(0, 3)).toEqual([
      ['F-EACH', '2.0000', 'each'],
      ['H-EACH', '2.0000', 'each'],
      ['T-SQ', '24.0000', 'sq_ft'],
    ]);
  });

  it('adds the motorisation hours only when a motor is fitted, and scales hours by the tier multiplier', () => {
    const hours = (l: CalculationLineItem, laborTierCode = 'STANDARD') => price({ laborTierCode, lineItems: [l] }).line_items[0]?.labour_hours;
    // 36 x 48: opening 12 sq ft; 0.75 + 0.24 = 0.99 h, + 0.5 h with a motor; PREMIUM x 1.25.
    expect(hours(line())).toBe('0.9900');
    expect(hours(line({ motorSkuCode: 'MTR-WIRED' }))).toBe('1.4900');
    expect(hours(line({ motorSkuCode: 'MTR-WIRED' }), 'PREMIUM')).toBe('1.8625');
    expect(hours(line({ quantity: 4 }), 'PREMIUM')).toBe('4.9500'); // 1.2375 per shade x 4
  });
});

describe('pricing engine: behaviour', () => {
  it('does not modify its inputs and echoes the request numbers', () => {
    const request: CalculationRequest = structuredClone({ ...EXAMPLE_REQUEST, customer: { name: 'Pat' }, persist: true });
    const before = structuredClone(request);
    const result = priceQuote({ request: Object.freeze(request), rateCard: exampleRateCard(), overrideAuthorised: false });
    expect(request).toEqual(before);
    expect(result.line_items[1]).toMatchObject({ reference: 'Bedroom', width_inches: 35.25, drop_inches: 60, quantity: 1 });
    expect(priceQuote({ request: { laborTierCode: 'STANDARD', lineItems: [line()] }, rateCard: exampleRateCard(), overrideAuthorised: false }).line_items[0]?.reference).toBeNull();
  });

  it('reads JSON numbers by their decimal text, not their binary value', () => {
    // 0.1 + 0.2 is not 0.3 in binary; the engine must still see the widths it was sent.
    const result = price({ lineItems: [line({ widthInches: 36.1, dropInches: 48.3 })] });
    expect(result.line_items[0]?.cut_list.tube_length_inches).toBe('34.9750');
    expect(result.line_items[0]?.cut_list.fabric_drop_inches).toBe('60.3000');
  });
});

describe('sandbox rate cards (D1)', () => {
  const codes = (card: typeof SANDBOX_RATE_CARD) => ({
    skus: card.skus.map((s) => `${s.component}:${s.code}`).sort(),
    tiers: card.labourTiers.map((t) => t.code).sort(),
  });

  it('carry exactly the D1 catalogue codes in both tenants', () => {
    const expected = {
      skus: [
        'fabric:FAB-BLACKOUT',
        'fabric:FAB-SCREEN-3',
        'hardware:HW-ROLLER-HD',
        'hardware:HW-ROLLER-STD',
        'motor:MTR-BATTERY',
        'motor:MTR-WIRED',
        'trim:TRIM-CASSETTE',
        'trim:TRIM-FASCIA',
      ],
      tiers: ['PREMIUM', 'STANDARD'],
    };
    expect(SANDBOX_RATE_CARDS.map((c) => c.subdomain)).toEqual(['sandbox', 'sandbox-alt']);
    for (const card of SANDBOX_RATE_CARDS) expect(codes(card)).toEqual(expected);
  });

  it('use the D1 floors, the same as db/sandbox.ts', () => {
    expect(SANDBOX_RATE_CARD.settings.marginFloor).toBe('0.35');
    expect(SANDBOX_ALT_RATE_CARD.settings.marginFloor).toBe('0.30');
    for (const tenant of SANDBOX_TENANTS) {
      const card = SANDBOX_RATE_CARDS.find((c) => c.subdomain === tenant.subdomain);
      expect(card?.settings.marginFloor).toBe(tenant.marginFloor);
    }
  });

  it('price differently per tenant, and both price every combination', () => {
    const sandbox = buildRateCardSnapshot({ revision: 'r', ...SANDBOX_RATE_CARD });
    const alt = buildRateCardSnapshot({ revision: 'r', ...SANDBOX_ALT_RATE_CARD });
    expect(SANDBOX_RATE_CARD.skus.every((s, i) => s.unitCostCents !== SANDBOX_ALT_RATE_CARD.skus[i]?.unitCostCents)).toBe(true);
    const request: CalculationRequest = {
      laborTierCode: 'PREMIUM',
      lineItems: ['FAB-SCREEN-3', 'FAB-BLACKOUT'].flatMap((fabricSkuCode) =>
        ['HW-ROLLER-STD', 'HW-ROLLER-HD'].flatMap((hardwareSkuCode) =>
          ['MTR-BATTERY', 'MTR-WIRED'].flatMap((motorSkuCode) =>
            ['TRIM-CASSETTE', 'TRIM-FASCIA'].map((trimSkuCode) => line({ fabricSkuCode, hardwareSkuCode, motorSkuCode, trimSkuCode })),
          ),
        ),
      ),
    };
    const a = priceQuote({ request, rateCard: sandbox, overrideAuthorised: false });
    const b = priceQuote({ request, rateCard: alt, overrideAuthorised: false });
    expect(a.line_items).toHaveLength(16);
    expect(a.totals.amount_cents).not.toBe(b.totals.amount_cents);
    expect(b.margin_floor).toBe('0.3');
  });

  it('refuses duplicate codes when a snapshot is built', () => {
    expect(() =>
      buildRateCardSnapshot({ revision: 'r', settings: EXAMPLE_SETTINGS, skus: [...EXAMPLE_SKUS, ...EXAMPLE_SKUS], labourTiers: EXAMPLE_TIERS }),
    ).toThrow(/FAB-SCREEN-3/);
  });
});
