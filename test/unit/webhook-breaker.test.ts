// The circuit breaker of an endpoint's delivery workflow (workflows/webhook-breaker.ts),
// every transition of its table, and what it lets a batch do in each state.
import { describe, expect, it } from '@jest/globals';
import { BREAKER_TRANSITIONS, batchAllowance, batchEvent, breakerAfter, coolDownLeftMs, initialBreaker, type BreakerEvent } from '../../workflows/webhook-breaker';
import { ENDPOINT_DELIVERY_LIMITS } from '../../workflows/webhook-endpoint-delivery';
import type { BreakerState, BreakerStateName } from '../../infra/temporal/contracts';

const limits = { failuresToOpen: 5, coolDownMs: 1_000, maxCoolDownMs: 4_000, batchSize: 100 };
const at = (state: BreakerStateName, over: Partial<BreakerState> = {}): BreakerState => ({ state, failures: 0, openedAt: state === 'open' ? 0 : null, coolDownMs: limits.coolDownMs, ...over });
const after = (from: BreakerState, event: BreakerEvent, failures = 1, now = 10_000) => breakerAfter(from, event, { failures, now, limits });

describe('the breaker\'s transitions, pair by pair', () => {
  // [from, event, failures in the batch, to]
  const rows: [string, BreakerState, BreakerEvent, number, BreakerState][] = [
    ['closed, delivered: stays closed, count reset', at('closed', { failures: 3 }), 'delivered', 0, at('closed')],
    ['closed, failures under the threshold: counted', at('closed', { failures: 1 }), 'failed', 2, at('closed', { failures: 3 })],
    ['closed, failures reach the threshold: open', at('closed', { failures: 3 }), 'failed', 2, { state: 'open', failures: 5, openedAt: 10_000, coolDownMs: 1_000 }],
    ['closed, cooled_down: not a transition of closed', at('closed', { failures: 2 }), 'cooled_down', 0, at('closed', { failures: 2 })],
    ['open, cooled_down: half-open', at('open', { failures: 5 }), 'cooled_down', 0, { state: 'half_open', failures: 5, openedAt: 0, coolDownMs: 1_000 }],
    ['open, delivered: cannot happen (nothing is sent); unchanged', at('open'), 'delivered', 0, at('open')],
    ['open, failed: cannot happen; unchanged', at('open'), 'failed', 1, at('open')],
    ['half-open, probe delivered: closed, cool-down back to its first length', at('half_open', { failures: 6, coolDownMs: 2_000 }), 'delivered', 0, at('closed')],
    ['half-open, probe failed: open again, cool-down doubled', at('half_open', { failures: 5, coolDownMs: 1_000 }), 'failed', 1, { state: 'open', failures: 6, openedAt: 10_000, coolDownMs: 2_000 }],
    ['half-open, probe failed at the ceiling: open, cool-down stays at the ceiling', at('half_open', { coolDownMs: 4_000 }), 'failed', 1, { state: 'open', failures: 1, openedAt: 10_000, coolDownMs: 4_000 }],
    ['half-open, cooled_down: not a transition of half-open', at('half_open'), 'cooled_down', 0, at('half_open')],
  ];
  it.each(rows)('%s', (_name, from, event, failures, to) => {
    expect(after(from, event, failures)).toEqual(to);
  });

  it('lists exactly the transitions the rows above cover (no untested pair)', () => {
    const listed = Object.entries(BREAKER_TRANSITIONS).flatMap(([state, events]) => Object.keys(events).map((event) => `${state}:${event}`));
    expect(listed.sort()).toEqual(['closed:delivered', 'closed:failed', 'half_open:delivered', 'half_open:failed', 'open:cooled_down']);
  });

  it('starts closed with the first cool-down', () => {
    expect(initialBreaker(limits)).toEqual(at('closed'));
  });
});

describe('what a batch tells the breaker, and what the breaker lets a batch do', () => {
  it('a delivery in the batch is success, failures alone are failure, nothing attempted is nothing', () => {
    expect(batchEvent({ delivered: 1, retryableFailures: 9 })).toBe('delivered');
    expect(batchEvent({ delivered: 0, retryableFailures: 2 })).toBe('failed');
    expect(batchEvent({ delivered: 0, retryableFailures: 0 })).toBeNull();
  });

  it('closed: a full batch, stopped early once the failures left before opening are used; half-open: one probe; open: nothing', () => {
    expect(batchAllowance(at('closed'), limits)).toEqual({ claim: 100, stopAfterFailures: 5 });
    expect(batchAllowance(at('closed', { failures: 4 }), limits)).toEqual({ claim: 100, stopAfterFailures: 1 });
    expect(batchAllowance(at('half_open'), limits)).toEqual({ claim: 1, stopAfterFailures: 1 });
    expect(batchAllowance(at('open'), limits)).toEqual({ claim: 0, stopAfterFailures: 0 });
  });

  it('an open breaker waits out its cool-down from when it opened', () => {
    expect(coolDownLeftMs(at('open', { openedAt: 10_000 }), 10_400)).toBe(600);
    expect(coolDownLeftMs(at('open', { openedAt: 10_000 }), 12_000)).toBe(0);
    expect(coolDownLeftMs(at('closed'), 12_000)).toBeNull();
  });
});

describe('the endpoint workflow\'s fixed figures', () => {
  it('a dead endpoint holds at most its own concurrency before the breaker opens', () => {
    expect(ENDPOINT_DELIVERY_LIMITS.failuresToOpen).toBeLessThanOrEqual(ENDPOINT_DELIVERY_LIMITS.concurrency);
  });
});
