import { z } from 'zod';
import type { ErrorRequestHandler, Response } from 'express';
import { createHandler } from 'graphql-http';
import { GraphQLError, printSchema } from 'graphql';
import { route, type RouteHost } from '../http/route';
import { notFound, RateLimitedError, ServiceUnavailableError } from '../../domain/errors/errors';
import { isDatabaseUnreachable } from '../../db/connectivity';
import { asDomainError } from '../http/error-handler';
import { ERROR_RENDERINGS, type ErrorKind } from '../../domain/errors/error-kinds';
import { RequestBodyError } from '../http/body-reader';
import { MAX_REPORTED_FIELDS, unstorableText } from '../http/validate';
import { PROBLEM_CONTENT_TYPE, ProblemSchema } from '../v1/problem';
import { schema } from './schema';
import { createExecutor, type ExecutionDeps, type RequestScope } from './execute';
import { codedError, REFUSAL_CODES } from './errors';
import { LIMITS, overDeepVariables, oversizedVariables, parse, validationRules } from './limits';
import { GRAPHIQL_BASE, GRAPHIQL_CSP, GRAPHIQL_PAGE, graphiqlAssets } from './graphiql';
import { POINTS_PER_REQUEST } from './throttle';

/** The schema as SDL: served as it is printed; api/graphql/schema.graphql keeps it for review. */
export const SCHEMA_SDL = printSchema(schema);

const GraphQLRequestBody = z
  .looseObject({ query: z.string(), operationName: z.string().nullable().optional(), variables: z.record(z.string(), z.unknown()).nullable().optional() })
  .meta({ id: 'GraphQLRequest' });
const GraphQLResponse = z
  .looseObject({
    data: z.record(z.string(), z.unknown()).nullable().optional(),
    errors: z.array(z.looseObject({ message: z.string(), extensions: z.looseObject({ code: z.string() }) })).optional(),
    extensions: z.looseObject({
      cost: z.strictObject({
        requestedQueryCost: z.number().int(),
        actualQueryCost: z.number().int(),
        throttleStatus: z.strictObject({ maximumAvailable: z.number(), currentlyAvailable: z.number(), restoreRate: z.number() }),
      }),
    }).optional(),
  })
  .meta({ id: 'GraphQLResponse' });

const RESPONSE_EXAMPLE = {
  data: { workOrders: { nodes: [{ id: '5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c', status: 'DISPATCHED' }], pageInfo: { hasNextPage: false, endCursor: 'WyIyMDI2LTExLTI0VDA5OjEyOjQ0LjEyMzQ1NloiLCI1YTFmM2M3ZS05YjJkLTRlNmYtYThjMC0xZDNlNWY3YTliMmMiXQ' } } },
  extensions: { cost: { requestedQueryCost: 22, actualQueryCost: 3, throttleStatus: { maximumAvailable: 40000, currentlyAvailable: 39997, restoreRate: 3333.33 } } },
};

/** A GraphQL-shaped refusal of the request itself (not a document): never a problem or a 500. */
function sendErrors(res: Response, status: number, errors: GraphQLError[]): void {
  res.status(status).type('application/json').send(JSON.stringify({ errors: errors.map((error) => error.toJSON()) }));
}

/** The body reader's refusals (api/http/body-reader.ts) of POST /v1/graphql, as GraphQL errors, by their kind. */
const BODY_REFUSAL_CODES: Partial<Record<ErrorKind, string>> = {
  bad_request: REFUSAL_CODES.badRequest,
  payload_too_large: REFUSAL_CODES.tooLarge,
  unsupported_encoding: REFUSAL_CODES.badRequest,
};

/** Errors graphql-http raises itself (parsing, validation, a malformed request) given their codes. */
function formatError(error: Readonly<GraphQLError | Error>): GraphQLError {
  if (error instanceof GraphQLError) {
    if (error.extensions.code) return error;
    const code = error.message.startsWith('Syntax Error') ? REFUSAL_CODES.syntax : REFUSAL_CODES.validation;
    return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, extensions: { ...error.extensions, code } });
  }
  return codedError(error.message, REFUSAL_CODES.badRequest);
}

/**
 * D15's headers, in requests (the bucket's unit), as every /v1/ answer carries them; a THROTTLED
 * answer adds Retry-After.
 */
function rateLimitHeaders(res: Response, throttle: NonNullable<RequestScope['throttle']>): void {
  const { maximumAvailable, currentlyAvailable, restoreRate } = throttle.status;
  res.setHeader('X-RateLimit-Limit', String(Math.round(maximumAvailable / POINTS_PER_REQUEST)));
  res.setHeader('X-RateLimit-Remaining', String(Math.floor(currentlyAvailable / POINTS_PER_REQUEST)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil(Date.now() / 1000 + (restoreRate > 0 ? (maximumAvailable - currentlyAvailable) / restoreRate : 0))));
  if (throttle.waitSeconds > 0) res.setHeader('Retry-After', String(throttle.waitSeconds));
}

