import type { Express, Request, Response } from 'express';
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { Role } from '../../db/entities/user';
import { forbidden, unauthenticated } from '../../domain/errors/errors';
import type { Metering, RequestMeter } from './plan-meter';
import { answerOnce, IDEMPOTENCY_HEADER, keepNothing, sendAnswer, type Answer, type IdempotencyKeys, type Keep } from './idempotency';
import { fieldsOf, parseOrThrow } from './validate';
import { ErrorEnvelopeSchema } from './common-schemas';
import { errorExample } from './error-examples';
import type { PublicRoutes } from './public-routes';
import type { Acceptor } from './compiled-acceptor';
import type { Caller } from './request-context';
import { PROBLEM_CONTENT_TYPE, ProblemSchema, isProblemPath, problemExample } from '../v1/problem';
import { standardResponseHeaders } from './response-headers';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type AnyObject = z.ZodType<Record<string, unknown>, Record<string, unknown>>;

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /**
   * Required with a schema: a realistic body, checked against the schema when the route is
   * declared. Error envelopes get one from their status and description when omitted.
   */
  example?: unknown;
  /** Defaults to application/json. */
  contentType?: string;
  /** Response headers, for the document (e.g. Link on a page of a list). */
  headers?: z.ZodObject;
}

interface RouteDeclaration<B extends z.ZodType | undefined, Q extends AnyObject | undefined, P extends AnyObject | undefined, A extends Auth> {
  method: Method;
  /** Express syntax (`/api/v1/quotes/:id`); OpenAPI gets `{id}`. */
  path: string;
  /** Unique, camelCase: the method name generated clients give this operation. */
  operationId: string;
  /** One line. */
  summary: string;
  /** What it does, who may call it and what it answers, for the reference and generated clients. */
  description: string;
  tags: string[];
  auth: A;
  /** Roles allowed (403 for the others); omitted means any authenticated role. */
  roles?: readonly Role[];
  body?: B;
  /**
   * A compiled check that accepts exactly what `body` accepts, for bodies large enough that zod's
   * walk shows (api/http/compiled-acceptor.ts); what it refuses is still worded by zod.
   */
  bodyAcceptor?: Acceptor;
  /** Required with a body: a realistic request body, checked against `body` when declared. */
  bodyExample?: B extends z.ZodType ? z.input<B> : never;
  query?: Q;
  params?: P;
  /** Request headers the handler reads itself (documented, not validated here). */
  headers?: z.ZodObject;
  /** A body the handler reads as raw bytes itself (a signed webhook): documented, not parsed here. */
  rawBody?: { description: string; schema: z.ZodType; example: unknown; contentType?: string };
  responses: Record<number, ResponseSpec>;
  /**
   * D15: what each request draws from its tenant's plan bucket (api/http/plan-meter.ts). Every
   * bearer route under `/v1/` declares it; no other route may (`/api/` keeps document 000
   * section 8's limits, a public route has no tenant).
   */
  metering?: Metering;
  /**
   * `false` for a page's own plumbing (its script, stylesheet, image): served like any route, but
   * not an operation of the API, so left out of the OpenAPI document and the clients made from it.
   */
  documented?: false;
}

/**
 * D14: a route that declares `idempotency` takes the Idempotency-Key header (documented in its
 * `headers`) and runs once per key of the tenant (api/http/idempotency.ts). Its handler answers
 * an Answer instead of writing the response, and hands it to `keep` in the transaction of its
 * write; route() answers it, and answers it again to the same request with the same key.
 */
export type RouteSpec<B extends z.ZodType | undefined, Q extends AnyObject | undefined, P extends AnyObject | undefined, A extends Auth> = RouteDeclaration<B, Q, P, A> &
  (
    | { idempotency?: undefined; handler: (ctx: HandlerContext<B, Q, P, A>) => Promise<void> | void }
    | { idempotency: typeof IDEMPOTENCY_HEADER; handler: (ctx: HandlerContext<B, Q, P, A> & { keep: Keep }) => Promise<Answer> }
  );

/** none: public; bearer: guarded by api/http/authenticate.ts; signed: authenticated by its own signature. */
export type Auth = 'none' | 'bearer' | 'signed';

export interface HandlerContext<B, Q, P, A extends Auth> {
  req: Request;
  res: Response;
  body: B extends z.ZodType ? z.output<B> : undefined;
  query: Q extends z.ZodType ? z.output<Q> : undefined;
  params: P extends z.ZodType ? z.output<P> : undefined;
  caller: A extends 'bearer' ? Caller : undefined;
}

