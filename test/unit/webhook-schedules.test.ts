// D13: each delivery format's schedule and rules, row by row (domain/webhooks/schedules.ts,
// domain/webhooks/formats.ts), against documents 000 section 6.3 and 001 sections 6.1 and 6.2.
import { describe, expect, it } from '@jest/globals';
import { EVENTS_RETRY_WAITS_SECONDS, FIELD_RETRY_WAITS_SECONDS, LONG_SCHEDULE_JITTER_RATIO, nextAttemptFor, tableDelayMs } from '../../domain/webhooks/schedules';
import { nextAttempt } from '../../domain/webhooks/backoff';
import { FORMAT_RULES } from '../../domain/webhooks/formats';
import { EVENTS_EVENT_NAMES, EVENT_NAMES, FIELD_EVENT_NAMES, FORMAT_CATALOGUES, formatsCarrying } from '../../domain/events/catalogue';

const DAY = 24 * 3600;
const seconds = (minutes: number) => minutes * 60;

describe('the field schedule (document 001 section 6.1: exponential backoff with jitter for 24 hours)', () => {
  // Row n: the base wait after failed attempt n.
  const rows: [number, number][] = [
    [1, seconds(1)],
    [2, seconds(2)],
    [3, seconds(4)],
    [4, seconds(8)],
    [5, seconds(16)],
    [6, seconds(32)],
    [7, seconds(64)],
    [8, seconds(128)],
    [9, seconds(256)],
    [10, seconds(512)],
    [11, seconds(417)],
  ];
  it.each(rows)('after failed attempt %i the base wait is %i seconds', (attempt, wait) => {
    expect(FIELD_RETRY_WAITS_SECONDS[attempt - 1]).toBe(wait);
    expect(nextAttemptFor('field', attempt, () => 0)).toEqual({ retry: true, attempt: attempt + 1, delayMs: wait * 1000 });
  });
  it('has exactly those rows: 12 attempts, the last 24 hours after the first; then none remains', () => {
    expect(FIELD_RETRY_WAITS_SECONDS).toHaveLength(rows.length);
    expect(FIELD_RETRY_WAITS_SECONDS.reduce((a, b) => a + b, 0)).toBe(DAY);
    expect(nextAttemptFor('field', 12)).toEqual({ retry: false, reason: 'attempts_exhausted' });
    expect(nextAttemptFor('field', 13)).toEqual({ retry: false, reason: 'attempts_exhausted' });
  });
  it('doubles every wait until the rest of the day', () => {
    for (let i = 1; i < 10; i++) expect(FIELD_RETRY_WAITS_SECONDS[i]).toBe(2 * FIELD_RETRY_WAITS_SECONDS[i - 1]!);
  });
});

describe('the events schedule (document 001 section 6.2: 8 attempts over 24 hours starting at 10 seconds)', () => {
  // Row n: the base wait after failed attempt n, and when attempt n + 1 starts.
  const rows: [number, number, number][] = [
    [1, 10, 10],
    [2, 50, 60],
    [3, 240, 300],
    [4, 1_500, 1_800],
    [5, 5_400, 7_200],
    [6, 21_600, 28_800],
    [7, 57_600, DAY],
  ];
  it.each(rows)('after failed attempt %i the base wait is %i seconds (the next attempt at %i s)', (attempt, wait, at) => {
    expect(EVENTS_RETRY_WAITS_SECONDS[attempt - 1]).toBe(wait);
    expect(EVENTS_RETRY_WAITS_SECONDS.slice(0, attempt).reduce((a, b) => a + b, 0)).toBe(at);
    expect(nextAttemptFor('events', attempt, () => 0)).toEqual({ retry: true, attempt: attempt + 1, delayMs: wait * 1000 });
  });
  it('has exactly those rows: 8 attempts in all, the first retry at 10 seconds, the last at 24 hours', () => {
    expect(EVENTS_RETRY_WAITS_SECONDS).toHaveLength(7);
    expect(nextAttemptFor('events', 8)).toEqual({ retry: false, reason: 'attempts_exhausted' });
  });
  it('grows every wait (exponential backoff)', () => {
    for (let i = 1; i < EVENTS_RETRY_WAITS_SECONDS.length; i++) expect(EVENTS_RETRY_WAITS_SECONDS[i]! / EVENTS_RETRY_WAITS_SECONDS[i - 1]!).toBeGreaterThan(2);
  });
});

