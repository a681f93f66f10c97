// The circuit breaker of one endpoint's delivery workflow, as a table of transitions.
//
// A receiver that times out or fails every attempt would otherwise keep its endpoint's batches
// busy for a response window per request. After `failuresToOpen` retryable failures in a row with
// nothing delivered the breaker opens: the endpoint's due deliveries wait (their attempts are not
// spent) for a cool-down, then one probe (half-open) decides: delivered closes it, failed opens it
// again with the cool-down doubled (up to its ceiling). Deliveries are held, never dropped: the
// endpoint's own failure clock still runs on the probes' failures and disables it after its hours
// (D6, D13), and then its pending deliveries become missed and re-enabling replays them.
//
// Pure and deterministic (it runs inside the workflow, with the workflow's clock passed in).
import type { BreakerState, BreakerStateName, EndpointDeliveryLimits } from '../infra/temporal/contracts';

/** What one batch (or the clock) tells the breaker. */
export type BreakerEvent =
  /** At least one attempt was delivered (2xx). */
  | 'delivered'
  /** Attempts were made, none delivered, some failed in a retryable way (timeout, network, 5xx, 408, 429). */
  | 'failed'
  /** The open breaker's cool-down is over. */
  | 'cooled_down';

export type BreakerLimits = Pick<EndpointDeliveryLimits, 'failuresToOpen' | 'coolDownMs' | 'maxCoolDownMs'>;

interface EventFacts {
  /** Retryable failures in this batch (for `failed`). */
  failures: number;
  now: number;
  limits: BreakerLimits;
}

type Transition = (from: BreakerState, facts: EventFacts) => BreakerState;

const closed = (limits: BreakerLimits): BreakerState => ({ state: 'closed', failures: 0, openedAt: null, coolDownMs: limits.coolDownMs });

/**
 * Every (state, event) pair, each tested (test/unit/webhook-breaker.test.ts). A pair missing here
 * cannot happen: an open breaker delivers nothing, so only its cool-down moves it.
 */
export const BREAKER_TRANSITIONS: { readonly [S in BreakerStateName]: { readonly [E in BreakerEvent]?: Transition } } = {
  closed: {
    delivered: (_from, { limits }) => closed(limits),
    failed: (from, { failures, now, limits }) =>
      from.failures + failures >= limits.failuresToOpen
        ? { state: 'open', failures: from.failures + failures, openedAt: now, coolDownMs: limits.coolDownMs }
        : { ...from, failures: from.failures + failures },
  },
  open: {
    cooled_down: (from) => ({ ...from, state: 'half_open' }),
  },
  half_open: {
    delivered: (_from, { limits }) => closed(limits),
    failed: (from, { failures, now, limits }) => ({ state: 'open', failures: from.failures + failures, openedAt: now, coolDownMs: Math.min(from.coolDownMs * 2, limits.maxCoolDownMs) }),
  },
};

export function initialBreaker(limits: BreakerLimits): BreakerState {
  return closed(limits);
}

/** The breaker after `event`; a pair the table does not list leaves it as it is. */
export function breakerAfter(from: BreakerState, event: BreakerEvent, facts: EventFacts): BreakerState {
  const transition = BREAKER_TRANSITIONS[from.state][event];
  return transition ? transition(from, facts) : from;
}

/** What a batch's outcome is to the breaker: nothing attempted tells it nothing. */
export function batchEvent(outcome: { delivered: number; retryableFailures: number }): BreakerEvent | null {
  if (outcome.delivered > 0) return 'delivered';
  if (outcome.retryableFailures > 0) return 'failed';
  return null;
}

/** How many deliveries the next batch may claim, and how many failures in a row stop it early. */
export function batchAllowance(breaker: BreakerState, limits: BreakerLimits & Pick<EndpointDeliveryLimits, 'batchSize'>): { claim: number; stopAfterFailures: number } {
  switch (breaker.state) {
    case 'closed':
      return { claim: limits.batchSize, stopAfterFailures: Math.max(1, limits.failuresToOpen - breaker.failures) };
    case 'half_open':
      return { claim: 1, stopAfterFailures: 1 };
    case 'open':
      return { claim: 0, stopAfterFailures: 0 };
  }
}

/** Milliseconds until an open breaker cools down (0 once it has); null when it is not open. */
export function coolDownLeftMs(breaker: BreakerState, now: number): number | null {
  if (breaker.state !== 'open' || breaker.openedAt === null) return null;
  return Math.max(0, breaker.openedAt + breaker.coolDownMs - now);
}
