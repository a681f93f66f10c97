import type { Request } from 'express';
import { route, type RouteHost } from '../http/route';
import { ADMIN_ONLY } from '../http/roles';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import type { WebhookEndpointService } from './endpoint-service';
import { linkNext, pageHeaders, PageHeaders } from '../http/pagination';
import { encodeCursor } from '../../db/cursor';
import { auditContext } from '../http/audit-actor';
import { WEBHOOK_ENDPOINTS_PER_TENANT } from '../../db/limits';
import { CreateEndpointBody, DeliveriesQuery, DeliveryAttemptList, DeliveryListQuery, EndpointListQuery, RecoverBody, RecoverResult, ReplayResult, TestEventBody, TestEventResult, UpdateEndpointBody, WebhookDeliveryList, WebhookEndpoint, WebhookEndpointList, WebhookEndpointWithSecret } from './schemas';
import {
  ATTEMPT_LIST_EXAMPLE, CREATE_ENDPOINT_EXAMPLE, DELIVERY_LIST_EXAMPLE, ENDPOINT_EXAMPLE, ENDPOINT_LIST_EXAMPLE, ENDPOINT_WITH_SECRET_EXAMPLE, RECOVER_EXAMPLE, RECOVER_RESULT_EXAMPLE, REPLAY_RESULT_EXAMPLE, TEST_EVENT_EXAMPLE, TEST_EVENT_RESULT_EXAMPLE, UPDATE_ENDPOINT_EXAMPLE,
} from './examples';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

