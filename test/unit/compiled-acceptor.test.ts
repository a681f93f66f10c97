import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { acceptCalculateBody, CalculateBody } from '../../api/quotes/schemas';
import { parseOrThrow } from '../../api/http/validate';
import { compileAcceptor } from '../../api/http/compiled-acceptor';
import { z } from 'zod';
import { propertyRuns } from '../../scripts/harness/property-runs';

/**
 * The calculate body is checked by ajv first (api/http/compiled-acceptor.ts), and a body
 * it accepts skips zod. That is only sound if ajv accepts exactly what zod accepts, with the same
 * result: compared here over random bodies near every bound of the schema.
 */

const RUNS = propertyRuns(20_000);

/** A deep copy that keeps every own key (`__proto__` included) as data. */
function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const key of Object.keys(value)) Object.defineProperty(out, key, { value: clone((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Strings around a length bound, of characters one or two UTF-16 units long (and lone surrogates): both count code points. */
const stringNear = (bound: number) =>
  fc.oneof(
    fc.tuple(fc.constantFrom('a', 'é', '😀', '\ud800', ' '), fc.integer({ min: Math.max(0, bound - 3), max: bound + 3 })).map(([unit, count]) => unit.repeat(count)),
    fc.tuple(fc.integer({ min: Math.max(0, bound - 2), max: bound + 1 }), fc.constantFrom('😀', 'a')).map(([count, last]) => 'a'.repeat(count) + last),
    fc.string({ maxLength: 8 }),
  );
const anyNumber = fc.oneof(
  fc.constantFrom(0, -0, 1, 0.5, -1, 1e-300, 5e-324, 1e308, Number.MAX_VALUE, 499, 500, 501, 1.5, 2 ** 53, 2 ** 53 + 2, 0.9999999999999999, Infinity, -Infinity, NaN),
  fc.double(),
  fc.integer({ min: -5, max: 600 }),
);
const wrongType = fc.constantFrom<unknown>(null, 'x', '', true, [], {}, 12);
/** Mostly a valid value, so that whole bodies are often valid; else one near a bound, or of the wrong type. */
const field = (valid: fc.Arbitrary<unknown>, edgy: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 24, arbitrary: valid }, { weight: 2, arbitrary: edgy }, { weight: 1, arbitrary: wrongType });
const rarely = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 14, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
const text = (min: number, max: number) => fc.string({ minLength: min, maxLength: Math.min(max, 16) });
const email = fc.oneof(
  fc.constantFrom('a@b.co', 'x.y+z@sub.example.test', "o'neil@example.test", 'a@b', 'a@@b.co', 'é@b.co', '.a@b.co', 'a.@b.co', 'a@b.c', 'A_B-c@EXAMPLE.TEST', 'a b@c.co'),
  fc.string({ maxLength: 12 }),
  stringNear(320).map((s) => `${s}@example.test`),
);

/** An object whose required keys are now and then missing, with now and then a key the schema does not know. */
function objectOf(entries: Record<string, fc.Arbitrary<unknown>>, required: string[]) {
  return fc
    .tuple(
      fc.record(entries, { requiredKeys: required }),
      rarely(fc.constantFrom(...required)),
      rarely(fc.constantFrom('extra', 'constructor', 'toString', 'LineItems')),
    )
    .map(([record, missing, extra]) => {
      const out: Record<string, unknown> = { ...record };
      if (missing !== null) delete out[missing];
      if (extra !== null) Object.defineProperty(out, extra, { value: 1, enumerable: true, writable: true, configurable: true });
      return out;
    });
}

const positive = fc.oneof(fc.double({ min: 0.0001, max: 9000, noNaN: true }), fc.constantFrom(48, 35.25, 5e-324, 1e300));
const lineItem = objectOf(
  {
    reference: field(text(0, 120), stringNear(120)),
    widthInches: field(positive, anyNumber),
    dropInches: field(positive, anyNumber),
    quantity: field(fc.integer({ min: 1, max: 500 }), anyNumber),
    fabricSkuCode: field(text(1, 64), stringNear(64)),
    hardwareSkuCode: field(text(1, 64), stringNear(64)),
    motorSkuCode: field(text(1, 64), stringNear(64)),
    trimSkuCode: field(text(1, 64), stringNear(64)),
  },
  ['widthInches', 'dropInches', 'quantity', 'fabricSkuCode', 'hardwareSkuCode'],
);

const body = objectOf(
  {
    laborTierCode: field(text(1, 32), stringNear(32)),
    lineItems: field(
      fc.oneof(
        { weight: 30, arbitrary: fc.array(lineItem, { minLength: 1, maxLength: 3 }) },
        { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 199, max: 201 }), lineItem).map(([count, item]) => Array.from({ length: count }, () => clone(item))) },
      ),
      fc.constant([]),
    ),
    targetMargin: field(fc.double({ min: 0, max: 0.9999999999999999, noNaN: true }), anyNumber),
    marginOverride: field(objectOf({ reason: field(text(10, 500), stringNear(10)) }, ['reason']), stringNear(10)),
    customer: field(objectOf({ name: field(text(1, 200), stringNear(200)), email: field(fc.constantFrom('a@b.co', 'x.y+z@sub.example.test'), email) }, ['name']), wrongType),
    persist: field(fc.boolean(), wrongType),
  },
  ['laborTierCode', 'lineItems'],
);

