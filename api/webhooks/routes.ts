import { route, type RouteHost } from '../http/route';
import { ADMIN_ONLY } from '../http/roles';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import type { WebhookEndpointService } from './endpoint-service';
import { WEBHOOK_ENDPOINTS_PER_TENANT } from '../../db/limits';
import { CreateEndpointBody, DeliveriesQuery, DeliveryAttemptList, ReplayResult, UpdateEndpointBody, WebhookEndpoint, WebhookEndpointList, WebhookEndpointWithSecret } from './schemas';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

/** D6, all ADMIN only and tenant-scoped. */
export function webhookRoutes(host: RouteHost, deps: { endpoints: WebhookEndpointService }): void {
  route(host, {
    method: 'post',
    path: '/api/v1/webhook-endpoints',
    summary: 'Subscribe an https URL to events; the signing secret is shown only in this answer',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    body: CreateEndpointBody,
    responses: { 201: { description: 'Registered', schema: WebhookEndpointWithSecret }, 400: error('Not https, or resolves to a non-public address, or no encryption key'), 422: error(`Failed validation, or the workspace already has ${WEBHOOK_ENDPOINTS_PER_TENANT} endpoints (the limit)`) },
    handler: async ({ res, caller, body }) => {
      res.status(201).json(await deps.endpoints.create(caller, body));
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/webhook-endpoints',
    summary: "The tenant's webhook endpoints (no secrets)",
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    responses: { 200: { description: 'Endpoints', schema: WebhookEndpointList } },
    handler: async ({ res, caller }) => {
      res.json(await deps.endpoints.list(caller));
    },
  });

  route(host, {
    method: 'patch',
    path: '/api/v1/webhook-endpoints/:id',
    summary: 'Change url, events, description or status; re-enabling replays what was missed',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    body: UpdateEndpointBody,
    responses: { 200: { description: 'Updated', schema: WebhookEndpoint }, 400: error('Refused URL'), 404: error('No such endpoint') },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.endpoints.update(caller, params.id, body));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/webhook-endpoints/:id/rotate-secret',
    summary: 'A new signing secret, shown once; the old one signs beside it for 24 hours',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    responses: { 200: { description: 'Rotated', schema: WebhookEndpointWithSecret }, 404: error('No such endpoint') },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.endpoints.rotateSecret(caller, params.id));
    },
  });

  route(host, {
    method: 'delete',
    path: '/api/v1/webhook-endpoints/:id',
    summary: 'Remove an endpoint and its delivery log',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    responses: { 204: { description: 'Removed' }, 404: error('No such endpoint') },
    handler: async ({ res, caller, params }) => {
      await deps.endpoints.remove(caller, params.id);
      res.status(204).end();
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/webhook-endpoints/:id/deliveries',
    summary: 'Every delivery attempt to the endpoint, newest first',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    query: DeliveriesQuery,
    responses: { 200: { description: 'Attempts', schema: DeliveryAttemptList }, 404: error('No such endpoint') },
    handler: async ({ res, caller, params, query }) => {
      res.json(await deps.endpoints.attempts(caller, params.id, query.limit));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/webhook-deliveries/:id/replay',
    summary: 'A new series of attempts of the same event (same envelope id) to the same endpoint',
    tags: ['webhooks'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    responses: { 202: { description: 'Started', schema: ReplayResult }, 404: error('No such delivery') },
    handler: async ({ res, caller, params }) => {
      res.status(202).json(await deps.endpoints.replay(caller, params.id));
    },
  });
}
