/**
 * Property-based checks of the pricing engine (D2) over random valid rate cards and requests: the
 * invariants docs/pricing.md promises, whatever the numbers.
 */
import { describe, expect, it } from '@jest/globals';
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { priceQuote } from '../../domain/pricing/engine';
import type { PricedQuote } from '../../domain/pricing/reference-engine';
import { MarginBelowFloorError, MarginOverrideNotAuthorisedError } from '../../domain/pricing/errors';
import { buildRateCardSnapshot } from '../../domain/pricing/rate-card';
import type { RateCardLabourTier, RateCardSettings, RateCardSku, RateCardSnapshot, SkuComponent, SkuUnit } from '../../domain/pricing/rate-card';
import type { CalculationLineItem, CalculationRequest } from '../../domain/pricing/request';

const Dec = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
// Enough digits for 1 - m to be exact even for m = 5e-324, the smallest double fast-check produces.
const Wide = Decimal.clone({ precision: 1000, rounding: Decimal.ROUND_HALF_UP });
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;
const COMPONENTS: readonly SkuComponent[] = ['fabric', 'hardware', 'motor', 'trim'];
const UNITS: readonly SkuUnit[] = ['sq_ft', 'each', 'linear_ft'];
// ~100 runs per property at up to 25 lines keeps the file well under the five-second budget.
const RUNS = { numRuns: 100 };

/** An exact decimal string in [min, max] with up to `scale` decimal places. */
const decimalText = (min: number, max: number, scale: number): fc.Arbitrary<string> =>
  fc.integer({ min: Math.round(min * 10 ** scale), max: Math.round(max * 10 ** scale) }).map((n) => new Dec(n).div(10 ** scale).toFixed());

interface CardData {
  settings: RateCardSettings;
  skus: RateCardSku[];
  tiers: RateCardLabourTier[];
}

const skusOf = (component: SkuComponent) =>
  fc
    .array(fc.record({ unit: fc.constantFrom(...UNITS), unitCostCents: decimalText(0, 60000, 4) }), { minLength: 1, maxLength: 3 })
    .map((rows) => rows.map((row, i): RateCardSku => ({ code: `${component.toUpperCase()}-${i}`, component, description: `${component} ${i}`, ...row })));

const cardArb: fc.Arbitrary<CardData> = fc.record({
  settings: fc.record({
    marginFloor: decimalText(0, 0.6, 4),
    fabricWasteFactor: decimalText(0, 0.5, 3),
    labourBaseHoursPerUnit: decimalText(0, 3, 2),
    labourHoursPerSquareFoot: decimalText(0, 0.1, 4),
    labourMotorisationHours: decimalText(0, 2, 2),
    // At most 3 in, so every width >= 4 in below leaves a positive cut.
    tubeDeductionInches: decimalText(0, 2, 4),
    hembarDeductionInches: decimalText(0, 2, 4),
    fabricWidthDeductionInches: decimalText(0, 3, 4),
    fabricDropAllowanceInches: decimalText(0, 18, 3),
  }),
  skus: fc.tuple(...COMPONENTS.map(skusOf)).map((lists) => lists.flat()),
  tiers: fc
    .array(fc.record({ hourlyRateCents: fc.integer({ min: 0, max: 30000 }), multiplier: decimalText(0.5, 2, 3) }), { minLength: 1, maxLength: 3 })
    .map((rows) => rows.map((row, i) => ({ code: `TIER-${i}`, name: `Tier ${i}`, ...row }))),
});

const snapshot = (card: CardData): RateCardSnapshot =>
  buildRateCardSnapshot({ revision: '2026-11-21T00:00:00.000Z', settings: card.settings, skus: card.skus, labourTiers: card.tiers });

/** Inches as a contractor measures (eighths) or as an arbitrary JSON number. */
const inches = fc.oneof(
  fc.integer({ min: 4 * 8, max: 240 * 8 }).map((n) => n / 8),
  fc.double({ min: 4, max: 300, noNaN: true, noDefaultInfinity: true }),
);

