import type { ErrorRequestHandler, Request, Response } from 'express';
import { z } from 'zod';
import { openApiPath, route, type RouteHost } from '../http/route';
import { ErrorEnvelopeSchema } from '../http/common-schemas';
import { asDomainError } from '../http/error-handler';
import { ERROR_RENDERINGS } from '../../domain/errors/error-kinds';
import { RateLimitedError } from '../../domain/errors/errors';
import { ADMIN_ONLY } from '../http/roles';
import { unstorableText } from '../http/validate';
import { sendCallbackPage } from './callback-page';
import type { IntegrationService } from './integration-service';
import { CallbackQuery, ConnectQuery, ConnectResult, DisconnectResult, IntegrationList, ProviderParams, SyncListQuery, SyncRecordList, SyncRunList, SyncRunListQuery } from './schemas';
import { CALLBACK_PAGE_EXAMPLES, CONNECT_RESULT_EXAMPLE, DISCONNECT_RESULT_EXAMPLE, INTEGRATION_LIST_EXAMPLE, SYNC_RECORD_LIST_EXAMPLE, SYNC_RUN_LIST_EXAMPLE } from './examples';
import { errorExample } from '../http/error-examples';
import { linkNext, PageHeaders } from '../http/pagination';
import { withStandardHeaders } from '../http/response-headers';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });
const CALLBACK_PATH = '/api/v1/integrations/:provider/callback';