export interface RouteHost {
  app: Express;
  registry: OpenAPIRegistry;
  /** Filled by route(); the bearer guard lets these through. */
  publicRoutes: PublicRoutes;
  /** D15: the plan buckets that routes declaring `metering` draw their request token from. */
  meter?: RequestMeter;
  /** D14: where routes declaring `idempotency` claim their keys. */
  idempotencyKeys?: IdempotencyKeys;
}

export const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/**
 * Declares one route in every place at once: Express (with the plan draw, role check, validation
 * and idempotency key in front of the handler, as declared), the bearer guard's list of public
 * routes, and the OpenAPI registry, from the same zod schemas. One source of truth.
 */
export function route<B extends z.ZodType | undefined, Q extends AnyObject | undefined, P extends AnyObject | undefined, A extends Auth>(
  host: RouteHost,
  spec: RouteSpec<B, Q, P, A>,
): void {
  checkGuards(host, spec as AnySpec);
  if (spec.documented !== false) host.registry.registerPath(describe(spec as AnySpec));
  if (spec.auth !== 'bearer') host.publicRoutes.add(spec.method, spec.path);
  host.app[spec.method](spec.path, async (req: Request, res: Response) => {
    const key = spec.idempotency ? req.get(IDEMPOTENCY_HEADER) : undefined;
    if (spec.auth === 'bearer') {
      if (!req.caller) throw unauthenticated();
      // D15: one request token before roles, input and key, so a refusal or a replay draws it too;
      // GraphQL's operation draws its cost on top (metering 'points'). Checked by checkGuards:
      // a metered route is a bearer route of a host with a meter.
      if (spec.metering !== undefined) await host.meter!.draw(req.caller.organizationId, res);
      if (spec.roles && !spec.roles.includes(req.caller.role)) throw forbidden();
    }
    const params = spec.params ? parseOrThrow(spec.params, req.params, 'params') : undefined;
    const query = spec.query ? parseOrThrow(spec.query, req.query, 'query') : undefined;
    const body = spec.body ? parseOrThrow(spec.body, req.body, 'body', spec.bodyAcceptor) : undefined;
    const ctx = { req, res, body, query, params, caller: req.caller } as HandlerContext<B, Q, P, A>;
    if (!spec.idempotency) {
      await spec.handler(ctx);
      return;
    }
    if (key === undefined) {
      sendAnswer(res, await spec.handler({ ...ctx, keep: keepNothing }));
      return;
    }
    await answerOnce({ req, res, key, keys: host.idempotencyKeys! }, (keep) => spec.handler({ ...ctx, keep }));
  });
}

/** A declaration the guards cannot serve is a bug in it: fail at start-up, not on a request. */
function checkGuards(host: RouteHost, spec: AnySpec): void {
  const under = isProblemPath(spec.path);
  if (spec.metering !== undefined) {
    if (spec.auth !== 'bearer' || !under) throw new Error(`${spec.operationId}: only bearer routes under /v1/ draw from a plan bucket`);
    if (!host.meter) throw new Error(`${spec.operationId}: declares metering but the host has no plan meter`);
  } else if (spec.auth === 'bearer' && under) {
    throw new Error(`${spec.operationId}: a bearer route under /v1/ declares what it draws from the tenant's plan (D15 metering)`);
  }
  if (spec.idempotency !== undefined) {
    if (spec.auth !== 'bearer') throw new Error(`${spec.operationId}: idempotency keys are the tenant's, so an idempotent route is a bearer route`);
    if (spec.method !== 'post') throw new Error(`${spec.operationId}: only a POST takes an ${IDEMPOTENCY_HEADER}`);
    if (!(spec.headers?.shape && IDEMPOTENCY_HEADER in spec.headers.shape)) throw new Error(`${spec.operationId}: an idempotent route documents its ${IDEMPOTENCY_HEADER} header`);
    if (!host.idempotencyKeys) throw new Error(`${spec.operationId}: declares idempotency but the host keeps no keys`);
  }
}

type AnySpec = RouteDeclaration<z.ZodType | undefined, AnyObject | undefined, AnyObject | undefined, Auth> & { idempotency?: typeof IDEMPOTENCY_HEADER };

