/**
 * D3: a DRAFT or SENT quote is valid for the tenant's `quote_validity_days` (a tenant setting,
 * default 30) from its creation; after that the scheduled job expires it.
 */
const DAY_MS = 86_400_000;

/** Until when a quote made at `createdAt` is valid. */
export function quoteValidUntil(createdAt: Date, validityDays: number): Date {
  return new Date(createdAt.getTime() + validityDays * DAY_MS);
}

/** Quotes made before this instant are past their validity at `now`. */
export function quoteExpiryCutoff(now: Date, validityDays: number): Date {
  return new Date(now.getTime() - validityDays * DAY_MS);
}
