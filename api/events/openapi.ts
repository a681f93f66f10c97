import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { EVENT_NAMES, EVENTS_EVENT_NAMES, FIELD_EVENT_NAMES, type EventName, type EventsEventName, type FieldEventName } from '../../domain/events/catalogue';
import { DeliveryHeaders, EVENT_SCHEMAS, EVENTS_EVENT_SCHEMAS, EventsDeliveryHeaders, FIELD_EVENT_SCHEMAS, FieldDeliveryHeaders, pascal } from './schemas';
import { EVENT_EXAMPLES, renderedEventExample } from './examples';

/** D21, in the core and events formats alike. */
const PRICEBOOK_PUBLISHED_WHEN = {
  summary: 'A price book revision became current',
  description:
    'Sent when a revision published by POST /v1/pricebooks/{id}/revisions or an import becomes current: at once, or at its future `effective_from` (a Temporal timer announces it; quotes priced from that instant use it whether or not the announcement has gone out).',
};

/** D23, in every format alike. */
const DISPATCH_UPDATED_WHEN = {
  summary: 'A crew’s day changed',
  description:
    'Sent per route that changed, after the commit: a plan applied (POST /v1/fsm/routes/{date}/plan) or a hand sequence (PUT /v1/fsm/routes/{date}/{crewId}) that moved a job between crews (`reassignment`, both routes) or reordered a route (`resequencing`), or moved its arrival times (`eta_drift`). `previousAttributes` holds the prior values of exactly what changed; `revision` increases with every change of the route, so a receiver drops an event whose revision it has passed. A repeated trigger that changes nothing sends nothing. Versions before 2026-01-20 name the foreman `technicianId`.',
};

/** Section 6.2: when each event is sent. */
const WHEN: Record<EventName, { summary: string; description: string }> = {
  'quote.approved': {
    summary: 'A quote was approved',
    description: 'Sent after POST /api/v1/quotes/{id}/approve commits; not again for a repeated approval (409).',
  },
  'work_order.dispatched': { summary: 'A work order was dispatched', description: 'Sent when PATCH /api/v1/work-orders/{id}/status moves a work order to DISPATCHED.' },
  'work_order.completed': { summary: 'A work order was completed', description: 'Sent when a DISPATCHED work order moves to COMPLETED; `changed_at` is the server’s completion time.' },
  'work_order.pending': { summary: 'A work order went back to PENDING', description: 'Sent when a DISPATCHED work order moves back to PENDING.' },
  'work_order.cancelled': { summary: 'A work order was cancelled', description: 'Sent when a PENDING or DISPATCHED work order moves to CANCELLED.' },
  'pricebook.published': PRICEBOOK_PUBLISHED_WHEN,
  'dispatch.updated': DISPATCH_UPDATED_WHEN,
};

const DELIVERY_RULES =
  'POSTed to each enabled endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`, verify as docs/webhooks.md shows). ' +
  'Answer 2xx within 8 seconds. 5xx, 408, 429, timeouts and network errors are retried, at most 5 attempts in all with backoff; other 4xx and 3xx end the delivery. ' +
  'Delivery is at least once: de-duplicate on the envelope `id`. A status PATCH that changes nothing sends nothing.';

const camel = (event: EventName) => event.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase());

const RESPONSES = {
  '2XX': { description: 'Received: the delivery is done' },
  '408': { description: 'Retried (with 429, 5xx, timeouts and network errors)' },
  '429': { description: 'Retried, like 408 and 5xx' },
  '4XX': { description: 'Any other 4xx: not retried; the delivery fails at once' },
  '5XX': { description: 'Retried, up to 5 attempts in all' },
};

/** Section 6: the outbound events, under OpenAPI 3.1's `webhooks`, one per catalogue entry. */
export function registerEventWebhooks(registry: OpenAPIRegistry): void {
  for (const event of EVENT_NAMES) {
    const schema = EVENT_SCHEMAS[event];
    const example = EVENT_EXAMPLES[event];
    const parsed = schema.safeParse(example);
    if (!parsed.success) throw new Error(`the example of ${event} does not match its schema: ${parsed.error.message}`);
    registry.registerWebhook({
      method: 'post',
      path: event,
      operationId: `${camel(event)}Event`,
      summary: `${event}: ${WHEN[event].summary}`,
      description: `${WHEN[event].description} ${DELIVERY_RULES}`,
      tags: ['webhooks'],
      // Sent by us: the receiver authenticates it by the signature, not by a token.
      security: [],
      request: {
        headers: DeliveryHeaders,
        body: { required: true, content: { 'application/json': { schema, example } } },
      },
      responses: RESPONSES,
    });
  }
  for (const event of FIELD_EVENT_NAMES) registerFormatWebhook(registry, 'field', event, FIELD_EVENT_SCHEMAS[event]);
  for (const event of EVENTS_EVENT_NAMES) registerFormatWebhook(registry, 'events', event, EVENTS_EVENT_SCHEMAS[event]);
}