describe('jitter of the long schedules', () => {
  it('lengthens each wait by [0, 10 %), never shortens it, for every row of both tables', () => {
    expect(LONG_SCHEDULE_JITTER_RATIO).toBe(0.1);
    for (const table of [FIELD_RETRY_WAITS_SECONDS, EVENTS_RETRY_WAITS_SECONDS]) {
      table.forEach((wait, index) => {
        const base = wait * 1000;
        expect(tableDelayMs(table, index + 1, () => 0)).toBe(base);
        expect(tableDelayMs(table, index + 1, () => 0.5)).toBe(Math.floor(base * 1.05));
        const top = tableDelayMs(table, index + 1, () => 0.999999999);
        expect(top).toBeLessThan(base * 1.1);
        expect(top).toBeGreaterThanOrEqual(Math.floor(base * 1.0999));
        // A misbehaving source stays within bounds.
        expect(tableDelayMs(table, index + 1, () => 7)).toBeLessThan(base * 1.1);
        expect(tableDelayMs(table, index + 1, () => -1)).toBe(base);
      });
    }
  });
  it('so a day of jittered waits is never shorter than 24 hours (the field endpoint is then past its 24 hours of failures)', () => {
    for (const format of ['field', 'events'] as const) {
      let total = 0;
      for (let attempt = 1; ; attempt++) {
        const next = nextAttemptFor(format, attempt, Math.random);
        if (!next.retry) break;
        total += next.delayMs;
      }
      expect(total).toBeGreaterThanOrEqual(DAY * 1000);
      expect(total).toBeLessThan(DAY * 1000 * 1.1);
    }
  });
});

describe('core is unchanged (document 000 section 6.3 rule 5)', () => {
  it('follows the 5-attempt 2^n schedule for every attempt', () => {
    for (let attempt = 1; attempt <= 6; attempt++) expect(nextAttemptFor('core', attempt, () => 0.25)).toEqual(nextAttempt(attempt, () => 0.25));
  });
  it('refuses attempt numbers that are not positive integers in every format', () => {
    for (const format of ['core', 'field', 'events'] as const) for (const bad of [0, -1, 1.5]) expect(() => nextAttemptFor(format, bad)).toThrow(RangeError);
  });
});

describe("each format's rules (D13)", () => {
  const rows = [
    // format, response window, disabled after failing for, reason, retries every non-2xx
    ['core', 8_000, 72, 'failing for 72 hours', false],
    ['field', 10_000, 24, 'failing for 24 hours', true],
    ['events', 300_000, 72, 'failing for 72 hours', true],
  ] as const;
  it.each(rows)('%s: a %i ms window, disabled after %i hours of failures (%s), retries every failure: %s', (format, window, hours, reason, everyFailure) => {
    expect(FORMAT_RULES[format]).toEqual({ responseWindowMs: window, disableAfterFailingMs: hours * 3600 * 1000, disabledReason: reason, retriesEveryFailure: everyFailure });
  });
  it('has exactly those formats', () => expect(Object.keys(FORMAT_RULES).sort()).toEqual(['core', 'events', 'field']));
});

describe("each format's catalogue (D13), and which formats carry each event", () => {
  it('field and events are the names D13 lists; core is document 000 section 6.2', () => {
    expect([...FIELD_EVENT_NAMES]).toEqual(['job.dispatched', 'job.status_changed', 'job.completed', 'job.customer_changed', 'change_order.submitted', 'change_order.approved', 'change_order.rejected', 'quote.created', 'invoice.generated', 'dispatch.updated']);
    expect([...EVENTS_EVENT_NAMES]).toEqual(['quote.created', 'invoice.generated', 'pricebook.published', 'dispatch.updated']);
    expect(FORMAT_CATALOGUES).toEqual({ core: EVENT_NAMES, field: FIELD_EVENT_NAMES, events: EVENTS_EVENT_NAMES });
  });
  const carriers: [string, string[]][] = [
    ['quote.approved', ['core']],
    ['work_order.dispatched', ['core']],
    ['work_order.completed', ['core']],
    ['work_order.pending', ['core']],
    ['work_order.cancelled', ['core']],
    ['job.dispatched', ['field']],
    ['job.status_changed', ['field']],
    ['job.completed', ['field']],
    ['change_order.submitted', ['field']],
    ['change_order.approved', ['field']],
    ['change_order.rejected', ['field']],
    ['quote.created', ['field', 'events']],
    ['invoice.generated', ['field', 'events']],
    // D21
    ['pricebook.published', ['core', 'events']],
    // D23: every format
    ['dispatch.updated', ['core', 'field', 'events']],
    ['*', []],
  ];
  it.each(carriers)('%s goes to endpoints of %j', (event, formats) => expect(formatsCarrying(event)).toEqual(formats));
});