/** Section 4.5 except the payments webhook; section 5.8: all ADMIN only except the callback. */
export function integrationRoutes(host: RouteHost, deps: { integrations: IntegrationService }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/integrations',
    operationId: 'listIntegrations',
    summary: "Every provider, connected or not: the platform's configuration and this workspace's connection (no token, only expiry times)",
    description: 'One entry per provider. `configured` is about the platform, `connection` about this workspace. No token or secret is ever shown, only expiry times.',
    tags: ['integrations'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    responses: { 200: { description: 'One entry per provider, in registry order', schema: IntegrationList, example: INTEGRATION_LIST_EXAMPLE } },
    handler: async ({ res, caller }) => {
      res.json(await deps.integrations.list(caller));
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/integrations/syncs',
    operationId: 'listSyncRecords',
    summary: 'The sync log: most recent attempts first',
    description:
      'What each approval fan-out leg did, per quote and provider: SUCCEEDED with the provider’s id, FAILED with attempts and last error, SKIPPED with the reason. ' +
      'At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).',
    tags: ['integrations'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    query: SyncListQuery,
    responses: {
      200: { description: 'A page of sync records', schema: SyncRecordList, example: SYNC_RECORD_LIST_EXAMPLE, headers: PageHeaders },
      400: error('A cursor this list did not hand out'),
    },
    handler: async ({ req, res, caller, query }) => {
      const { data, next } = await deps.integrations.syncs(caller, query);
      linkNext(req, res, next);
      res.json({ data });
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/integrations/sync-runs',
    operationId: 'listProviderSyncRuns',
    summary: 'The scheduled provider sync runs: most recent first',
    description:
      'Every run of this workspace’s provider sync (one Temporal schedule per connected provider, every `PROVIDER_SYNC_INTERVAL`): when it started and finished, the changes it read and applied, the watermark before and after, and its error. ' +
      'At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).',
    tags: ['integrations'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    query: SyncRunListQuery,
    responses: {
      200: { description: 'A page of sync runs', schema: SyncRunList, example: SYNC_RUN_LIST_EXAMPLE, headers: PageHeaders },
      400: error('A cursor this list did not hand out'),
    },
    handler: async ({ req, res, caller, query }) => {
      const { data, next } = await deps.integrations.syncRuns(caller, query);
      linkNext(req, res, next);
      res.json({ data });
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/integrations/:provider/connect',
    operationId: 'connectIntegration',
    summary: "The provider's consent URL, with a signed single-use state valid ten minutes (not a redirect)",
    description:
      'Open `authorize_url` in a browser and approve at the provider; it sends the browser back to the callback, which connects the workspace. ' +
      'The callback\'s page links back to where the consent began: `return_url` when given, else the calling page\'s origin (`Origin`), each only on this ' +
      'deployment or an origin of `CORS_ORIGINS` (another is 422); with neither, to this API\'s reference. ' +
      '`payments` is the platform’s own account and cannot be connected (400).',
    tags: ['integrations'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: ProviderParams,
    query: ConnectQuery,
    responses: {
      200: { description: 'Open authorize_url in a browser to give consent', schema: ConnectResult, example: CONNECT_RESULT_EXAMPLE },
      400: error('payments (the platform’s own account), or the provider’s client credentials or the credential-encryption key are not configured'),
    },
    handler: async ({ req, res, caller, params, query }) => {
      res.json(await deps.integrations.connect(caller, params.provider, { returnUrl: query.return_url, origin: req.get('origin') }));
    },
  });

  route(host, {
    method: 'delete',
    path: '/api/v1/integrations/:provider',
    operationId: 'disconnectIntegration',
    summary: 'Disconnect: credentials erased, sync rows kept; idempotent',
    description: 'Any connection becomes DISCONNECTED, its stored credentials are erased (and revoked at the provider, best effort). Calling it again answers the same.',
    tags: ['integrations'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: ProviderParams,
    responses: {
      200: { description: 'Disconnected', schema: DisconnectResult, example: DISCONNECT_RESULT_EXAMPLE },
      400: { ...error('payments'), example: errorExample(400, 'Payments run through the platform’s own account; there is no workspace consent to give or take back.') },
    },
    handler: async ({ req, res, caller, params }) => {
      res.json(await deps.integrations.disconnect(caller, params.provider, req.log, req.requestId));
    },
  });

  // The callback answers HTML in every outcome, its own validation failures included, so it does
  // not go through route() (whose validator answers a JSON 422): it is declared here by hand, to
  // Express and to the OpenAPI document alike.
  const page = (description: string, example: string) => ({ description, content: { 'text/html': { schema: z.string(), example } } });
  host.registry.registerPath({
    method: 'get',
    path: openApiPath(CALLBACK_PATH),
    operationId: 'integrationCallback',
    summary: "The provider's redirect after consent; authenticated by the signed state; answers a page, never JSON",
    description:
      'For the browser the provider redirects, not for API clients. No token: the signed, single-use `state` (ten minutes) authenticates it. ' +
      'Every outcome is an HTML page, errors included.',
    tags: ['integrations'],
    security: [],
    request: { params: z.object({ provider: z.string().meta({ description: 'accounting or crm', example: 'accounting' }) }), query: CallbackQuery },
    responses: withStandardHeaders({ path: CALLBACK_PATH, auth: 'none', metered: false, idempotent: false }, {
      200: page('Consent completed (connected) or declined; the page says which', CALLBACK_PAGE_EXAMPLES.connected),
      400: page('State missing, expired, tampered with or replayed; or a parameter beyond the size limits', CALLBACK_PAGE_EXAMPLES.badRequest),
      429: page('Rate limited; back off by Retry-After.', CALLBACK_PAGE_EXAMPLES.rateLimited),
      500: page('Unhandled error (a page quoting the request id)', CALLBACK_PAGE_EXAMPLES.failed),
      502: page('The provider rejected the code exchange', CALLBACK_PAGE_EXAMPLES.providerRefused),
    }),
  });
  host.publicRoutes.add('get', CALLBACK_PATH);
  host.app.get(CALLBACK_PATH, async (req: Request, res: Response) => {
    try {
      const query = CallbackQuery.safeParse(req.query);
      // Text the database cannot store too, as everywhere (api/http/validate.ts).
      const unstorable = unstorableText(req.query, 'query').map(([path]) => path);
      if (!query.success || unstorable.length > 0) {
        const fields = [...new Set([...unstorable, ...(query.success ? [] : query.error.issues.map((issue) => issue.path.join('.')))])].join(', ');
        return sendCallbackPage(res, { kind: 'bad_request', reason: `The link’s parameters are not valid (${fields}).` });
      }
      sendCallbackPage(res, await deps.integrations.callback(String(req.params.provider), query.data, req.log, req.requestId));
    } catch (err) {
      req.log.error({ err }, 'oauth callback failed');
      sendCallbackPage(res, { kind: 'failed', requestId: req.requestId });
    }
  });
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
  if (ERROR_RENDERINGS[error.kind].status >= 500) return sendCallbackPage(res, { kind: 'failed', requestId: req.requestId ?? 'unknown' });
  sendCallbackPage(res, { kind: 'bad_request', reason: error.message });
};