/** Document 001 section 6.1's column "fires when", in this service's words. */
const FIELD_WHEN: Record<FieldEventName | EventsEventName, { summary: string; description: string }> = {
  'job.dispatched': {
    summary: 'A job was dispatched',
    description: 'Sent when a job moves to dispatched: PATCH /v1/fsm/jobs/{job_id} (its crew assigned), or PATCH /api/v1/work-orders/{id}/status to DISPATCHED.',
  },
  'job.status_changed': {
    summary: 'A job changed status',
    description: 'Sent on every status change of a job, through /v1/fsm or /api/, with `from` and `to`; a PATCH that changes nothing sends nothing.',
  },
  'job.completed': { summary: 'A job was completed', description: 'Sent at the final sign-off (status complete), with the hours logged against the hours estimated.' },
  'job.customer_changed': {
    summary: 'A job was given its customer',
    description:
      'Sent when an ADMIN sets, changes or clears a job’s customer (PATCH /v1/fsm/jobs/{job_id} `customer_id`, PATCH /api/v1/work-orders/{id} `customerId`); a PATCH naming the customer it already has sends nothing. ' +
      '`invoice_released` is true when the job was complete and its time-and-materials invoice waited for a customer: that invoice is issued next (`invoice.generated`).',
  },
  'change_order.submitted': { summary: 'A change order was raised', description: 'Sent when POST /v1/fsm/jobs/{job_id}/change-orders raises a change order, before its approval.' },
  'change_order.approved': {
    summary: 'A change order was approved',
    description: 'Sent when POST /v1/fsm/change-orders/{change_order_id}/approve approves a change order in the field; `invoice` says whether the payments leg invoices it.',
  },
  'change_order.rejected': { summary: 'A change order was rejected', description: 'Sent when POST /v1/fsm/change-orders/{change_order_id}/reject declines a change order, with `rejected_by` and `reason`.' },
  'quote.created': {
    summary: 'A quote was created',
    description: 'Sent when a calculated quote, or a new revision of one, is persisted: POST /api/v1/quotes/calculate with persist, POST /v1/quotes and its revisions.',
  },
  'invoice.generated': {
    summary: 'An invoice was generated',
    description: 'Sent when the payments leg finalises an invoice: for an approved quote (at approval, or by POST /api/v1/quotes/{id}/invoice), or for an approved change order of its job.',
  },
  'pricebook.published': PRICEBOOK_PUBLISHED_WHEN,
  'dispatch.updated': DISPATCH_UPDATED_WHEN,
};

/** D13: each format's delivery, as document 001 sections 6.1 and 6.2 and domain/webhooks/formats.ts have it. */
const FORMAT_DELIVERY = {
  field: {
    headers: FieldDeliveryHeaders,
    rules:
      'Field format: POSTed to each enabled field endpoint subscribed to it, signed with the endpoint secret (`X-Service-Signature`). ' +
      'Answer 2xx within 10 seconds; any other answer, a timeout or a network error is retried with backoff for 24 hours, after which the endpoint is disabled. ' +
      'Delivery is at least once: de-duplicate on `X-Service-Event-Id`.',
  },
  events: {
    headers: EventsDeliveryHeaders,
    rules:
      'Events format: the same data as `data.object`, POSTed to each enabled events endpoint subscribed to it, signed with the endpoint secret (`Service-Signature`). ' +
      'Answer 2xx within 300 seconds; anything else is retried, 8 attempts over 24 hours; an endpoint failing every attempt for 72 hours is disabled and replays what it missed when re-enabled. ' +
      'Delivery is at least once: de-duplicate on `id`.',
  },
} as const;

const FORMAT_RESPONSES = {
  '2XX': { description: 'Received: the delivery is done' },
  default: { description: 'Any other answer: retried on the format\'s schedule' },
};

/** A `field` or `events` event under `webhooks`, named `<format>:<event>` (a name may be in both catalogues). */
function registerFormatWebhook(registry: OpenAPIRegistry, format: 'field' | 'events', event: FieldEventName | EventsEventName, schema: z.ZodType): void {
  const example = renderedEventExample(format, event);
  const parsed = schema.safeParse(example);
  if (!parsed.success) throw new Error(`the ${format} example of ${event} does not match its schema: ${parsed.error.message}`);
  registry.registerWebhook({
    method: 'post',
    path: `${format}:${event}`,
    operationId: `${format}${pascal(event)}Event`,
    summary: `${event} (${format} format): ${FIELD_WHEN[event].summary}`,
    description: `${FIELD_WHEN[event].description} ${FORMAT_DELIVERY[format].rules}`,
    tags: ['webhooks'],
    // Sent by us: the receiver authenticates it by the signature, not by a token.
    security: [],
    request: {
      headers: FORMAT_DELIVERY[format].headers,
      body: { required: true, content: { 'application/json': { schema, example } } },
    },
    responses: FORMAT_RESPONSES,
  });
}
