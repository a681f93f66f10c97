import { z } from 'zod';
import { Timestamp } from '../http/common-schemas';
import { CursorParam } from '../http/pagination';
import { EVENT_NAMES } from '../../db/events/catalogue';

/** D6: a list of event names of the catalogue, or exactly ["*"]. */
const EventSelection = z
  .array(z.union([z.enum(EVENT_NAMES), z.literal('*')]))
  .min(1)
  .max(EVENT_NAMES.length + 1)
  .refine((events) => !events.includes('*') || events.length === 1, 'Use either ["*"] alone or event names')
  .refine((events) => new Set(events).size === events.length, 'Each event at most once');

export const CreateEndpointBody = z
  .strictObject({ url: z.url().max(2000), events: EventSelection, description: z.string().max(500).optional() })
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
    created_at: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().meta({ description: 'Shown only in this response; begins whsec_' }),
}).meta({ id: 'WebhookEndpointWithSecret' });

export const WebhookEndpointList = z.strictObject({ data: z.array(WebhookEndpoint) }).meta({ id: 'WebhookEndpointList' });

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
    response_excerpt: z.string().nullable(),
    attempted_at: Timestamp,
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const DeliveryAttemptList = z.strictObject({ data: z.array(DeliveryAttempt) }).meta({ id: 'WebhookDeliveryAttemptList' });
export const DeliveriesQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(25), cursor: CursorParam });
export type DeliveriesQuery = z.output<typeof DeliveriesQuery>;

export const ReplayResult = z
  .strictObject({ delivery_id: z.uuid(), event_id: z.uuid(), endpoint_id: z.uuid(), status: z.literal('pending') })
  .meta({ id: 'WebhookReplay' });
