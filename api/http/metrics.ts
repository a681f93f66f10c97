import type { RequestHandler } from 'express';
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
    help: 'Requests refused with 429 by a rate limit (section 8), by route pattern.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const stop = duration.startTimer();
    res.on('finish', () => {
      // Express leaves the matched route on the request; its path is the pattern, never the ids.
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : UNMATCHED_ROUTE;
      const method = req.method;
      requests.inc({ method, route, status: String(res.statusCode) });
      stop({ method, route });
      if (res.statusCode === 429) rateLimited.inc({ route });
    });
    next();
  };
  return { requests, duration, rateLimited, middleware };
}
