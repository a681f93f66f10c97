/**
 * Issue 19: the compiled CalculationResult serializer writes exactly what JSON.stringify writes for
 * a result the documented schema accepts: the route's examples, and random priced results with
 * awkward references (quotes, backslashes, control characters, lone surrogates) and every
 * persistence state.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { stringifyCalculationResult } from '../../api/quotes/calculation-json';
import { CALCULATION_RESULT_EXAMPLE, QUOTE_DETAIL_EXAMPLE } from '../../api/quotes/examples';
import { CalculationResult } from '../../api/quotes/schemas';
import { priceQuote } from '../../api/quotes/pricing/fast-engine';
import { buildRateCardSnapshot } from '../../db/rate-cards/rate-card';
import { SANDBOX_ALT_RATE_CARD, SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import type { CalculationResult as CalculationResultValue } from '../../api/quotes/quote-service';

const CARDS = [SANDBOX_RATE_CARD, SANDBOX_ALT_RATE_CARD].map((card) => buildRateCardSnapshot({ revision: 'r', ...card }));
const codes = (component: string) => SANDBOX_RATE_CARD.skus.filter((s) => s.component === component).map((s) => s.code);

/** The validated result (strict schema, so nothing undocumented) as res.json would write it. */
function viaSchema(result: unknown): string {
  return JSON.stringify(CalculationResult.parse(result));
}

describe('compiled CalculationResult serializer (issue 19)', () => {
  it('writes the documented examples exactly as JSON.stringify of the validated result', () => {
    for (const example of [CALCULATION_RESULT_EXAMPLE, QUOTE_DETAIL_EXAMPLE.calculation]) {
      const validated = CalculationResult.parse(example) as CalculationResultValue;
      expect(stringifyCalculationResult(validated)).toBe(JSON.stringify(validated));
    }
  });

  it('writes random priced results exactly as JSON.stringify of the validated result', () => {
    const line = fc.record(
      {
        reference: fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom('Living "room"', 'a\\b', '\u2028\u0000\ud800', '</script>')),
        widthInches: fc.oneof(fc.integer({ min: 64, max: 4800 }).map((n) => n / 16), fc.double({ min: 4, max: 300, noNaN: true })),
        dropInches: fc.oneof(fc.integer({ min: 64, max: 4800 }).map((n) => n / 16), fc.double({ min: 4, max: 300, noNaN: true })),
        quantity: fc.integer({ min: 1, max: 500 }),
        fabricSkuCode: fc.constantFrom(...codes('fabric')),
        hardwareSkuCode: fc.constantFrom(...codes('hardware')),
        motorSkuCode: fc.constantFrom(...codes('motor')),
        trimSkuCode: fc.constantFrom(...codes('trim')),
      },
      { requiredKeys: ['widthInches', 'dropInches', 'quantity', 'fabricSkuCode', 'hardwareSkuCode'] },
    );
    const persistence = fc.oneof(
      fc.constant({ quote_id: null, quote_number: null, status: null, persisted: false }),
      fc.record({ quote_id: fc.uuid(), quote_number: fc.integer({ min: 1, max: 1_000_000 }), status: fc.constant('DRAFT' as const), persisted: fc.constant(true) }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...CARDS),
        fc.constantFrom('STANDARD', 'PREMIUM'),
        fc.array(line, { minLength: 1, maxLength: 12 }),
        fc.option(fc.double({ min: 0.4, max: 0.99, noNaN: true }), { nil: undefined }),
        persistence,
        (rateCard, laborTierCode, lineItems, targetMargin, persisted) => {
          const result: CalculationResultValue = { ...priceQuote({ request: { laborTierCode, lineItems, targetMargin }, rateCard, overrideAuthorised: false }), ...persisted };
          expect(stringifyCalculationResult(result)).toBe(viaSchema(result));
        },
      ),
      { numRuns: 500, seed: 19 },
    );
  });
});
