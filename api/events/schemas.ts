import { z } from 'zod';
import { Timestamp } from '../http/common-schemas';
import type { EventName } from '../../domain/events/catalogue';

/**
 * Section 6.1 and 6.2: the body of each outbound event, as receivers get it. The OpenAPI
 * document publishes these under `webhooks`; a test checks that the events the services record
 * parse with them, so the document cannot drift from what is sent.
 */
const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/).meta({ description: 'Exact decimal as a string' });

const QuoteApprovedData = z.strictObject({
  quote_id: z.uuid(),
  quote_number: z.number().int(),
  status: z.literal('APPROVED'),
  total_amount_cents: z.number().int(),
  total_cost_cents: z.number().int(),
  margin_percent: DecimalString.meta({ description: 'A fraction: "0.4000" is 40 %' }),
  customer_name: z.string().nullable().meta({ description: 'null when the quote names no customer' }),
  customer_email: z.string().nullable().meta({ description: 'null when the quote’s customer has no email' }),
  approved_at: Timestamp,
  approved_by_user_id: z.uuid(),
});

/** Work-order events carry no cost, margin or quote total (section 6.2). */
const workOrderData = <S extends 'PENDING' | 'DISPATCHED' | 'COMPLETED' | 'CANCELLED'>(status: S) =>
  z.strictObject({
    work_order_id: z.uuid(),
    status: z.literal(status),
    quote_id: z.uuid().nullable(),
    assigned_technician_id: z.uuid().nullable(),
    changed_by_user_id: z.uuid(),
    changed_at: Timestamp,
  });

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
  'quote.approved': envelope('quote.approved', QuoteApprovedData, 'QuoteApprovedEvent'),
  'work_order.dispatched': envelope('work_order.dispatched', workOrderData('DISPATCHED'), 'WorkOrderDispatchedEvent'),
  'work_order.completed': envelope('work_order.completed', workOrderData('COMPLETED'), 'WorkOrderCompletedEvent'),
  'work_order.pending': envelope('work_order.pending', workOrderData('PENDING'), 'WorkOrderPendingEvent'),
  'work_order.cancelled': envelope('work_order.cancelled', workOrderData('CANCELLED'), 'WorkOrderCancelledEvent'),
} satisfies Record<EventName, z.ZodType>;

/** The headers of every delivery (section 6.3). */
export const DeliveryHeaders = z.object({
  'x-service-event': z.string().meta({ description: 'The event name', example: 'quote.approved' }),
  'x-service-delivery': z.uuid().meta({ description: 'The envelope id, the same on every retry and replay', example: 'd4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b' }),
  'x-service-signature': z.string().meta({
    description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint secret>; two v1 entries for 24 hours after a rotation',
    example: 't=1795430001,v1=3f1b2d6c8e0a4c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e',
  }),
});
