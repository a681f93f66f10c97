import { z } from 'zod';
import { VERSION_HEADER } from '../versions/middleware';
import { CURRENT_VERSION } from '../../domain/versions/versions';
import { BROAD_LIMIT } from './rate-limit';
import { IDEMPOTENCY_REPLAYED_HEADER } from './idempotency';

/**
 * The headers the middleware in front of every route sends, as the OpenAPI document declares
 * them on each response (api/http/route.ts adds them to what a route declares itself, such as
 * `Link`), so a typed client sees them. One rule per header, mirroring where it is set:
 *
 * - `X-Request-Id` (api/http/request-id.ts): every answer.
 * - `Service-Version` (api/versions/middleware.ts, D16): every answer under `/api/v1/` and `/v1/`.
 * - `RateLimit`, `RateLimit-Policy` (document 000 section 8, api/http/rate-limit.ts): every answer
 *   but `/api/health`'s and, under `/v1/`, those of authenticated requests, which D15's plan bucket
 *   counts instead: there only on a public route, a 401 and (maybe) a 429.
 * - `X-RateLimit-Limit`, `-Remaining`, `-Reset` (D15, api/http/plan-meter.ts): answers of metered
 *   `/v1/` routes once the request is drawn (always on a success; not on a 401).
 * - `Retry-After`: every 429 and 503.
 * - `Idempotent-Replayed` (D14, api/http/idempotency.ts): an answer repeated for a repeated
 *   `Idempotency-Key`.
 *
 * test/integration/response-headers.test.ts compares these with the headers of real answers.
 */

const text = (description: string, example: string) => z.string().meta({ description, example });
const integer = (description: string, example: number) => z.int32().min(0).meta({ description, example });

const REQUEST_ID = text('Echoes a sane inbound `X-Request-Id`, or a generated id; the same as `request_id` in an error and in every log line of the request.', '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f');
const SERVICE_VERSION = text('The dated version this answer is shaped for: the request\'s `Service-Version`, else the workspace\'s pin, else the current one.', CURRENT_VERSION);
const RATE_LIMIT = text(
  'The limit per client address: `limit=<n>, remaining=<n>, reset=<seconds until the window ends>`.',
  `limit=${BROAD_LIMIT.points}, remaining=${BROAD_LIMIT.points - 1}, reset=${BROAD_LIMIT.windowSeconds}`,
);
const RATE_LIMIT_POLICY = text('The limit per client address: `<limit>;w=<window seconds>`.', `${BROAD_LIMIT.points};w=${BROAD_LIMIT.windowSeconds}`);
const PLAN_LIMIT = integer("The size of the workspace plan's bucket, in requests.", 120);
const PLAN_REMAINING = integer('Requests left in the bucket now.', 119);
const PLAN_RESET = integer('When the bucket is full again, as Unix seconds: an instant, unlike the `reset` of `RateLimit`, which counts seconds.', 1_795_000_000);
const RETRY_AFTER = integer('Seconds to wait before trying again.', 12);
const REPLAYED = z.literal('true').meta({ description: 'Present when this is the kept answer to an earlier request with the same `Idempotency-Key`, repeated.', example: 'true' });

export interface HeaderRoute {
  path: string;
  auth: 'none' | 'bearer' | 'signed';
  metered: boolean;
  idempotent: boolean;
}

/** The standard headers of one declared response of a route, as zod object fields (optional when not always sent). */
export function standardResponseHeaders(route: HeaderRoute, status: number): Record<string, z.ZodType> {
  const headers: Record<string, z.ZodType> = { 'X-Request-Id': REQUEST_ID };
  const v1 = route.path === '/v1' || route.path.startsWith('/v1/');
  if (route.path.startsWith('/api/v1/') || v1) headers[VERSION_HEADER] = SERVICE_VERSION;
  // The address limit: everywhere but the health check; under /v1/ only what is not authenticated.
  if (route.path !== '/api/health') {
    if (!v1 || route.auth !== 'bearer' || status === 401) {
      headers.RateLimit = RATE_LIMIT;
      headers['RateLimit-Policy'] = RATE_LIMIT_POLICY;
    } else if (status === 429) {
      headers.RateLimit = RATE_LIMIT.optional();
      headers['RateLimit-Policy'] = RATE_LIMIT_POLICY.optional();
    }
  }
  if (route.metered && status !== 401) {
    const always = status >= 200 && status < 300;
    headers['X-RateLimit-Limit'] = always ? PLAN_LIMIT : PLAN_LIMIT.optional();
    headers['X-RateLimit-Remaining'] = always ? PLAN_REMAINING : PLAN_REMAINING.optional();
    headers['X-RateLimit-Reset'] = always ? PLAN_RESET : PLAN_RESET.optional();
  }
  // A 503 says when to come back when it knows (the database reconnecting), not when a provider is not configured.
  if (status === 429) headers['Retry-After'] = RETRY_AFTER;
  if (status === 503) headers['Retry-After'] = RETRY_AFTER.optional();
  if (route.idempotent && status < 500 && status !== 401 && status !== 429) headers[IDEMPOTENCY_REPLAYED_HEADER] = REPLAYED.optional();
  return headers;
}

/**
 * For the few operations declared to the registry by hand (pages that answer HTML in every
 * outcome): each response with the standard headers beside its own.
 */
export function withStandardHeaders<R extends { description: string; headers?: z.ZodObject }>(route: HeaderRoute, responses: Record<number, R>): Record<number, R & { headers: z.ZodObject }> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [status, { ...response, headers: z.object({ ...standardResponseHeaders(route, Number(status)), ...response.headers?.shape }) }]),
  ) as Record<number, R & { headers: z.ZodObject }>;
}
