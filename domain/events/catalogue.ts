/**
 * Section 6.2 of document 000: every event of the core format. Adding an event is one line here
 * (and its data builder where the change happens); subscriptions (D6) validate against this list.
 */
export const EVENT_NAMES = [
  'quote.approved',
  'work_order.dispatched',
  'work_order.completed',
  'work_order.pending',
  'work_order.cancelled',
  // D21: a price book revision became current (also in the `events` catalogue).
  'pricebook.published',
  // D23: a crew's day changed (in every format's catalogue).
  'dispatch.updated',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

/**
 * D13: the three delivery formats of a webhook endpoint, fixed at its registration. `core` is
 * document 000 section 6, `field` document 001 section 6.1, `events` document 001 section 6.2.
 */
export const WEBHOOK_FORMATS = ['core', 'field', 'events'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** D13: the `field` catalogue (document 001 section 6.1). */
export const FIELD_EVENT_NAMES = [
  'job.dispatched',
  'job.status_changed',
  'job.completed',
  // D11: the office set (or changed, or cleared) a job's customer.
  'job.customer_changed',
  'change_order.submitted',
  'change_order.approved',
  'change_order.rejected',
  'quote.created',
  'invoice.generated',
  'dispatch.updated',
] as const;

export type FieldEventName = (typeof FIELD_EVENT_NAMES)[number];

/** D13: the `events` catalogue (document 001 section 6.2; `dispatch.updated` with D23). */
export const EVENTS_EVENT_NAMES = ['quote.created', 'invoice.generated', 'pricebook.published', 'dispatch.updated'] as const;
export type EventsEventName = (typeof EVENTS_EVENT_NAMES)[number];

/**
 * Each format's catalogue, as data: an endpoint may subscribe only to names of its format's
 * catalogue (422 otherwise), and an event goes only to endpoints of a format whose catalogue
 * carries it, so a core endpoint subscribed to "*" never receives `quote.created`.
 */
export const FORMAT_CATALOGUES: { readonly [F in WebhookFormat]: readonly string[] } = {
  core: EVENT_NAMES,
  field: FIELD_EVENT_NAMES,
  events: EVENTS_EVENT_NAMES,
};

/** Every name the outbox may carry: the union of the catalogues. */
export type OutboxEventName = EventName | FieldEventName | EventsEventName;

/** The formats whose catalogue carries `event` (none for a name outside every catalogue). */
export function formatsCarrying(event: string): WebhookFormat[] {
  return WEBHOOK_FORMATS.filter((format) => FORMAT_CATALOGUES[format].includes(event));
}


/**
 * Document 000 section 6.1: the envelope every event is stored with in the outbox. Its `data` is
 * the event's schema in domain/events/event-data.ts (`recordEvent` is typed by it).
 */
export interface EventEnvelope<D = Record<string, unknown>> {
  event: OutboxEventName;
  id: string;
  organization_id: string;
  created_at: string;
  data: D;
}
