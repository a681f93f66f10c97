/**
 * Money as the document 001 interfaces answer it: a JSON number of dollars with at most two
 * decimals, made from integer cents by string assembly (never float arithmetic on money). Used by
 * /v1/quotes, /v1/fsm and the events that carry the same shapes.
 */
export function dollars(cents: number | string | bigint): number {
  return Number(decimalDollars(cents));
}

/** Integer cents as an exact decimal string of dollars with two places ("-12.50"), by integer arithmetic. */
export function decimalDollars(cents: number | string | bigint): string {
  const value = BigInt(cents);
  const abs = value < 0n ? -value : value;
  return `${value < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** `part` of `whole` as a percent with two decimals, half-up (35.12 for 0.351234); 0 of nothing is 0. */
export function percentOf(part: number, whole: number): number {
  if (whole === 0) return 0;
  // Hundredths of a percent in integers: round(10000 * part / whole), then two decimals.
  return Math.round((10000 * part) / whole) / 100;
}