function lineArb(card: CardData): fc.Arbitrary<CalculationLineItem> {
  const codes = (component: SkuComponent) => card.skus.filter((s) => s.component === component).map((s) => s.code);
  return fc.record(
    {
      reference: fc.string({ maxLength: 20 }),
      widthInches: inches,
      dropInches: inches,
      quantity: fc.integer({ min: 1, max: 500 }),
      fabricSkuCode: fc.constantFrom(...codes('fabric')),
      hardwareSkuCode: fc.constantFrom(...codes('hardware')),
      motorSkuCode: fc.constantFrom(...codes('motor')),
      trimSkuCode: fc.constantFrom(...codes('trim')),
    },
    { requiredKeys: ['widthInches', 'dropInches', 'quantity', 'fabricSkuCode', 'hardwareSkuCode'] },
  );
}

/** A margin in [0, 0.95] as a client would send it: a short decimal or any double. */
const marginArb = fc.oneof(
  fc.integer({ min: 0, max: 9500 }).map((n) => n / 10000),
  fc.double({ min: 0, max: 0.95, noNaN: true }),
);

interface Scenario {
  card: CardData;
  request: CalculationRequest;
  overrideAuthorised: boolean;
}

/** Any margin situation, including the refused ones. */
const anyScenario: fc.Arbitrary<Scenario> = cardArb.chain((card) =>
  fc.record({
    card: fc.constant(card),
    request: fc.record(
      {
        laborTierCode: fc.constantFrom(...card.tiers.map((t) => t.code)),
        lineItems: fc.array(lineArb(card), { minLength: 1, maxLength: 25 }),
        targetMargin: marginArb,
        marginOverride: fc.record({ reason: fc.constant('approved by the owner') }),
        persist: fc.boolean(),
      },
      { requiredKeys: ['laborTierCode', 'lineItems'] },
    ),
    overrideAuthorised: fc.boolean(),
  }),
);

/** Only situations the engine prices: below-floor targets come with an authorised override. */
const pricedScenario: fc.Arbitrary<Scenario> = anyScenario.map((s) => {
  const target = s.request.targetMargin;
  if (target === undefined || new Dec(target).gte(s.card.settings.marginFloor)) return s;
  return { ...s, request: { ...s.request, marginOverride: { reason: 'approved by the owner' } }, overrideAuthorised: true };
});

const run = (s: Scenario, rateCard = snapshot(s.card)): PricedQuote =>
  priceQuote({ request: s.request, rateCard, overrideAuthorised: s.overrideAuthorised });

const DECIMAL_KEYS = new Set([
  'multiplier',
  'margin_floor',
  'applied_margin',
  'target_margin',
  'margin_percent',
  'opening_square_feet',
  'fabric_square_feet_with_waste',
  'labour_hours',
  'tube_length_inches',
  'hembar_length_inches',
  'fabric_width_inches',
  'fabric_drop_inches',
  'fabric_square_feet',
  'unit_cost_cents',
  'fabric_waste_factor',
  'labour_base_hours_per_unit',
  'labour_hours_per_square_foot',
  'labour_motorisation_hours',
]);
const NUMBER_KEYS = new Set(['width_inches', 'drop_inches']);

/**
 * Walks the result: every `_cents` a safe integer (but unit_cost_cents), every decimal a decimal
 * string. Collects problems rather than calling expect per field, which would dominate the runtime.
 */
