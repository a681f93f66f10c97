import { describe, expect, it } from '@jest/globals';
import { FORMAT_CATALOGUES, type OutboxEventName } from '../../domain/events/catalogue';
import { EVENT_DATA_SCHEMAS } from '../../domain/events/event-data';
import type { recordEvent } from '../../db/events/outbox';
import { EVENT_DATA_EXAMPLES } from '../../api/events/examples';

/** The data `recordEvent` takes for `N`: what a service must build. */
type RecordedData<N extends OutboxEventName> = Parameters<typeof recordEvent<N>>[3];

describe('the event catalogue: one data schema per event name (D13)', () => {
  it('has a schema for every name of every format, and nothing else', () => {
    const names = new Set(Object.values(FORMAT_CATALOGUES).flat());
    expect(new Set(Object.keys(EVENT_DATA_SCHEMAS))).toEqual(names);
    expect(names.size).toBe(16);
  });

  it('the documented example of every name parses with its schema', () => {
    for (const [event, schema] of Object.entries(EVENT_DATA_SCHEMAS)) {
      const parsed = schema.safeParse(EVENT_DATA_EXAMPLES[event as OutboxEventName]);
      expect({ event, issues: parsed.error?.issues ?? [] }).toEqual({ event, issues: [] });
    }
  });

  it('refuses a payload of another event, an unknown field and a missing one', () => {
    expect(EVENT_DATA_SCHEMAS['job.completed'].safeParse(EVENT_DATA_EXAMPLES['job.dispatched']).success).toBe(false);
    expect(EVENT_DATA_SCHEMAS['quote.created'].safeParse({ ...EVENT_DATA_EXAMPLES['quote.created'], cost: 1 }).success).toBe(false);
    const { hours_logged: _, ...withoutHours } = EVENT_DATA_EXAMPLES['job.completed'];
    expect(EVENT_DATA_SCHEMAS['job.completed'].safeParse(withoutHours).success).toBe(false);
  });

  it('types recordEvent by the name: a wrong payload does not compile (tsc checks the lines below)', () => {
    const completed: RecordedData<'job.completed'> = EVENT_DATA_EXAMPLES['job.completed'];
    // @ts-expect-error: job.completed carries hours, not a dispatch
    const wrongEvent: RecordedData<'job.completed'> = EVENT_DATA_EXAMPLES['job.dispatched'];
    // @ts-expect-error: a work order's event carries its own status only
    const wrongStatus: RecordedData<'work_order.pending'> = { ...EVENT_DATA_EXAMPLES['work_order.pending'], status: 'DISPATCHED' };
    // @ts-expect-error: every field of the data is required
    const partial: RecordedData<'work_order.dispatched'> = { work_order_id: EVENT_DATA_EXAMPLES['work_order.dispatched'].work_order_id, status: 'DISPATCHED' };
    expect([completed, wrongEvent, wrongStatus, partial]).toHaveLength(4);
  });
});
