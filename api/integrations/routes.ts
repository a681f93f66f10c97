import type { ErrorRequestHandler, Request, Response } from 'express';
import { z } from 'zod';
import { route, type RouteHost } from '../http/route';
import { ErrorEnvelopeSchema } from '../http/common-schemas';
import { asDomainError } from '../http/error-handler';
import { ERROR_RESPONSES } from '../http/error-kinds';
import { RateLimitedError } from '../http/errors';
import { ADMIN_ONLY } from '../http/roles';
import { nulPaths } from '../http/validate';
import { sendCallbackPage } from './callback-page';
import type { IntegrationService } from './integration-service';
import { CallbackQuery, ConnectResult, DisconnectResult, IntegrationList, ProviderParams, SyncListQuery, SyncRecordList } from './schemas';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });
const CALLBACK_PATH = '/api/v1/integrations/:provider/callback';

/** Section 4.5 except the payments webhook; section 5.8: all ADMIN only except the callback. */
export function integrationRoutes(host: RouteHost, deps: { integrations: IntegrationService }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/integrations',
    summary: "Every provider, connected or not: the platform's configuration and this workspace's connection (no token, only expiry times)",
    tags: ['integrations'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    responses: { 200: { description: 'One entry per provider, in registry order', schema: IntegrationList } },
    handler: async ({ res, caller }) => {
      res.json(await deps.integrations.list(caller));
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/integrations/syncs',
    summary: 'The sync log: most recent attempts first',
    tags: ['integrations'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    query: SyncListQuery,
    responses: { 200: { description: 'Sync records', schema: SyncRecordList } },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.integrations.syncs(caller, query));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/integrations/:provider/connect',
    summary: "The provider's consent URL, with a signed single-use state valid ten minutes (not a redirect)",
    tags: ['integrations'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: ProviderParams,
    responses: {
      200: { description: 'Open authorize_url in a browser to give consent', schema: ConnectResult },
      400: error('payments (the platform’s own account), or the provider’s client credentials or the credential-encryption key are not configured'),
    },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.integrations.connect(caller, params.provider));
    },
  });

  route(host, {
    method: 'delete',
    path: '/api/v1/integrations/:provider',
    summary: 'Disconnect: credentials erased, sync rows kept; idempotent (section 3.3)',
    tags: ['integrations'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: ProviderParams,
    responses: { 200: { description: 'Disconnected', schema: DisconnectResult }, 400: error('payments') },
    handler: async ({ req, res, caller, params }) => {
      res.json(await deps.integrations.disconnect(caller, params.provider, req.log));
    },
  });

  // The callback answers HTML in every outcome, its own validation failures included, so it does
  // not go through route() (whose validator answers a JSON 422): it is declared here by hand, to
  // Express and to the OpenAPI document alike.
  host.registry.registerPath({
    method: 'get',
    path: CALLBACK_PATH.replace(':provider', '{provider}'),
    summary: "The provider's redirect after consent; authenticated by the signed state; answers a page, never JSON",
    tags: ['integrations'],
    request: { params: z.object({ provider: z.string().meta({ description: 'accounting or crm' }) }), query: CallbackQuery },
    responses: {
      200: { description: 'Consent completed (connected) or declined; the page says which', content: { 'text/html': { schema: z.string() } } },
      400: { description: 'State missing, expired, tampered with or replayed; or a parameter beyond section 8’s limits', content: { 'text/html': { schema: z.string() } } },
      429: { description: 'Rate limited; back off by Retry-After.', content: { 'application/json': { schema: ErrorEnvelopeSchema } } },
      500: { description: 'Unhandled error (a page quoting the request id)', content: { 'text/html': { schema: z.string() } } },
      502: { description: 'The provider rejected the code exchange', content: { 'text/html': { schema: z.string() } } },
    },
  });
  host.app.get(CALLBACK_PATH, async (req: Request, res: Response) => {
    try {
      const query = CallbackQuery.safeParse(req.query);
      // NUL characters too, as everywhere (api/http/validate.ts): the database cannot store them.
      const withNul = nulPaths(req.query, 'query');
      if (!query.success || withNul.length > 0) {
        const fields = [...new Set([...withNul, ...(query.success ? [] : query.error.issues.map((issue) => issue.path.join('.')))])].join(', ');
        return sendCallbackPage(res, { kind: 'bad_request', reason: `The link’s parameters are not valid (${fields}).` });
      }
      sendCallbackPage(res, await deps.integrations.callback(String(req.params.provider), query.data, req.log));
    } catch (err) {
      req.log.error({ err }, 'oauth callback failed');
      sendCallbackPage(res, { kind: 'failed', requestId: req.requestId });
    }
  });
  host.publicRoutes.add('get', CALLBACK_PATH);
  // Section 4.5: the callback answers a page in every outcome, errors raised before it (the rate
  // limit) included; the one error handler answers JSON everywhere else.
  host.app.use(CALLBACK_PATH, callbackErrorPage);
}

const callbackErrorPage: ErrorRequestHandler = (err: unknown, req, res, next) => {
  if (res.headersSent) return next(err);
  const error = asDomainError(err, req.log);
  if (error instanceof RateLimitedError) {
    res.setHeader('Retry-After', String(error.retryAfterSeconds));
    return sendCallbackPage(res, { kind: 'rate_limited', retryAfterSeconds: error.retryAfterSeconds });
  }
  if (ERROR_RESPONSES[error.kind].status >= 500) return sendCallbackPage(res, { kind: 'failed', requestId: req.requestId ?? 'unknown' });
  sendCallbackPage(res, { kind: 'bad_request', reason: error.message });
};
