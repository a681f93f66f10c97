/**
 * Exact integer arithmetic for the scaled-integer engine (docs/pricing.md section 11). Every
 * value is a non-negative JS integer standing for value * 10^k. A product that would pass 2^53
 * cannot be held exactly by a Number; rather than guess, these helpers throw OUTSIDE_FAST_DOMAIN
 * and the fast engine hands the request to the decimal.js reference, so exactness never rests on
 * a bound being right, only speed does.
 */

/** Thrown (not an Error: no stack is captured) when a value would leave the exact Number range. */
export const OUTSIDE_FAST_DOMAIN: unique symbol = Symbol('outside the fast engine domain');

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** 10^4: inches, square feet, hours and quantities are integers in ten-thousandths (SCALE 4). */
export const UNIT = 10_000;

/**
 * round_half_up(n / d) for integers 0 <= n <= 2^53 - 1 and d >= 1. The float quotient's floor is
 * exact here: a non-integer n / d lies at least 1 / d from an integer, more than the quotient's
 * rounding error n / d * 2^-53 < 1 / d; the remainder n - q * d is then an exact integer.
 */
export function divHalfUp(n: number, d: number): number {
  const q = Math.floor(n / d);
  const r = n - q * d;
  return r + r >= d ? q + 1 : q;
}

/**
 * round_half_up(a * b / d) exactly, for non-negative safe integers. A product past 2^53 (a float
 * product above 2^53 - 1 means the exact one is too: rounding is monotone) is redone in BigInt,
 * which real quotes rarely need; a quotient past 2^53 leaves the fast path.
 */
export function mulDivHalfUp(a: number, b: number, d: number): number {
  const p = a * b;
  if (p <= MAX_SAFE) return divHalfUp(p, d);
  const q = divHalfUpBig(BigInt(a) * BigInt(b), BigInt(d));
  if (q > MAX_SAFE_BIG) throw OUTSIDE_FAST_DOMAIN;
  return Number(q);
}

const MAX_SAFE_BIG = BigInt(MAX_SAFE);

/** a + b or a * b, refused past 2^53 - 1 (the exact range of a Number). */
export function checkedAdd(a: number, b: number): number {
  const s = a + b;
  if (s > MAX_SAFE) throw OUTSIDE_FAST_DOMAIN;
  return s;
}

export function checkedMul(a: number, b: number): number {
  const p = a * b;
  if (p > MAX_SAFE) throw OUTSIDE_FAST_DOMAIN;
  return p;
}

/** round_half_up(n / d) for BigInts n >= 0, d > 0 (margin_percent, once per quote). */
export function divHalfUpBig(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n - q * d;
  return r + r >= d ? q + 1n : q;
}

const PAD = ['000', '00', '0', ''];

/** A non-negative integer count of ten-thousandths as a 4-place decimal string: 473750 -> "47.3750". */
export function fixed4(n: number): string {
  const whole = Math.floor(n / UNIT);
  const fraction = n - whole * UNIT;
  const digits = fraction < 10 ? 0 : fraction < 100 ? 1 : fraction < 1000 ? 2 : 3;
  return `${whole}.${PAD[digits]}${fraction}`;
}

/**
 * A JSON number as an integer count of ten-thousandths, or undefined when its shortest round-trip
 * text (what decimal.js reads) has more than 4 decimals or it is above `max`. Exact: for
 * 0 < x <= max (far below 2^39) the ulp of x is below 10^-4, so at most one multiple of 10^-4
 * rounds to x, and x * 10^4 lands within half a unit of it; n / 10^4 === x then says x is the
 * double nearest to n / 10^4, whose shortest text is n / 10^4 itself.
 */
export function toTenThousandths(x: number, max: number): number | undefined {
  if (!(x > 0 && x <= max)) return undefined;
  const n = Math.round(x * UNIT);
  return n / UNIT === x ? n : undefined;
}