/** An example that its schema refuses is a bug in the declaration: fail at start-up, not in a client. */
function checkedExample(spec: AnySpec, what: string, schema: z.ZodType, example: unknown): unknown {
  if (example === undefined) throw new Error(`${spec.operationId}: ${what} has a schema but no example`);
  const parsed = schema.safeParse(example);
  if (!parsed.success) throw new Error(`${spec.operationId}: the example of ${what} does not match its schema: ${JSON.stringify(fieldsOf(parsed.error, what))}`);
  return example;
}

/**
 * What the validator answers for a plausible mistake on this route, computed by the validator
 * itself: a body missing its required fields or carrying an unknown key, an unknown query key,
 * or a malformed path parameter.
 */
function validationComplaints(spec: AnySpec): Record<string, string> {
  const paramKeys = spec.params instanceof z.ZodObject ? Object.keys(spec.params.shape) : [];
  const attempts: [z.ZodType | undefined, unknown, string][] = [
    [spec.body, {}, 'body'],
    [spec.body, { ...(spec.bodyExample as object), unexpectedKey: true }, 'body'],
    [spec.query, { unexpectedKey: '1' }, 'query'],
    [spec.params, Object.fromEntries(paramKeys.map((key) => [key, 'not-valid'])), 'params'],
  ];
  for (const [schema, value, location] of attempts) {
    if (!schema) continue;
    const parsed = schema.safeParse(value);
    if (!parsed.success) return fieldsOf(parsed.error, location).fields;
  }
  throw new Error(`${spec.operationId}: declares validated input that accepts anything`);
}

function describe(spec: AnySpec): RouteConfig {
  const responses: RouteConfig['responses'] = {};
  const declared: Record<number, ResponseSpec> = { ...spec.responses };
  // D10: under /v1/ errors are problem details, not the section 7 envelope.
  const problems = isProblemPath(spec.path);
  const errorSchema = problems ? ProblemSchema : ErrorEnvelopeSchema;
  const error = (description: string): ResponseSpec => ({ description, schema: errorSchema, ...(problems ? { contentType: PROBLEM_CONTENT_TYPE } : {}) });
  const exampleOf = (status: number, message: string, fields?: Record<string, string>) =>
    problems ? problemExample(status, message, fields) : errorExample(status, message, fields);
  if (spec.auth === 'bearer') declared[401] ??= error('Missing, malformed or foreign token.');
  if (spec.roles) declared[403] ??= error('Role not allowed.');
  if (spec.body || spec.query || spec.params) {
    declared[422] ??= { ...error('Body, query or path failed validation.'), example: exampleOf(422, 'The request did not pass validation.', validationComplaints(spec)) };
  }
  if (!spec.path.startsWith('/api/health')) declared[429] ??= error('Rate limited; back off by Retry-After.');
  declared[500] ??= error('Unhandled server error; quote the request_id.');

  for (const [status, response] of Object.entries(declared)) {
    let example = response.example;
    if (response.schema === errorSchema && example === undefined) {
      example = exampleOf(Number(status), Number(status) === 500 ? 'Internal server error.' : response.description);
    }
    // Every header the answer carries: the middleware's (api/http/response-headers.ts) and the route's own (Link, ...).
    const headers = z.object({
      ...standardResponseHeaders({ path: spec.path, auth: spec.auth, metered: spec.metering !== undefined, idempotent: spec.idempotency !== undefined }, Number(status)),
      ...response.headers?.shape,
    });
    responses[status] = {
      description: response.description,
      headers,
      ...(response.schema
        ? { content: { [response.contentType ?? 'application/json']: { schema: response.schema, example: checkedExample(spec, `response ${status}`, response.schema, example) } } }
        : {}),
    };
  }

  return {
    method: spec.method,
    path: openApiPath(spec.path),
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    // Public operations say so explicitly; generated clients then send no token to them.
    security: spec.auth === 'bearer' ? [{ bearerAuth: [] }] : [],
    request: {
      ...(spec.params ? { params: spec.params as never } : {}),
      ...(spec.query ? { query: spec.query as never } : {}),
      ...(spec.headers ? { headers: spec.headers } : {}),
      ...(spec.body
        ? { body: { required: true, content: { 'application/json': { schema: spec.body, example: checkedExample(spec, 'the request body', spec.body, spec.bodyExample) } } } }
        : {}),
      ...(spec.rawBody
        ? {
            body: {
              required: true,
              description: spec.rawBody.description,
              content: { [spec.rawBody.contentType ?? 'application/json']: { schema: spec.rawBody.schema, example: checkedExample(spec, 'the request body', spec.rawBody.schema, spec.rawBody.example) } },
            },
          }
        : {}),
    },
    responses,
  };
}
