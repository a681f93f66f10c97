// Spec 6.3 rule 5: at most 5 attempts, 2^n seconds with jitter (±20 %, see domain/webhooks/backoff.ts).
import { describe, expect, it } from '@jest/globals';
import { BACKOFF_JITTER_RATIO, MAX_DELIVERY_ATTEMPTS, backoffDelayMs, nextAttempt } from '../../domain/webhooks/backoff';

/** mulberry32: a tiny seeded generator, standing in for the workflow's deterministic Math.random. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function schedule(random: () => number): number[] {
  const delays: number[] = [];
  for (let attempt = 1; ; attempt++) {
    const next = nextAttempt(attempt, random);
    if (!next.retry) break;
    expect(next.attempt).toBe(attempt + 1);
    delays.push(next.delayMs);
  }
  return delays;
}

describe('delivery retry schedule (spec 6.3 rule 5)', () => {
  it('allows 5 attempts in total: 4 waits, then none remains', () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(5);
    expect(schedule(() => 0.5)).toHaveLength(4);
    expect(nextAttempt(5, () => 0.5)).toEqual({ retry: false, reason: 'attempts_exhausted' });
    expect(nextAttempt(6, () => 0.5)).toEqual({ retry: false, reason: 'attempts_exhausted' });
  });

  it('waits exactly 2^n seconds at the middle of the jitter band', () => {
    expect(schedule(() => 0.5)).toEqual([2000, 4000, 8000, 16000]);
  });

  it('keeps every wait within ±20 % of 2^n seconds, at the band edges too', () => {
    expect(BACKOFF_JITTER_RATIO).toBe(0.2);
    expect(schedule(() => 0)).toEqual([1600, 3200, 6400, 12800]);
    const top = schedule(() => 0.999999999);
    top.forEach((delay, i) => {
      expect(delay).toBeLessThan(2 ** (i + 1) * 1200);
      expect(delay).toBeGreaterThan(2 ** (i + 1) * 1199);
    });
    const random = seeded(42);
    for (let run = 0; run < 1000; run++) {
      for (let n = 1; n <= 4; n++) {
        const delay = backoffDelayMs(n, random);
        expect(delay).toBeGreaterThanOrEqual(2 ** n * 800);
        expect(delay).toBeLessThan(2 ** n * 1200);
        expect(Number.isInteger(delay)).toBe(true);
      }
    }
  });

  it('stays in the band when the random source misbehaves', () => {
    expect(backoffDelayMs(1, () => -3)).toBe(1600);
    expect(backoffDelayMs(1, () => 7)).toBeLessThan(2400);
    expect(backoffDelayMs(1, () => 1)).toBeLessThan(2400);
  });

  it('adds up to about a minute end to end with 8-second attempts (30 s of waiting on average)', () => {
    const random = seeded(7);
    let total = 0;
    const runs = 2000;
    for (let i = 0; i < runs; i++) total += schedule(random).reduce((a, b) => a + b, 0);
    expect(total / runs).toBeGreaterThan(29_000);
    expect(total / runs).toBeLessThan(31_000);
    // Worst case: the top of every band and every attempt timing out at 8 s (spec 6.3 rule 3).
    const longestWait = schedule(() => 0.999999999).reduce((a, b) => a + b, 0);
    expect(longestWait + MAX_DELIVERY_ATTEMPTS * 8000).toBeLessThan(80_000);
  });

  it('is deterministic for a given seed (it runs inside a Temporal workflow)', () => {
    expect(schedule(seeded(1234))).toEqual(schedule(seeded(1234)));
    expect(schedule(seeded(1234))).not.toEqual(schedule(seeded(4321)));
  });

  it('refuses attempt numbers that are not positive integers', () => {
    expect(() => nextAttempt(0)).toThrow(RangeError);
    expect(() => nextAttempt(1.5)).toThrow(RangeError);
    expect(() => backoffDelayMs(-1)).toThrow(RangeError);
  });
});
