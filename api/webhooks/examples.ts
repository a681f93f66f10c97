import type { z } from 'zod';
import type { CreateEndpointBody, DeliveryAttemptList, RecoverBody, RecoverResult, ReplayResult, TestEventBody, TestEventResult, UpdateEndpointBody, WebhookDeliveryList, WebhookEndpoint, WebhookEndpointList, WebhookEndpointWithSecret } from './schemas';

/** Examples for the OpenAPI document: an ERP receiving quote approvals and completed jobs. */
export const EXAMPLE_ENDPOINT_ID = 'b8d0f2a4-6c8e-4b1d-9f3a-5c7e9b1d3f6a';
const EXAMPLE_EVENT_ID = 'd4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b';
const EXAMPLE_DELIVERY_ID = 'e5a7c9b1-3d5f-4e8a-b2c4-6e8a0b2d4f9c';

export const CREATE_ENDPOINT_EXAMPLE: z.input<typeof CreateEndpointBody> = {
  url: 'https://erp.shades.example.test/hooks/shade-office',
  events: ['quote.approved', 'work_order.completed'],
  description: 'ERP: approved quotes and completed installs',
};

export const ENDPOINT_EXAMPLE: z.input<typeof WebhookEndpoint> = {
  id: EXAMPLE_ENDPOINT_ID,
  url: CREATE_ENDPOINT_EXAMPLE.url,
  events: [...CREATE_ENDPOINT_EXAMPLE.events],
  description: CREATE_ENDPOINT_EXAMPLE.description!,
  status: 'enabled',
  format: 'core',
  api_version: null,
  disabled_at: null,
  disabled_reason: null,
  created_at: '2026-11-20T09:12:44.000Z',
  attempts_24h: 48,
  success_rate_24h: 0.9583,
};

export const ENDPOINT_WITH_SECRET_EXAMPLE: z.input<typeof WebhookEndpointWithSecret> = {
  ...ENDPOINT_EXAMPLE,
  // Shape only (whsec_ and 32 bytes, base64url): not a secret of any endpoint.
  secret: 'whsec_Zm9yLWRvY3VtZW50YXRpb24tb25seS0wMTIzNDU2Nzg5YWI',
};

export const ENDPOINT_LIST_EXAMPLE: z.input<typeof WebhookEndpointList> = { data: [ENDPOINT_EXAMPLE], next_cursor: null };

export const UPDATE_ENDPOINT_EXAMPLE: z.input<typeof UpdateEndpointBody> = { events: ['*'], status: 'enabled' };

/** D13: an attempt's request as sent (the signature is an example's shape, not a real one). */
const REQUEST_EXAMPLE = {
    headers: {
      host: 'erp.shades.example.test',
      'x-service-event': 'quote.approved',
      'x-service-delivery': EXAMPLE_EVENT_ID,
      'x-service-signature': 't=1763743507,v1=5d2c0f7e4b9a8c1d3e6f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d',
      'content-type': 'application/json',
      'user-agent': 'ShadeOffice-Webhooks/1.0',
      'content-length': '142',
    },
    body: `{"event":"quote.approved","id":"${EXAMPLE_EVENT_ID}","organization_id":"0b7e4c1a-2d3f-4e5a-9b6c-7d8e9f0a1b2c","created_at":"2026-11-21T16:45:05.100Z","data":{}}`,
  };

export const ATTEMPT_LIST_EXAMPLE: z.input<typeof DeliveryAttemptList> = {
  data: [
    {
      id: 'f6b8d0c2-4e6a-4f9b-83d5-7f9b1c3e5a0d',
      delivery_id: EXAMPLE_DELIVERY_ID,
      event_id: EXAMPLE_EVENT_ID,
      event: 'quote.approved',
      attempt: 2,
      outcome: 'delivered',
      response_status: 200,
      error: null,
      duration_ms: 143,
      response_excerpt: '{"ok":true}',
      request: REQUEST_EXAMPLE,
      response: { status: 200, headers: { 'content-type': 'application/json', 'content-length': '11' }, body_excerpt: '{"ok":true}', duration_ms: 143 },
      attempted_at: '2026-11-21T16:45:07.512Z',
    },
    {
      id: 'a7c9e1d3-5f7b-4a0c-94e6-8a0c2d4f6b1e',
      delivery_id: EXAMPLE_DELIVERY_ID,
      event_id: EXAMPLE_EVENT_ID,
      event: 'quote.approved',
      attempt: 1,
      outcome: 'retryable_failure',
      response_status: 503,
      error: null,
      duration_ms: 8_000,
      response_excerpt: 'Service Unavailable',
      request: REQUEST_EXAMPLE,
      response: { status: 503, headers: { 'content-type': 'text/plain' }, body_excerpt: 'Service Unavailable', duration_ms: 8_000 },
      attempted_at: '2026-11-21T16:45:05.401Z',
    },
  ],
};

export const REPLAY_RESULT_EXAMPLE: z.input<typeof ReplayResult> = {
  delivery_id: 'c9e1a3f5-7b9d-4c2e-a6f8-0b2d4f6a8c3e',
  event_id: EXAMPLE_EVENT_ID,
  endpoint_id: EXAMPLE_ENDPOINT_ID,
  status: 'pending',
};

export const DELIVERY_LIST_EXAMPLE: z.input<typeof WebhookDeliveryList> = {
  data: [
    {
      id: EXAMPLE_DELIVERY_ID,
      endpoint_id: EXAMPLE_ENDPOINT_ID,
      event_id: EXAMPLE_EVENT_ID,
      event: 'quote.approved',
      series: 0,
      status: 'delivered',
      attempts: 2,
      last_error: null,
      created_at: '2026-11-21T16:45:05.120Z',
      updated_at: '2026-11-21T16:45:07.655Z',
      delivered_at: '2026-11-21T16:45:07.655Z',
      next_attempt_at: null,
      test: false,
    },
  ],
};

export const TEST_EVENT_EXAMPLE: z.input<typeof TestEventBody> = { event: 'quote.approved' };

export const TEST_EVENT_RESULT_EXAMPLE: z.input<typeof TestEventResult> = {
  delivery_id: '6e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b',
  event_id: '0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f',
  event: 'quote.approved',
  status: 'pending',
};

export const RECOVER_EXAMPLE: z.input<typeof RecoverBody> = { since: '2026-11-20T06:00:00.000Z' };

export const RECOVER_RESULT_EXAMPLE: z.input<typeof RecoverResult> = { endpoint_id: EXAMPLE_ENDPOINT_ID, since: RECOVER_EXAMPLE.since, recovered: 14, status: 'pending' };