function agree(value: unknown): boolean {
  const forAjv = clone(value);
  const accepted = acceptCalculateBody(forAjv);
  const parsed = CalculateBody.safeParse(clone(value));
  expect({ accepted, value }).toEqual({ accepted: parsed.success, value });
  if (parsed.success) expect(forAjv).toEqual(parsed.data);
  return accepted;
}

describe('the compiled calculate-body acceptor accepts exactly what zod accepts', () => {
  it(`over ${RUNS.toLocaleString('en')} random bodies near every bound (lengths in code points, numbers, types, unknown keys, emails)`, () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (value) => {
        if (agree(value)) accepted++;
      }),
      { numRuns: RUNS, seed: 19 },
    );
    // Both sides of the line were exercised.
    expect(accepted).toBeGreaterThan(RUNS / 10);
    expect(accepted).toBeLessThan(RUNS * 0.9);
  });

  it('agrees on the edges a generator may miss: -0, NaN, Infinity, 2^53, a __proto__ key, surrogates, 201 lines', () => {
    const line = { widthInches: 48, dropInches: 60, quantity: 1, fabricSkuCode: 'F', hardwareSkuCode: 'H' };
    const cases: unknown[] = [
      { laborTierCode: 'STANDARD', lineItems: [line] },
      { laborTierCode: 'STANDARD', lineItems: [{ ...line, widthInches: -0 }] },
      { laborTierCode: 'STANDARD', lineItems: [{ ...line, quantity: NaN }] },
      { laborTierCode: 'STANDARD', lineItems: [{ ...line, quantity: 2 ** 53 }] },
      { laborTierCode: 'STANDARD', lineItems: [line], targetMargin: -0 },
      { laborTierCode: 'STANDARD', lineItems: [line], targetMargin: 1 },
      JSON.parse('{"laborTierCode":"STANDARD","lineItems":[{"widthInches":48,"dropInches":60,"quantity":1,"fabricSkuCode":"F","hardwareSkuCode":"H"}],"__proto__":{"x":1}}'),
      JSON.parse('{"laborTierCode":"STANDARD","lineItems":[{"widthInches":1e400,"dropInches":60,"quantity":1,"fabricSkuCode":"F","hardwareSkuCode":"H"}]}'),
      { laborTierCode: 'STANDARD', lineItems: [{ ...line, reference: '\ud800'.repeat(120) }] },
      { laborTierCode: 'STANDARD', lineItems: [{ ...line, reference: '😀'.repeat(120) }] },
      { laborTierCode: 'STANDARD', lineItems: [{ ...line, reference: '😀'.repeat(121) }] },
      { laborTierCode: 'STANDARD', lineItems: Array.from({ length: 200 }, () => ({ ...line })) },
      { laborTierCode: 'STANDARD', lineItems: Array.from({ length: 201 }, () => ({ ...line })) },
      { laborTierCode: 'STANDARD', lineItems: [] },
      [],
      null,
      'STANDARD',
    ];
    for (const value of cases) agree(value);
    // 120 emoji are 240 UTF-16 units and 120 code points: within reference's 120, as zod counts.
    expect(acceptCalculateBody(clone(cases[9]))).toBe(true);
    expect(acceptCalculateBody(clone(cases[10]))).toBe(false);
  });

  it('a body it accepts reaches the handler with the defaults zod would give; one it refuses is worded by zod', () => {
    const value = { laborTierCode: 'STANDARD', lineItems: [{ widthInches: 48, dropInches: 60, quantity: 1, fabricSkuCode: 'F', hardwareSkuCode: 'H' }] };
    expect(parseOrThrow(CalculateBody, clone(value), 'body', acceptCalculateBody)).toEqual({ ...value, persist: false });
    const refusal = (bad: unknown) => {
      try {
        parseOrThrow(CalculateBody, bad, 'body', acceptCalculateBody);
      } catch (error) {
        return error as { kind: string; details: { fields: Record<string, string> } };
      }
      throw new Error('accepted');
    };
    const zodWords = CalculateBody.safeParse({ ...value, lineItems: [{ ...value.lineItems[0], quantity: 0 }] });
    expect(zodWords.success).toBe(false);
    expect(refusal({ ...value, lineItems: [{ ...value.lineItems[0], quantity: 0 }] })).toMatchObject({
      kind: 'validation_failed',
      details: { fields: { 'lineItems.0.quantity': zodWords.error!.issues[0]!.message } },
    });
    // A NUL character is refused in front of either check.
    expect(refusal({ ...value, laborTierCode: 'A\u0000' }).details.fields).toEqual({ laborTierCode: expect.stringMatching(/NUL/) });
  });

  it('counts a field called maxLength as a field, not as a keyword', () => {
    const accept = compileAcceptor(z.strictObject({ maxLength: z.string().max(2), properties: z.number().optional() }));
    expect(accept({ maxLength: 'ab' })).toBe(true);
    expect(accept({ maxLength: 'abc' })).toBe(false);
    expect(accept({ maxLength: 'ab', properties: 1 })).toBe(true);
  });
});
