import { z } from 'zod';
import { Timestamp } from '../http/common-schemas';
import { CursorParam } from '../http/pagination';
import { FORMAT_CATALOGUES, WEBHOOK_FORMATS, type WebhookFormat } from '../../domain/events/catalogue';

const ALL_NAMES = [...new Set(Object.values(FORMAT_CATALOGUES).flat())];

/**
 * D6: a list of event names, or exactly ["*"]; D13: names of the endpoint's format's catalogue,
 * checked against it by `catalogueComplaint` (the format is known only beside the list).
 */
const EventSelection = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(ALL_NAMES.length + 1)
  .refine((events) => !events.includes('*') || events.length === 1, 'Use either ["*"] alone or event names')
  .refine((events) => new Set(events).size === events.length, 'Each event at most once')
  .meta({ description: `Event names of the endpoint's format's catalogue (core: ${FORMAT_CATALOGUES.core.join(', ')}; field: ${FORMAT_CATALOGUES.field.join(', ')}; events: ${FORMAT_CATALOGUES.events.join(', ')}), or ["*"] for all of them` });

/** D13: the first name of `events` outside `format`'s catalogue, as a complaint; undefined when all are in it. */
export function catalogueComplaint(format: WebhookFormat, events: readonly string[]): { index: number; message: string } | undefined {
  const catalogue = FORMAT_CATALOGUES[format];
  const index = events.findIndex((event) => event !== '*' && !catalogue.includes(event));
  if (index < 0) return undefined;
  return { index, message: `${JSON.stringify(events[index])} is not an event of the ${format} format; its events are ${catalogue.join(', ')} (or ["*"])` };
}

export const WebhookFormatSchema = z.enum(WEBHOOK_FORMATS).meta({
  description: 'Fixed at registration: core, field or events (each its envelope, headers and retry schedule; docs/webhooks.md)',
});

export const CreateEndpointBody = z
  .strictObject({ url: z.url().max(2000), events: EventSelection, description: z.string().max(500).optional(), format: WebhookFormatSchema.default('core') })
  .superRefine((body, ctx) => {
    const complaint = catalogueComplaint(body.format, body.events);
    if (complaint) ctx.addIssue({ code: 'custom', path: ['events', complaint.index], message: complaint.message });
  })
  .meta({ id: 'CreateWebhookEndpointRequest' });
export type CreateEndpointBody = z.output<typeof CreateEndpointBody>;

export const UpdateEndpointBody = z
  .strictObject({
    url: z.url().max(2000).optional(),
    events: EventSelection.optional(),
    description: z.string().max(500).nullable().optional(),
    status: z.enum(['enabled', 'disabled']).optional(),
  })
  .meta({ id: 'UpdateWebhookEndpointRequest' });
export type UpdateEndpointBody = z.output<typeof UpdateEndpointBody>;

export const WebhookEndpoint = z
  .strictObject({
    id: z.uuid(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(['enabled', 'disabled']),
    format: WebhookFormatSchema,
    api_version: z.string().nullable().meta({ description: 'The version the endpoint pinned at registration: its payloads are shaped for it, and an events endpoint\'s envelopes carry it as apiVersion' }),
    disabled_at: Timestamp.nullable().meta({ description: 'When it was disabled (by an administrator, or after failing for 72 hours); null while enabled' }),
    disabled_reason: z.string().nullable(),
    created_at: Timestamp,
    attempts_24h: z.number().int().min(0).meta({ description: 'Delivery attempts to this endpoint in the last 24 hours' }),
    success_rate_24h: z.number().min(0).max(1).nullable().meta({ description: 'The share of those attempts that were delivered (0 to 1); null without an attempt in that time' }),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().meta({ description: 'Shown only in this response; begins whsec_' }),
}).meta({ id: 'WebhookEndpointWithSecret' });

export const WebhookEndpointList = z
  .strictObject({ data: z.array(WebhookEndpoint), next_cursor: z.string().nullable().meta({ description: 'Opaque: pass it back as `cursor`; null on the last page (the Link header says the same)' }) })
  .meta({ id: 'WebhookEndpointList' });

export const EndpointListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: CursorParam,
});
export type EndpointListQuery = z.output<typeof EndpointListQuery>;

