// D13: the retry schedules of the `field` and `events` delivery formats, as data (the `core`
// schedule, document 000 section 6.3 rule 5, is backoff.ts's; nextAttemptFor picks by format).
//
// Each table lists the base wait after failed attempt n (row n, 1-based); one attempt more than
// rows in all. Both run for exactly 24 hours of base waits, so the last attempt lands 24 hours
// after the first (the field endpoint's 24 hours of failures are then over, and it is disabled).
//
// Jitter: each wait is lengthened by a uniform [0, 10 %) of itself (never shortened, so the last
// attempt is never before the 24 hours are over), spreading retries of many deliveries that failed
// together. Runs inside the workflow (seeded Math.random), so it is pure and does no I/O.
import type { WebhookFormat } from './formats';
import { nextAttempt, type NextAttempt, type RandomSource } from './backoff';

const MINUTE = 60;

/**
 * Document 001 section 6.1: "retried with exponential backoff for 24 hours". Doubling from one
 * minute (1, 2, 4, ... 512 minutes: 17 h 3 min), then the rest of the 24 hours (6 h 57 min):
 * 12 attempts, the last at 24 hours.
 */
export const FIELD_RETRY_WAITS_SECONDS: readonly number[] = [
  1 * MINUTE,
  2 * MINUTE,
  4 * MINUTE,
  8 * MINUTE,
  16 * MINUTE,
  32 * MINUTE,
  64 * MINUTE,
  128 * MINUTE,
  256 * MINUTE,
  512 * MINUTE,
  24 * 60 * MINUTE - 1023 * MINUTE,
];

/**
 * Document 001 section 6.2: "8 attempts with exponential backoff for 24 hours starting at 10
 * seconds". Attempts at 0, 10 s, 1 min, 5 min, 30 min, 2 h, 8 h and 24 h.
 */
export const EVENTS_RETRY_WAITS_SECONDS: readonly number[] = [10, 50, 240, 1_500, 5_400, 21_600, 57_600];

export const LONG_SCHEDULE_JITTER_RATIO = 0.1;

export const RETRY_WAITS_SECONDS: { readonly [F in Exclude<WebhookFormat, 'core'>]: readonly number[] } = {
  field: FIELD_RETRY_WAITS_SECONDS,
  events: EVENTS_RETRY_WAITS_SECONDS,
};

/** The wait after failed attempt `failedAttempt` of a table, jittered upwards, in whole milliseconds. */
export function tableDelayMs(waits: readonly number[], failedAttempt: number, random: RandomSource): number {
  const base = waits[failedAttempt - 1]! * 1000;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.min(Math.floor(base * (1 + LONG_SCHEDULE_JITTER_RATIO * r)), Math.ceil(base * (1 + LONG_SCHEDULE_JITTER_RATIO)) - 1);
}

/** What follows failed attempt `failedAttempt` (1-based) of a delivery in `format`. */
export function nextAttemptFor(format: WebhookFormat, failedAttempt: number, random: RandomSource = Math.random): NextAttempt {
  if (format === 'core') return nextAttempt(failedAttempt, random);
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) throw new RangeError(`attempt must be a positive integer, got ${failedAttempt}`);
  const waits = RETRY_WAITS_SECONDS[format];
  if (failedAttempt > waits.length) return { retry: false, reason: 'attempts_exhausted' };
  return { retry: true, attempt: failedAttempt + 1, delayMs: tableDelayMs(waits, failedAttempt, random) };
}