function fieldTypeProblems(result: PricedQuote): { problems: string[]; seen: Set<string> } {
  const problems: string[] = [];
  const seen = new Set<string>();
  const walk = (value: unknown, path: string, key: string, inComponent: boolean): void => {
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, `${path}.${i}`, key, key === 'components'));
      return;
    }
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`, k, inComponent);
      return;
    }
    const isDecimal = DECIMAL_KEYS.has(key) || (key === 'quantity' && inComponent);
    if (isDecimal) {
      seen.add(key);
      let parses = true;
      try {
        new Decimal(value as string);
      } catch {
        parses = false;
      }
      if (typeof value !== 'string' || !DECIMAL_TEXT.test(value) || !parses) problems.push(`${path} = ${String(value)}`);
    } else if (key.endsWith('_cents') || key === 'quantity') {
      seen.add(key);
      if (!Number.isSafeInteger(value)) problems.push(`${path} = ${String(value)}`);
    } else if (NUMBER_KEYS.has(key) && typeof value !== 'number') {
      problems.push(`${path} = ${String(value)}`);
    }
  };
  walk(result, '', '', false);
  return { problems, seen };
}

describe('pricing engine properties (D2)', () => {
  it('totals are the sums of the lines; profit = amount - cost; line cost = sum of its components', () => {
    fc.assert(
      fc.property(pricedScenario, (s) => {
        const result = run(s);
        let cost = 0;
        let amount = 0;
        for (const line of result.line_items) {
          expect(line.cost_cents).toBe(line.components.reduce((sum, c) => sum + c.extended_cost_cents, 0));
          cost += line.cost_cents;
          amount += line.price_cents;
        }
        expect(result.totals.cost_cents).toBe(cost);
        expect(result.totals.amount_cents).toBe(amount);
        expect(result.totals.profit_cents).toBe(result.totals.amount_cents - result.totals.cost_cents);
        expect(result.line_items).toHaveLength(s.request.lineItems.length);
      }),
      RUNS,
    );
  });

  it('every _cents is a safe integer and every decimal field is a parseable decimal string', () => {
    fc.assert(
      fc.property(pricedScenario, (s) => {
        const { problems, seen } = fieldTypeProblems(run(s));
        expect(problems).toEqual([]);
        // The walk must actually have met every decimal field, or it proved nothing.
        for (const key of DECIMAL_KEYS) expect(seen.has(key)).toBe(true);
        expect(seen.has('extended_cost_cents') && seen.has('amount_cents')).toBe(true);
      }),
      RUNS,
    );
  });

  it('every figure is recomputable from the response: extended costs half-up, prices the exact ceiling', () => {
    fc.assert(
      fc.property(pricedScenario, (s) => {
        const result = run(s);
        const keep = new Wide(1).minus(result.applied_margin);
        for (const line of result.line_items) {
          for (const c of line.components) {
            const exact = new Dec(c.quantity).times(c.unit_cost_cents);
            expect(c.extended_cost_cents).toBe(exact.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber());
          }
          // ceiling(cost / (1 - m)): the smallest whole cent p with p * (1 - m) >= cost.
          expect(new Wide(line.price_cents).times(keep).gte(line.cost_cents)).toBe(true);
          if (line.price_cents > 0) expect(new Wide(line.price_cents - 1).times(keep).lt(line.cost_cents)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('margin_percent is profit / amount at 4 places half-up, and never below the applied margin before rounding', () => {
    fc.assert(
      fc.property(pricedScenario, (s) => {
        const { totals, applied_margin } = run(s);
        if (totals.amount_cents === 0) {
          expect(totals.margin_percent).toBe('0.0000');
          return;
        }
        const realised = new Dec(totals.profit_cents).div(totals.amount_cents);
        expect(totals.margin_percent).toBe(realised.toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toFixed(4));
        expect(realised.gte(applied_margin)).toBe(true);
      }),
      RUNS,
    );
  });

  it('the applied margin is never below the floor unless an authorised override was given', () => {
    fc.assert(
      fc.property(anyScenario, (s) => {
        const floor = new Dec(s.card.settings.marginFloor);
        const target = s.request.targetMargin;
        const below = target !== undefined && new Dec(target).lt(floor);
        let result: PricedQuote;
        try {
          result = run(s);
        } catch (error) {
          // Refusals happen only below the floor, and are the documented ones.
          expect(below).toBe(true);
          if (!s.request.marginOverride) expect(error).toBeInstanceOf(MarginBelowFloorError);
          else expect(error).toBeInstanceOf(MarginOverrideNotAuthorisedError);
          return;
        }
        expect(result.target_margin).toBe(result.applied_margin);
        expect(new Dec(result.margin_floor).eq(floor)).toBe(true);
        const applied = new Dec(result.applied_margin);
        if (applied.lt(floor)) {
          expect(s.request.marginOverride).toBeDefined();
          expect(s.overrideAuthorised).toBe(true);
          expect(result.floor_overridden).toBe(true);
        } else {
          expect(result.floor_overridden).toBe(false);
        }
        if (target === undefined) expect(applied.eq(floor)).toBe(true);
        else expect(applied.eq(new Dec(target))).toBe(true);
      }),
      RUNS,
    );
  });

  it('the same request on the same rate card always prices the same', () => {
    fc.assert(
      fc.property(pricedScenario, (s) => {
        const first = run(s);
        expect(run(s)).toStrictEqual(first);
        // A snapshot rebuilt from copies of the same rows (as a second database read would) too.
        expect(run(s, snapshot(structuredClone(s.card)))).toStrictEqual(first);
      }),
      { numRuns: 50 },
    );
  });
});
