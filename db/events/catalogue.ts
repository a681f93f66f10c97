/**
 * Section 6.2: every event the service emits. Adding an event is one line here (and its data
 * builder where the change happens); subscriptions (D6) validate against this list.
 */
export const EVENT_NAMES = [
  'quote.approved',
  'work_order.dispatched',
  'work_order.completed',
  'work_order.pending',
  'work_order.cancelled',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

/** Section 6.1. */
export interface EventEnvelope<D = Record<string, unknown>> {
  event: EventName;
  id: string;
  organization_id: string;
  created_at: string;
  data: D;
}