export const DeliveryAttempt = z
  .strictObject({
    id: z.uuid(),
    delivery_id: z.uuid(),
    event_id: z.uuid(),
    event: z.string(),
    attempt: z.number().int(),
    outcome: z.enum(['delivered', 'retryable_failure', 'permanent_failure']),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    response_excerpt: z.string().nullable().meta({ description: 'The first 4 KiB of the response body, as UTF-8 (the same as response.body_excerpt)' }),
    request: z
      .strictObject({ headers: z.record(z.string(), z.string()), body: z.string() })
      .nullable()
      .meta({ description: 'The request as sent (the signature header included; the secret never is); null when nothing could be sent' }),
    response: z
      .strictObject({
        status: z.number().int(),
        headers: z.record(z.string(), z.string()),
        body_excerpt: z.string().meta({ description: 'The first 4 KiB of the body' }),
        duration_ms: z.number().int(),
      })
      .nullable()
      .meta({ description: 'The response; null when none arrived (see error)' }),
    attempted_at: Timestamp,
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const DeliveryAttemptList = z.strictObject({ data: z.array(DeliveryAttempt) }).meta({ id: 'WebhookDeliveryAttemptList' });
export const DeliveriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: CursorParam,
  delivery_id: z.uuid().optional().meta({ description: 'Only the attempts of this delivery' }),
});
export type DeliveriesQuery = z.output<typeof DeliveriesQuery>;

export const ReplayResult = z
  .strictObject({ delivery_id: z.uuid(), event_id: z.uuid(), endpoint_id: z.uuid(), status: z.literal('pending') })
  .meta({ id: 'WebhookReplay' });

export const RecoverBody = z
  .strictObject({
    since: Timestamp.meta({ description: 'Re-send the failed events recorded at or after this instant (ISO-8601, UTC); not in the future' }),
  })
  .meta({ id: 'RecoverWebhookEndpointRequest' });
export type RecoverBody = z.output<typeof RecoverBody>;

export const RecoverResult = z
  .strictObject({
    endpoint_id: z.uuid(),
    since: Timestamp,
    recovered: z.number().int().min(0).meta({ description: 'How many failed events are being re-sent (each a new delivery, one series higher, status pending)' }),
    status: z.literal('pending'),
  })
  .meta({ id: 'WebhookRecovery' });

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'missed'] as const;

export const WebhookDelivery = z
  .strictObject({
    id: z.uuid(),
    endpoint_id: z.uuid(),
    event_id: z.uuid().meta({ description: 'The envelope id: the same on every attempt and replay of the event' }),
    event: z.string(),
    series: z.number().int().meta({ description: '0 for the first delivery of the event to the endpoint, then one more per replay' }),
    status: z.enum(DELIVERY_STATUSES).meta({ description: 'pending (attempts under way), delivered, failed (attempts exhausted or refused), missed (the endpoint was disabled)' }),
    attempts: z.number().int(),
    last_error: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    delivered_at: Timestamp.nullable(),
    next_attempt_at: Timestamp.nullable().meta({ description: 'When the next attempt of a pending delivery is due; null once it has ended' }),
    test: z.boolean().meta({ description: 'A test event sent from the deliveries page (POST /api/v1/webhook-endpoints/{id}/test-events)' }),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryList = z.strictObject({ data: z.array(WebhookDelivery) }).meta({ id: 'WebhookDeliveryList' });

export const DeliveryListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: CursorParam,
  endpoint_id: z.uuid().optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  event: z.string().min(1).max(100).optional().meta({ description: 'An event name, such as quote.approved' }),
});
export type DeliveryListQuery = z.output<typeof DeliveryListQuery>;

export const TestEventBody = z.strictObject({
  event: z.string().min(1).max(100).optional().meta({ description: "An event of the endpoint's format and subscription; by default its first" }),
});
export type TestEventBody = z.output<typeof TestEventBody>;

export const TestEventResult = z
  .strictObject({
    delivery_id: z.uuid(),
    event_id: z.uuid(),
    event: z.string(),
    status: z.literal('pending'),
  })
  .meta({ id: 'WebhookTestEventResult' });
