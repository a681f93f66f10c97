import type { Express, Request, Response } from 'express';
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { Role } from '../../db/entities/user';
import { forbidden, unauthenticated } from './errors';
import { parseOrThrow } from './validate';
import { ErrorEnvelopeSchema } from './common-schemas';
import type { Caller } from './request-context';
import type { PublicRoutes } from './public-routes';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type AnyObject = z.ZodType<Record<string, unknown>, Record<string, unknown>>;

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface RouteSpec<B extends z.ZodType | undefined, Q extends AnyObject | undefined, P extends AnyObject | undefined, A extends Auth> {
  method: Method;
  /** Express syntax (`/api/v1/quotes/:id`); OpenAPI gets `{id}`. */
  path: string;
  summary: string;
  tags: string[];
  auth: A;
  /** Roles allowed (403 for the others); omitted means any authenticated role. */
  roles?: readonly Role[];
  body?: B;
  query?: Q;
  params?: P;
  responses: Record<number, ResponseSpec>;
  handler: (ctx: HandlerContext<B, Q, P, A>) => Promise<void> | void;
}

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
  /** Filled by the declarations below; the bearer guard reads it. */
  publicRoutes: PublicRoutes;
}

const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/**
 * Declares one route in both places at once: Express (with role check and validation in front
 * of the handler) and the OpenAPI registry, from the same zod schemas. One source of truth.
 */
export function route<B extends z.ZodType | undefined, Q extends AnyObject | undefined, P extends AnyObject | undefined, A extends Auth>(
  host: RouteHost,
  spec: RouteSpec<B, Q, P, A>,
): void {
  host.registry.registerPath(describe(spec));
  if (spec.auth !== 'bearer') host.publicRoutes.add(spec.method, spec.path);
  host.app[spec.method](spec.path, async (req: Request, res: Response) => {
    if (spec.auth === 'bearer') {
      if (!req.caller) throw unauthenticated();
      if (spec.roles && !spec.roles.includes(req.caller.role)) throw forbidden();
    }
    const params = spec.params ? parseOrThrow(spec.params, req.params, 'params') : undefined;
    const query = spec.query ? parseOrThrow(spec.query, req.query, 'query') : undefined;
    const body = spec.body ? parseOrThrow(spec.body, req.body, 'body') : undefined;
    await spec.handler({ req, res, body, query, params, caller: req.caller } as HandlerContext<B, Q, P, A>);
  });
}

function describe(spec: RouteSpec<z.ZodType | undefined, AnyObject | undefined, AnyObject | undefined, Auth>): RouteConfig {
  const responses: RouteConfig['responses'] = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema ? { content: { [response.contentType ?? 'application/json']: { schema: response.schema } } } : {}),
    };
  }
  const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorEnvelopeSchema } } });
  if (spec.auth === 'bearer') responses['401'] ??= error('Missing, malformed or foreign token.');
  if (spec.roles) responses['403'] ??= error('Role not allowed.');
  if (spec.body || spec.query || spec.params) responses['422'] ??= error('Body, query or path failed validation.');
  if (!spec.path.startsWith('/api/health')) responses['429'] ??= error('Rate limited; back off by Retry-After.');
  responses['500'] ??= error('Unhandled server error; quote the request_id.');

  return {
    method: spec.method,
    path: openApiPath(spec.path),
    summary: spec.summary,
    tags: spec.tags,
    ...(spec.auth === 'bearer' ? { security: [{ bearerAuth: [] }] } : {}),
    request: {
      ...(spec.params ? { params: spec.params as never } : {}),
      ...(spec.query ? { query: spec.query as never } : {}),
      ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
    },
    responses,
  };
}