export interface GraphQLRouteOptions extends ExecutionDeps {
  /** GraphiQL is served outside production only (D17). */
  production: boolean;
}

/**
 * D17: POST /v1/graphql behind the /v1 bearer guard (D10), on graphql-http (the GraphQL
 * foundation's reference implementation of GraphQL over HTTP) with graphql-js. Each request is
 * refused before execution if its document is malformed, too deep, too aliased, too wide, too
 * costly or its variables too large or too deeply nested (api/graphql/limits.ts, cost.ts), and runs in its tenant's
 * transaction otherwise (api/graphql/execute.ts).
 */
export function graphqlRoutes(host: RouteHost, options: GraphQLRouteOptions): void {
  const handle = createHandler<import('express').Request, RequestScope, RequestScope>({
    schema,
    parse,
    validationRules: (_req, _args, specified) => validationRules(specified),
    context: (req) => req.context,
    execute: createExecutor(options) as never,
    formatError,
  });

  // Before the /v1 problem handler: the body parser's refusals of this path answer GraphQL errors.
  const bodyRefusals: ErrorRequestHandler = (err: unknown, req, res, next) => {
    const code = err instanceof RequestBodyError ? BODY_REFUSAL_CODES[err.kind] : undefined;
    if (!(err instanceof RequestBodyError) || !code || req.method !== 'POST' || req.path !== '/') return next(err);
    sendErrors(res, ERROR_RENDERINGS[err.kind].status, [codedError(err.message, code)]);
  };
  host.app.use('/v1/graphql', bodyRefusals);

  route(host, {
    method: 'post',
    path: '/v1/graphql',
    operationId: 'graphql',
    summary: 'GraphQL over quotes, work orders and customers, each query costed and drawn from the plan',
    description:
      'GraphQL over HTTP (`application/json` or `application/graphql-response+json`). The schema is `/v1/graphql/schema.graphql`; docs/graphql.md explains cost and limits. ' +
      'Every answer carries `extensions.cost` (requested and actual points, and the bucket). Refusals are GraphQL errors with `extensions.code`: ' +
      '`GRAPHQL_PARSE_FAILED`, `GRAPHQL_VALIDATION_FAILED`, `MAX_DEPTH_EXCEEDED`, `MAX_ALIASES_EXCEEDED`, `MAX_ROOT_FIELDS_EXCEEDED`, `MAX_COST_EXCEEDED`, ' +
      '`VARIABLES_TOO_LARGE`, `VARIABLES_TOO_DEEP`, `BATCHING_NOT_SUPPORTED`, `BAD_USER_INPUT`, `THROTTLED`; resolver errors `FORBIDDEN`, `NOT_FOUND`, `CONFLICT`, …; `SERVICE_UNAVAILABLE` with status 503 and `Retry-After` while the database cannot be reached.',
    tags: ['graphql'],
    auth: 'bearer',
    // D15 and D17: one request token, as every /v1/ request, and the operation's cost in points on
    // top, drawn by the executor once costed (api/graphql/execute.ts).
    metering: 'points',
    rawBody: { description: 'A GraphQL request: query, optional operationName and variables. One operation per request (no arrays).', schema: GraphQLRequestBody, example: { query: '{ workOrders(first: 1) { nodes { id status } } }' } },
    responses: { 200: { description: 'The result, with extensions.cost; errors carry extensions.code', schema: GraphQLResponse, example: RESPONSE_EXAMPLE } },
    handler: async ({ req, res }) => {
      const body: unknown = req.body;
      if (Array.isArray(body)) {
        sendErrors(res, 400, [codedError('Send one operation per request; arrays of operations (batching) are not supported.', REFUSAL_CODES.batch)]);
        return;
      }
      // The one string rule (no NUL, no lone surrogate): refused in the query, its name and every variable before anything runs.
      const unstorable = unstorableText(body, 'body');
      if (unstorable.length > 0) {
        const fields = Object.fromEntries(unstorable.slice(0, MAX_REPORTED_FIELDS));
        sendErrors(res, 400, [codedError(`Text that cannot be stored: ${Object.entries(fields).map(([path, complaint]) => `${path} (${complaint})`).join(', ')}.`, REFUSAL_CODES.badInput, { fields })]);
        return;
      }
      const variables = (body as { variables?: unknown } | undefined)?.variables;
      // Depth before size: measuring the size walks the variables recursively.
      if (overDeepVariables(variables) !== undefined) {
        sendErrors(res, 400, [codedError(`The variables nest deeper than ${LIMITS.maxVariablesDepth} levels of objects and arrays.`, REFUSAL_CODES.variablesDepth, { maximumDepth: LIMITS.maxVariablesDepth })]);
        return;
      }
      const size = oversizedVariables(variables);
      if (size !== undefined) {
        sendErrors(res, 413, [codedError(`The variables are ${size} bytes; at most ${LIMITS.maxVariablesBytes} are allowed.`, REFUSAL_CODES.variables)]);
        return;
      }
      const scope: RequestScope = { caller: req.caller!, log: req.log };
      const [answer, init] = await handle({ method: req.method, url: req.originalUrl, headers: req.headers, body: (body as Record<string, unknown> | undefined) ?? null, raw: req, context: scope });
      if (scope.throttle) rateLimitHeaders(res, scope.throttle);
      res.status(init.status);
      for (const [name, value] of Object.entries(init.headers ?? {})) res.setHeader(name, value);
      // graphql-http answers some refusals of the request itself (media type) without a GraphQL body.
      if (init.status >= 400 && !answer?.startsWith('{')) {
        sendErrors(res, init.status, [codedError(answer ?? init.statusText, REFUSAL_CODES.badRequest)]);
        return;
      }
      res.send(answer ?? '');
    },
  });

  // D15: the request token route() draws before the document is read; refused, it answers as
  // GraphQL's THROTTLED like a query the bucket cannot pay for, with the request's own status.
  // The database unreachable (at that draw, or while the operation runs) answers GraphQL's
  // SERVICE_UNAVAILABLE with the 503 and Retry-After REST answers, not a problem document.
  const requestRefused: ErrorRequestHandler = (err: unknown, req, res, next) => {
    if (req.method !== 'POST' || req.path !== '/' || res.headersSent) return next(err);
    if (err instanceof ServiceUnavailableError || isDatabaseUnreachable(err)) {
      const unavailable = asDomainError(err, req.log) as ServiceUnavailableError;
      res.setHeader('Retry-After', String(unavailable.retryAfterSeconds));
      sendErrors(res, ERROR_RENDERINGS.service_unavailable.status, [codedError(unavailable.message, ERROR_RENDERINGS.service_unavailable.graphql, { retryAfterSeconds: unavailable.retryAfterSeconds })]);
      return;
    }
    // The unauthenticated are refused by the address limit before this route, in the shape of their 401.
    if (!(err instanceof RateLimitedError) || !req.caller) return next(err);
    res.setHeader('Retry-After', String(err.retryAfterSeconds));
    sendErrors(res, ERROR_RENDERINGS.rate_limited.status, [
      codedError(`Throttled: every request draws one request from the plan's bucket, and it is empty; retry in ${err.retryAfterSeconds} seconds.`, REFUSAL_CODES.throttled, { retryAfterSeconds: err.retryAfterSeconds }),
    ]);
  };
  host.app.use('/v1/graphql', requestRefused);

  route(host, {
    method: 'get',
    path: '/v1/graphql/schema.graphql',
    operationId: 'getGraphqlSchema',
    summary: 'The GraphQL schema as SDL',
    description: 'The schema POST /v1/graphql serves, printed by graphql-js (for code generators and review).',
    tags: ['graphql'],
    auth: 'bearer',
    metering: 'request',
    responses: { 200: { description: 'SDL', schema: z.string(), contentType: 'text/plain', example: SCHEMA_SDL.slice(0, 200) } },
    handler: ({ res }) => {
      res.type('text/plain; charset=utf-8').send(SCHEMA_SDL);
    },
  });

  if (options.production) return;
  // Read when GraphiQL is first opened: its scripts are megabytes a replica need not hold until then.
  let assets: ReturnType<typeof graphiqlAssets> | undefined;
  const policy = (res: Response) => res.setHeader('Content-Security-Policy', GRAPHIQL_CSP);
  route(host, {
    method: 'get',
    path: '/v1/graphql',
    operationId: 'getGraphiql',
    summary: 'GraphiQL (outside production), every asset served by this deployment',
    description: 'An in-browser GraphQL IDE; sign in from its bar, or put a bearer token in its Headers tab. Not served in production (there this path is 401 like any /v1/ path without a token).',
    tags: ['graphql'],
    auth: 'none',
    responses: { 200: { description: 'HTML page', schema: z.string(), contentType: 'text/html', example: GRAPHIQL_PAGE.slice(0, 200) } },
    handler: ({ res }) => {
      policy(res);
      res.type('html').send(GRAPHIQL_PAGE);
    },
  });
  route(host, {
    method: 'get',
    path: `${GRAPHIQL_BASE}/:asset`,
    operationId: 'getGraphiqlAsset',
    documented: false,
    summary: "GraphiQL's scripts and stylesheets (outside production)",
    description: 'graphiql and React from the installed packages, and the page start-up script; nothing else of those packages.',
    tags: ['graphql'],
    auth: 'none',
    params: z.strictObject({ asset: z.string().regex(/^[a-z0-9.-]{1,64}\.(js|css)$/) }),
    responses: { 200: { description: 'JavaScript or CSS', schema: z.string(), contentType: 'application/javascript', example: '(function () {' }, 404: { description: 'Not one of the page\'s assets', schema: ProblemSchema, contentType: PROBLEM_CONTENT_TYPE } },
    handler: ({ res, params }) => {
      assets ??= graphiqlAssets();
      const asset = assets.get(params.asset);
      if (!asset) throw notFound('No such GraphiQL asset.');
      policy(res);
      res.setHeader('Cache-Control', 'public, max-age=3600');
      res.type(asset.type).send(asset.body);
    },
  });
}
