/**
 * The scaled-integer engine (fast-engine.ts) answers exactly what the decimal.js
 * reference (engine.ts) answers, to the last character of every field, and refuses exactly what
 * it refuses (same class, message and fields). 100,000 seeded random requests (`npm test`; the
 * quick loop draws the first of them, scripts/harness/property-runs.ts) on random rate
 * cards: every SKU mix (motor and trim or not, every unit for every component), widths and drops
 * from a hundredth of an inch to the largest double, quantities 1-500, every margin (omitted, at
 * and below the floor with and without an authorised override, 0, -0, doubles with 17 digits),
 * unknown and mismatched codes, and rate cards outside the fast bounds. docs/pricing.md section 11.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { priceQuoteReference, type PriceQuoteInput } from '../../domain/pricing/reference-engine';
import { priceQuote, priceQuoteFast } from '../../domain/pricing/engine';
import { buildRateCardSnapshot, type RateCardLabourTier, type RateCardSku, type SkuComponent, type SkuUnit } from '../../domain/pricing/rate-card';
import type { CalculationLineItem, CalculationRequest } from '../../domain/pricing/request';
import { EXAMPLE_SETTINGS, EXAMPLE_SKUS, EXAMPLE_TIERS } from '../../scripts/harness/worked-example-card';
import { propertyRuns } from '../../scripts/harness/property-runs';

const RUNS = propertyRuns(100_000);
const SEED = 19;
const COMPONENTS: readonly SkuComponent[] = ['fabric', 'hardware', 'motor', 'trim'];
const UNITS: readonly SkuUnit[] = ['sq_ft', 'each', 'linear_ft'];

/** A plain decimal string: an integer count of 10^-places, as a rate card row holds it. */
const decimalText = (maxUnits: number, places: number): fc.Arbitrary<string> =>
  fc.bigInt({ min: 0n, max: BigInt(Math.round(maxUnits)) }).map((n) => {
    if (places === 0) return String(n);
    const digits = String(n).padStart(places + 1, '0');
    return `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  });

/**
 * A setting on a real card (`realistic`), or anywhere a numeric column allows: more decimals
 * than the fast path compiles, or values far past its bounds (those cards go to the reference).
 */
const setting = (realisticMax: number, places: number, realistic: boolean): fc.Arbitrary<string> =>
  realistic
    ? decimalText(realisticMax * 10 ** places, places)
    : fc.oneof(
        decimalText(realisticMax * 10 ** places, places),
        fc.integer({ min: 0, max: 6 }).chain((p) => decimalText(realisticMax * 10 ** p, p)),
        decimalText(10 ** 9, 9),
        fc.constantFrom('0', '12345678.5', '0.0000001', '20000'),
      );

interface Card {
  realistic: boolean;
  settings: Record<string, string>;
  skus: RateCardSku[];
  tiers: RateCardLabourTier[];
}

const cardArb = (realistic: boolean): fc.Arbitrary<Card> =>
  fc.record({
    realistic: fc.constant(realistic),
    settings: fc.record({
      marginFloor: realistic ? decimalText(6000, 4) : fc.oneof(decimalText(9999, 4), decimalText(99_999_999, 8)),
      fabricWasteFactor: setting(0.5, 3, realistic),
      labourBaseHoursPerUnit: setting(3, 2, realistic),
      labourHoursPerSquareFoot: setting(0.1, 4, realistic),
      labourMotorisationHours: setting(2, 2, realistic),
      tubeDeductionInches: setting(2, 4, realistic),
      hembarDeductionInches: setting(2, 4, realistic),
      fabricWidthDeductionInches: setting(3, 5, realistic),
      fabricDropAllowanceInches: setting(18, 3, realistic),
    }),
    skus: fc
      .tuple(
        ...COMPONENTS.map((component) =>
          fc
            .array(fc.record({ unit: fc.constantFrom(...UNITS), unitCostCents: realistic ? decimalText(600_000_000, 4) : setting(60_000, 6, false) }), {
              minLength: 1,
              maxLength: 3,
            })
            .map((rows) => rows.map((row, i): RateCardSku => ({ code: `${component.toUpperCase()}-${i}`, component, description: `${component} "${i}"`, ...row }))),
        ),
      )
      .map((lists) => lists.flat()),
    tiers: fc
      .array(
        fc.record({
          hourlyRateCents: realistic ? fc.integer({ min: 0, max: 30_000 }) : fc.oneof(fc.integer({ min: 0, max: 30_000 }), fc.constant(2 ** 40)),
          multiplier: realistic ? decimalText(3000, 3).filter((m) => m !== '0.000') : setting(2, 6, false),
        }),
        { minLength: 1, maxLength: 3 },
      )
      .map((rows) => rows.map((row, i) => ({ code: `TIER-${i}`, name: `Tier ${i}`, ...row }))),
  });

/** Inches a contractor writes (to a sixteenth, or four places), or extremes any JSON number allows. */
const inches = (realistic: boolean): fc.Arbitrary<number> =>
  realistic
    ? fc.oneof(
        fc.integer({ min: 4 * 16, max: 600 * 16 }).map((n) => n / 16),
        fc.integer({ min: 40_000, max: 6_000_000 }).map((n) => n / 10_000),
      )
    : fc.oneof(
        fc.integer({ min: 1, max: 90_000_000 }).map((n) => n / 10_000),
        fc.integer({ min: 1, max: 20_000 * 32 }).map((n) => n / 32),
        fc.double({ min: Number.MIN_VALUE, max: 1e6, noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(Number.MIN_VALUE, 0.0001, 0.00005, 1.125, 1.12505, 9000, 9000.0001, 1e7, 1e15, 2 ** 53, 1e300, Number.MAX_VALUE),
      );

function lineArb(card: Card, realistic: boolean): fc.Arbitrary<CalculationLineItem> {
  const codes = (component: SkuComponent) => card.skus.filter((s) => s.component === component).map((s) => s.code);
  // Mostly the right component; sometimes another component's code or an unknown one.
  const code = (component: SkuComponent) =>
    realistic
      ? fc.constantFrom(...codes(component))
      : fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...codes(component)) }, fc.constantFrom(...card.skus.map((s) => s.code)), fc.constant('NO-SUCH-SKU'));
  return fc.record(
    {
      reference: fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 })),
      widthInches: inches(realistic),
      dropInches: inches(realistic),
      quantity: fc.oneof(fc.integer({ min: 1, max: 500 }), fc.constantFrom(1, 500)),
      fabricSkuCode: code('fabric'),
      hardwareSkuCode: code('hardware'),
      motorSkuCode: code('motor'),
      trimSkuCode: code('trim'),
    },
    { requiredKeys: ['widthInches', 'dropInches', 'quantity', 'fabricSkuCode', 'hardwareSkuCode'] },
  );
}

/** Every margin a client can send: short decimals, the floor itself, 0, -0, any double in [0, 1). */
const marginArb = (floor: string): fc.Arbitrary<number | undefined> =>
  fc.oneof(
    fc.constant(undefined),
    fc.constant(Number(floor)),
    fc.integer({ min: 0, max: 9999 }).map((n) => n / 10_000),
    fc.constantFrom(0, -0, 0.35, 0.999999, 1e-7, Number.MIN_VALUE),
    fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  );

interface Scenario {
  card: Card;
  input: PriceQuoteInput;
}

/**
 * Rate cards drawn once (seeded) and reused, each with its snapshot, so a run spends its time
 * pricing rather than generating cards; the compiled form is then cached as in production.
 */
const cardPool = (realistic: boolean) =>
  fc.sample(cardArb(realistic), { numRuns: 400, seed: SEED + Number(realistic) }).map((card) => ({
    card,
    rateCard: buildRateCardSnapshot({ revision: '2026-11-23T00:00:00.000Z', settings: card.settings as never, skus: card.skus, labourTiers: card.tiers }),
  }));

const scenarioArb = (realistic: boolean): fc.Arbitrary<Scenario> =>
  fc.constantFrom(...cardPool(realistic)).chain(({ card, rateCard }) =>
    fc
      .record(
        {
          laborTierCode: realistic ? fc.constantFrom(...card.tiers.map((t) => t.code)) : fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...card.tiers.map((t) => t.code)) }, fc.constant('NO-SUCH-TIER')),
          lineItems: fc.oneof(
            { weight: 30, arbitrary: fc.array(lineArb(card, realistic), { minLength: 1, maxLength: 4 }) },
            { weight: 1, arbitrary: fc.array(lineArb(card, realistic), { minLength: 5, maxLength: 25 }) },
          ),
          targetMargin: marginArb(card.settings.marginFloor!),
          marginOverride: fc.constant({ reason: 'approved by the owner' }),
        },
        { requiredKeys: ['laborTierCode', 'lineItems'] },
      )
      .chain((request) =>
        fc.boolean().map((overrideAuthorised) => ({
          card,
          input: {
            request: request as CalculationRequest,
            rateCard,
            overrideAuthorised,
          },
        })),
      ),
  );

type Outcome = { priced: string } | { refused: string; message: string; fields: string };

/** The whole answer as text, or the refusal by class, message and every own field. */
function outcomeOf(price: () => unknown): Outcome {
  try {
    return { priced: JSON.stringify(price()) };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return { refused: error.constructor.name, message: error.message, fields: JSON.stringify({ ...error }) };
  }
}

function sameOutcome(a: Outcome, b: Outcome): boolean {
  if ('priced' in a) return 'priced' in b && a.priced === b.priced;
  return 'refused' in b && a.refused === b.refused && a.message === b.message && a.fields === b.fields;
}

describe('fast pricing engine against the decimal.js reference (D2)', () => {
  it(`answers and refuses exactly as the reference on ${RUNS.toLocaleString('en')} random requests, and prices realistic ones on the fast path`, () => {
    const seen = { fastPriced: 0, referencePriced: 0, refused: new Map<string, number>() };
    // Refusals are compared by class, message and fields; capturing their stacks (source-mapped
    // under Jest) would be most of the run time.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      fc.assert(
        fc.property(fc.oneof({ weight: 4, arbitrary: scenarioArb(true) }, { weight: 1, arbitrary: scenarioArb(false) }), ({ card, input }) => {
          const expected = outcomeOf(() => priceQuoteReference(input));
          // priceQuote is the fast path's answer, or the reference's where it declines.
          const fast = priceQuoteFast(input);
          const actual = fast === undefined ? outcomeOf(() => priceQuote(input)) : { priced: JSON.stringify(fast) };
          if (!sameOutcome(actual, expected)) {
            throw new Error(`fast engine differs:\n${JSON.stringify(actual).slice(0, 2000)}\nreference:\n${JSON.stringify(expected).slice(0, 2000)}`);
          }
          if ('refused' in expected) {
            seen.refused.set(expected.refused, (seen.refused.get(expected.refused) ?? 0) + 1);
            // A refusal is always worded by the reference.
            if (fast !== undefined) throw new Error('the fast path priced a request the reference refuses');
          } else if (fast !== undefined) {
            seen.fastPriced++;
          } else {
            // Realistic cards and requests never leave the fast path.
            if (card.realistic) throw new Error(`a realistic request fell back to the reference: ${JSON.stringify(input.request).slice(0, 500)}`);
            seen.referencePriced++;
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }

    // The run covered what it claims: most requests priced fast, some by the reference, and every refusal.
    expect(seen.fastPriced).toBeGreaterThan(RUNS / 2);
    expect(seen.referencePriced).toBeGreaterThan(RUNS / 1_000);
    expect([...seen.refused.keys()].sort()).toEqual([
      'MarginBelowFloorError',
      'MarginOverrideNotAuthorisedError',
      'SkuComponentMismatchError',
      'UnknownLabourTierError',
      'UnknownSkuError',
      'UnpriceableInputError',
    ]);
  });

  it('prices the documented worked example on the fast path, and a card outside the bounds on the reference', () => {
    const settings = EXAMPLE_SETTINGS;
    const card = buildRateCardSnapshot({ revision: 'r', settings, skus: EXAMPLE_SKUS, labourTiers: EXAMPLE_TIERS });
    const request: CalculationRequest = {
      laborTierCode: 'PREMIUM',
      lineItems: [{ widthInches: 48.5, dropInches: 72, quantity: 2, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD' }],
    };
    const fast = priceQuoteFast({ request, rateCard: card, overrideAuthorised: false });
    expect(fast?.line_items[0]?.cut_list.tube_length_inches).toBe('47.3750');
    expect(fast).toEqual(priceQuoteReference({ request, rateCard: card, overrideAuthorised: false }));

    // Seven decimal places on one setting: outside the compiled bounds, priced by the reference.
    const finer = buildRateCardSnapshot({ revision: 'r', settings: { ...settings, labourHoursPerSquareFoot: '0.0200001' }, skus: card.skus.values(), labourTiers: card.labourTiers.values() });
    expect(priceQuoteFast({ request, rateCard: finer, overrideAuthorised: false })).toBeUndefined();
    expect(priceQuote({ request, rateCard: finer, overrideAuthorised: false })).toEqual(priceQuoteReference({ request, rateCard: finer, overrideAuthorised: false }));
  });
});
