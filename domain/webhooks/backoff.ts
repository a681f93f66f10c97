// The retry schedule of outbound deliveries (spec 6.3 rule 5): at most 5 attempts in total,
// backing off 2^n seconds with jitter after failed attempt n.
//
// It runs inside the endpoint's delivery workflow (where Math.random is replaced by a deterministic,
// seeded source), so it is pure and must stay free of imports that do I/O.
//
// Jitter: ±20 % uniform around 2^n seconds, i.e. a wait in [0.8·2^n, 1.2·2^n). Centred jitter
// keeps the documented 2^n as the mean (2 + 4 + 8 + 16 = 30 s of waiting on average, plus up to
// 5 × 8 s of attempts: "about a minute end to end") while still spreading retries of many
// deliveries that failed together (one receiver outage) so they do not return in lockstep.

export const MAX_DELIVERY_ATTEMPTS = 5;
export const BACKOFF_JITTER_RATIO = 0.2;

export type NextAttempt =
  | { retry: true; attempt: number; delayMs: number }
  | { retry: false; reason: 'attempts_exhausted' };

/** A source of numbers in [0, 1), such as Math.random or a seeded generator. */
export type RandomSource = () => number;

/** The wait after failed attempt `attempt` (1-based), in whole milliseconds. */
export function backoffDelayMs(attempt: number, random: RandomSource = Math.random): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  const base = 2 ** attempt * 1000;
  const low = base * (1 - BACKOFF_JITTER_RATIO);
  const high = base * (1 + BACKOFF_JITTER_RATIO);
  // Clamped so that a misbehaving source (or float rounding near 1) stays in [low, high).
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.min(Math.floor(low + (high - low) * r), Math.ceil(high) - 1);
}

/**
 * What follows failed attempt `failedAttempt` (1-based): the next attempt's number and the wait
 * before it, or that none remains. Whether a failure is retryable at all (spec 6.3 rule 4) is
 * the delivery result's business (deliver.ts), not this schedule's.
 */
export function nextAttempt(failedAttempt: number, random: RandomSource = Math.random): NextAttempt {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) {
    throw new RangeError(`attempt must be a positive integer, got ${failedAttempt}`);
  }
  if (failedAttempt >= MAX_DELIVERY_ATTEMPTS) return { retry: false, reason: 'attempts_exhausted' };
  return { retry: true, attempt: failedAttempt + 1, delayMs: backoffDelayMs(failedAttempt, random) };
}
