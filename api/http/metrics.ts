import type { Request, RequestHandler } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * The API's own metrics, registered on the process registry
 * (infra/runtime/metrics.ts) and served apart from the API at METRICS_PORT `/metrics`:
 * requests by route and status, their latency, and the rate limit's refusals.
 */
export interface RequestMetrics {
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route'>;
  readonly rateLimited: Counter<'route'>;
  readonly middleware: RequestHandler;
}

/**
 * Requests that matched no route (a 404, or refused before routing: the broad rate limit, the
 * bearer guard) are counted under this one label, never their path: a scanner's paths must not
 * make a time series each.
 */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The label of an answered request: the pattern of the route Express matched (never the ids in
 * the path), or UNMATCHED_ROUTE. Every route is registered on the app itself with its whole path
 * (api/http/route.ts), so the pattern alone is the route. `req.baseUrl` is not part of it: when
 * the answer is sent it holds the mount path of whichever handler the router stands in, and a
 * handler mounted under `/v1` that answered a route's error once labelled it `/v1/v1/fsm/jobs/:job_id`.
 */
export function routeLabel(req: Pick<Request, 'route'>): string {
  const path: unknown = req.route?.path;
  return typeof path === 'string' && path !== '' ? path : UNMATCHED_ROUTE;
}

export function createRequestMetrics(registry: Registry): RequestMetrics {
  const requests = new Counter({
    name: 'shade_http_requests_total',
    help: 'API requests answered, by route pattern (Express syntax), method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'shade_http_request_duration_seconds',
    help: 'Time from a request arriving to its response being sent, by route pattern and method.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'shade_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit, by route pattern.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const stop = duration.startTimer();
    res.on('finish', () => {
      const route = routeLabel(req);
      const method = req.method;
      requests.inc({ method, route, status: String(res.statusCode) });
      stop({ method, route });
      if (res.statusCode === 429) rateLimited.inc({ route });
    });
    next();
  };
  return { requests, duration, rateLimited, middleware };
}
