import type { OutboxEventName } from '../../domain/events/catalogue';
import type { EventData } from '../../domain/events/event-data';
import { EVENT_DATA_EXAMPLES } from '../../api/events/examples';

/**
 * A complete `data` of `event` for recording straight into the outbox: the OpenAPI document's
 * example with `overrides` (the fields a test looks at). `recordEvent` takes nothing less.
 */
export function sampleEventData<N extends OutboxEventName>(event: N, overrides: Partial<EventData<N>> = {}): EventData<N> {
  return { ...EVENT_DATA_EXAMPLES[event], ...overrides };
}