/** D6, all ADMIN only and tenant-scoped. */
export function webhookRoutes(host: RouteHost, deps: { endpoints: WebhookEndpointService; registrationVersion: (req: Request) => string }): void {
  route(host, {
    method: 'post',
    path: '/api/v1/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Subscribe an https URL to events; the signing secret is shown only in this answer',
    description:
      '`events` lists names of the catalogue (see `webhooks` in this document) or is exactly `["*"]`. The URL must resolve to public addresses only, ' +
      'checked now and again at every delivery. Keep `secret`: it signs every delivery and is not shown again. ' +
      '`format` (`core` by default, `field` or `events`) is fixed here; `events` are names of that format\'s catalogue (422 otherwise), and the format decides ' +
      'the envelope, headers, response window and retry schedule (docs/webhooks.md).',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    body: CreateEndpointBody,
    bodyExample: CREATE_ENDPOINT_EXAMPLE,
    responses: { 201: { description: 'Registered', schema: WebhookEndpointWithSecret, example: ENDPOINT_WITH_SECRET_EXAMPLE }, 400: error('Not https, or resolves to a non-public address, or no encryption key') },
    handler: async ({ req, res, caller, body }) => {
      // D16: its deliveries are shaped for the version current now (or the one this request named).
      res.status(201).json(await deps.endpoints.create(caller, body, deps.registrationVersion(req), auditContext(req)));
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: "The tenant's webhook endpoints (no secrets)",
    description: 'Every endpoint of the workspace, oldest first, without secrets. Paged like every list: `next_cursor` back as `cursor`, or follow the `Link` header rel="next".',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    query: EndpointListQuery,
    responses: {
      200: {
        description: 'A page of endpoints',
        schema: WebhookEndpointList,
        example: ENDPOINT_LIST_EXAMPLE,
        headers: pageHeaders(`https://shades.example.test/api/v1/webhook-endpoints?limit=25&cursor=${encodeCursor(['2026-11-20T09:12:44.123456Z', ENDPOINT_LIST_EXAMPLE.data[0]!.id])}`),
      },
      400: error('A cursor this list did not hand out'),
    },
    handler: async ({ req, res, caller, query }) => {
      const page = await deps.endpoints.list(caller, query);
      linkNext(req, res, page.next_cursor);
      res.json(page);
    },
  });

  route(host, {
    method: 'patch',
    path: '/api/v1/webhook-endpoints/:id',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change url, events, description or status; re-enabling replays what was missed',
    description: 'Only the keys sent change. Events of a disabled endpoint are kept; setting `status: enabled` again delivers them.',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    body: UpdateEndpointBody,
    bodyExample: UPDATE_ENDPOINT_EXAMPLE,
    responses: { 200: { description: 'Updated', schema: WebhookEndpoint, example: { ...ENDPOINT_EXAMPLE, events: ['*'] } }, 400: error('Refused URL'), 404: error('No such endpoint') },
    handler: async ({ req, res, caller, params, body }) => {
      res.json(await deps.endpoints.update(caller, params.id, body, auditContext(req)));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/webhook-endpoints/:id/rotate-secret',
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'A new signing secret, shown once; the old one signs beside it for 24 hours',
    description: 'During the 24 hours after a rotation each delivery carries two `v1` signatures, one per secret, so receivers can switch without missing any.',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    responses: { 200: { description: 'Rotated', schema: WebhookEndpointWithSecret, example: ENDPOINT_WITH_SECRET_EXAMPLE }, 404: error('No such endpoint') },
    handler: async ({ req, res, caller, params }) => {
      res.json(await deps.endpoints.rotateSecret(caller, params.id, auditContext(req)));
    },
  });

  route(host, {
    method: 'delete',
    path: '/api/v1/webhook-endpoints/:id',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Remove an endpoint and its delivery log',
    description: 'Nothing more is delivered to it; its deliveries and attempt log go with it.',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    responses: { 204: { description: 'Removed' }, 404: error('No such endpoint') },
    handler: async ({ req, res, caller, params }) => {
      await deps.endpoints.remove(caller, params.id, auditContext(req));
      res.status(204).end();
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/webhook-endpoints/:id/deliveries',
    operationId: 'listWebhookDeliveryAttempts',
    summary: 'Every delivery attempt to the endpoint, newest first',
    description:
      'Each attempt with its event, attempt number, outcome, response status or error and duration; its request as sent (headers, body) and ' +
      'the response (status, headers, the first 4 KiB of the body, duration). `delivery_id` narrows it to one delivery. ' +
      'At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    query: DeliveriesQuery,
    responses: {
      200: { description: 'A page of attempts', schema: DeliveryAttemptList, example: ATTEMPT_LIST_EXAMPLE, headers: PageHeaders },
      400: error('A cursor this list did not hand out'),
      404: error('No such endpoint'),
    },
    handler: async ({ req, res, caller, params, query }) => {
      const { data, next } = await deps.endpoints.attempts(caller, params.id, query);
      linkNext(req, res, next);
      res.json({ data });
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/webhook-endpoints/:id/test-events',
    operationId: 'sendWebhookTestEvent',
    summary: 'Send a test event to this endpoint alone',
    description:
      "The example data of an event this endpoint receives (by default the first of its format's catalogue that it subscribes to), signed and delivered like any " +
      "other event, to this endpoint only; its delivery is marked `test: true` in the deliveries list. Use it to check a receiver's signature verification. " +
      '409 when the endpoint is disabled, 422 for an event it does not receive.',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    body: TestEventBody,
    bodyExample: TEST_EVENT_EXAMPLE,
    responses: {
      202: { description: 'The test delivery is under way', schema: TestEventResult, example: TEST_EVENT_RESULT_EXAMPLE },
      404: error('No such endpoint'),
      409: error('The endpoint is disabled'),
      422: error('An event the endpoint does not receive'),
    },
    handler: async ({ res, caller, params, body }) => {
      res.status(202).json(await deps.endpoints.sendTestEvent(caller, params.id, body));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/webhook-endpoints/:id/recover',
    operationId: 'recoverWebhookEndpoint',
    summary: 'Re-send every event the endpoint failed since a given time, in order, with the same envelope ids',
    description:
      'Every event recorded at or after `since` whose latest delivery to this endpoint failed (its attempts used up, or refused) is delivered again, ' +
      'once each: a new delivery one `series` higher, with the same envelope id and bytes, so a receiver that de-duplicates on the id sees each at most once. ' +
      'They are sent one after another in the order the events happened. An event still pending or since delivered is left alone, so asking twice re-sends nothing twice. ' +
      'Recorded in the audit log (`webhook_endpoint.recovered`). 409 when the endpoint is disabled (enabling it delivers what it missed), 422 for a `since` in the future.',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    body: RecoverBody,
    bodyExample: RECOVER_EXAMPLE,
    responses: {
      202: { description: 'The failed events are being re-sent', schema: RecoverResult, example: RECOVER_RESULT_EXAMPLE },
      404: error('No such endpoint'),
      409: error('The endpoint is disabled'),
      422: error('`since` is missing, not an instant, or in the future'),
    },
    handler: async ({ req, res, caller, params, body }) => {
      res.status(202).json(await deps.endpoints.recover(caller, params.id, body, auditContext(req)));
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/webhook-deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "The workspace's deliveries, newest first, by endpoint, status and event",
    description:
      'One row per delivery (an event to an endpoint; a replay is a new one with the next `series`), newest first, optionally only of one endpoint, ' +
      'one status or one event. Its attempts are `GET /api/v1/webhook-endpoints/{id}/deliveries?delivery_id=`. ' +
      'At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    query: DeliveryListQuery,
    responses: {
      200: { description: 'A page of deliveries', schema: WebhookDeliveryList, example: DELIVERY_LIST_EXAMPLE, headers: PageHeaders },
      400: error('A cursor this list did not hand out'),
    },
    handler: async ({ req, res, caller, query }) => {
      const { data, next } = await deps.endpoints.deliveries(caller, query);
      linkNext(req, res, next);
      res.json({ data });
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/webhook-deliveries/:id/replay',
    operationId: 'replayWebhookDelivery',
    summary: 'A new series of attempts of the same event (same envelope id) to the same endpoint',
    description: 'The same bytes and envelope id as the original, so a receiver that de-duplicates on the id sees it once.',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    responses: { 202: { description: 'Started', schema: ReplayResult, example: REPLAY_RESULT_EXAMPLE }, 404: error('No such delivery') },
    handler: async ({ res, caller, params }) => {
      res.status(202).json(await deps.endpoints.replay(caller, params.id));
    },
  });
}
