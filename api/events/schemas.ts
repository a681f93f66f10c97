import { z } from 'zod';
import { Timestamp } from '../http/common-schemas';
import { Rfc3339 } from '../fsm/schemas';
import type { EventName, FieldEventName, EventsEventName } from '../../domain/events/catalogue';
import { EVENT_DATA_SCHEMAS } from '../../domain/events/event-data';

/**
 * Section 6.1 and 6.2: the body of each outbound event, as receivers get it, in each format
 * (D13). The data of every event is its one schema in domain/events/event-data.ts; here it is
 * wrapped in each format's envelope for the OpenAPI document's `webhooks`. Tests check that the
 * events the services record parse with them, so the document cannot drift from what is sent.
 */
const envelope = <E extends EventName, D extends z.ZodObject>(event: E, data: D, id: string) =>
  z
    .strictObject({
      event: z.literal(event),
      id: z.uuid().meta({ description: 'Stable across retries and replays: de-duplicate on it (also in X-Service-Delivery)' }),
      organization_id: z.uuid(),
      created_at: Timestamp,
      data,
    })
    .meta({ id });

export const EVENT_SCHEMAS = {
  'quote.approved': envelope('quote.approved', EVENT_DATA_SCHEMAS['quote.approved'], 'QuoteApprovedEvent'),
  'work_order.dispatched': envelope('work_order.dispatched', EVENT_DATA_SCHEMAS['work_order.dispatched'], 'WorkOrderDispatchedEvent'),
  'work_order.completed': envelope('work_order.completed', EVENT_DATA_SCHEMAS['work_order.completed'], 'WorkOrderCompletedEvent'),
  'work_order.pending': envelope('work_order.pending', EVENT_DATA_SCHEMAS['work_order.pending'], 'WorkOrderPendingEvent'),
  'work_order.cancelled': envelope('work_order.cancelled', EVENT_DATA_SCHEMAS['work_order.cancelled'], 'WorkOrderCancelledEvent'),
  'pricebook.published': envelope('pricebook.published', EVENT_DATA_SCHEMAS['pricebook.published'], 'PricebookPublishedEvent'),
  'dispatch.updated': envelope('dispatch.updated', EVENT_DATA_SCHEMAS['dispatch.updated'], 'DispatchUpdatedEvent'),
} satisfies Record<EventName, z.ZodType>;

/** `job.status_changed` as `JobStatusChanged`: the name of a schema in the document. */
export const pascal = (event: string) => event.replace(/(^|[._])([a-z])/g, (_, _sep: string, c: string) => c.toUpperCase());

/**
 * The data of an event the field and events formats both send (`quote.created`,
 * `invoice.generated`) is one component, referenced by both envelopes.
 */
const dataComponent = <E extends FieldEventName | EventsEventName>(event: E) => EVENT_DATA_SCHEMAS[event].meta({ id: `${pascal(event)}Data` });
const DATA_COMPONENTS = {
  'job.dispatched': dataComponent('job.dispatched'),
  'job.status_changed': dataComponent('job.status_changed'),
  'job.completed': dataComponent('job.completed'),
  'job.customer_changed': dataComponent('job.customer_changed'),
  'change_order.submitted': dataComponent('change_order.submitted'),
  'change_order.approved': dataComponent('change_order.approved'),
  'change_order.rejected': dataComponent('change_order.rejected'),
  'quote.created': dataComponent('quote.created'),
  'invoice.generated': dataComponent('invoice.generated'),
  'pricebook.published': dataComponent('pricebook.published'),
  'dispatch.updated': dataComponent('dispatch.updated'),
} satisfies Record<FieldEventName | EventsEventName, z.ZodType>;

/** Document 001 section 6.1: `event`, `event_id`, `occurred_at`, `data`. */
const fieldEnvelope = <E extends FieldEventName>(event: E) =>
  z
    .strictObject({
      event: z.literal(event),
      event_id: z.uuid().meta({ description: 'Stable across retries and replays: de-duplicate on it (also in X-Service-Event-Id)' }),
      occurred_at: Rfc3339,
      data: DATA_COMPONENTS[event],
    })
    .meta({ id: `Field${pascal(event)}Event` });

/** Document 001 section 6.2: `id`, `type`, `apiVersion`, `createdAt`, `livemode`, `data {object, previousAttributes}`. */
const eventsEnvelope = <E extends EventsEventName>(event: E) =>
  z
    .strictObject({
      id: z.uuid().meta({ description: 'Stable across retries and replays: de-duplicate on it' }),
      type: z.literal(event),
      apiVersion: z.string().nullable().meta({ description: 'The version the endpoint pinned at registration' }),
      createdAt: Rfc3339,
      livemode: z.boolean().meta({ description: 'false for an event of a sandbox workspace' }),
      data: z.strictObject({
        object: DATA_COMPONENTS[event],
        previousAttributes: z.record(z.string(), z.unknown()).nullable().meta({ description: 'The changed attributes\' prior values; null for events that describe no change' }),
      }),
    })
    .meta({ id: `Events${pascal(event)}Event` });

export const FIELD_EVENT_SCHEMAS = {
  'job.dispatched': fieldEnvelope('job.dispatched'),
  'job.status_changed': fieldEnvelope('job.status_changed'),
  'job.completed': fieldEnvelope('job.completed'),
  'job.customer_changed': fieldEnvelope('job.customer_changed'),
  'change_order.submitted': fieldEnvelope('change_order.submitted'),
  'change_order.approved': fieldEnvelope('change_order.approved'),
  'change_order.rejected': fieldEnvelope('change_order.rejected'),
  'quote.created': fieldEnvelope('quote.created'),
  'invoice.generated': fieldEnvelope('invoice.generated'),
  'dispatch.updated': fieldEnvelope('dispatch.updated'),
} satisfies Record<FieldEventName, z.ZodType>;

export const EVENTS_EVENT_SCHEMAS = {
  'quote.created': eventsEnvelope('quote.created'),
  'invoice.generated': eventsEnvelope('invoice.generated'),
  'pricebook.published': eventsEnvelope('pricebook.published'),
  'dispatch.updated': eventsEnvelope('dispatch.updated'),
} satisfies Record<EventsEventName, z.ZodType>;

/** The headers of every delivery (section 6.3). */
export const DeliveryHeaders = z.object({
  'x-service-event': z.string().meta({ description: 'The event name', example: 'quote.approved' }),
  'x-service-delivery': z.uuid().meta({ description: 'The envelope id, the same on every retry and replay', example: 'd4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b' }),
  'x-service-signature': z.string().meta({
    description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation',
    example: 't=1795430001,v1=3f1b2d6c8e0a4c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e',
  }),
});

/** Document 001 section 6.1's headers. */
export const FieldDeliveryHeaders = z.object({
  'x-service-signature': DeliveryHeaders.shape['x-service-signature'],
  'x-service-event-id': z.uuid().meta({ description: 'The envelope\'s event_id, the same on every retry and replay', example: 'e3f5a7b9-1c3d-4e5f-8a7b-9c1d3e5f7a9b' }),
});

/** Document 001 section 6.2's header. */
export const EventsDeliveryHeaders = z.object({
  'service-signature': z.string().meta({
    description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; reject a t older than 300 seconds',
    example: 't=1795430001,v1=3f1b2d6c8e0a4c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e',
  }),
});
