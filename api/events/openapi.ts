import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { EVENT_NAMES, type EventName } from '../../domain/events/catalogue';
import { DeliveryHeaders, EVENT_SCHEMAS } from './schemas';
import { EVENT_EXAMPLES } from './examples';

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
};

const DELIVERY_RULES =
  'POSTed to each enabled endpoint subscribed to it (D6), signed with the endpoint secret (`X-Service-Signature`, verify as docs/webhooks.md shows). ' +
  'Answer 2xx within 8 seconds. 5xx, 408, 429, timeouts and network errors are retried, at most 5 attempts in all with backoff; other 4xx and 3xx end the delivery. ' +
  'Delivery is at least once: de-duplicate on the envelope `id`. A status PATCH that changes nothing sends nothing.';

const camel = (event: EventName) => event.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase());

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
      responses: {
        '2XX': { description: 'Received: the delivery is done' },
        '408': { description: 'Retried (with 429, 5xx, timeouts and network errors)' },
        '429': { description: 'Retried, like 408 and 5xx' },
        '4XX': { description: 'Any other 4xx: not retried; the delivery fails at once' },
        '5XX': { description: 'Retried, up to 5 attempts in all' },
      },
    });
  }
}
