import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * Browser clients on the allowlisted origins (CORS_ORIGINS) may call the API from a page; every
 * other origin gets no CORS header at all, so the browser refuses it. A preflight from an allowed
 * origin is answered here, before authentication (a preflight carries no token); one from any
 * other origin goes on to be refused as any request would be. Bearer tokens travel in
 * `Authorization`, never in cookies, so no credentials mode is offered.
 */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Service-Version', 'X-Request-Id'];
/** What a page may read of an answer: paging, retry advice, the request id and the version. */
const EXPOSED_HEADERS = ['Link', 'Retry-After', 'X-Request-Id', 'Service-Version', 'RateLimit', 'RateLimit-Policy', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Idempotent-Replayed'];

export function crossOrigin(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  const handler = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    // A preflight from an allowed origin ends here with 204; from another, it goes on (and is refused later).
    preflightContinue: false,
    optionsSuccessStatus: 204,
  });
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (allowed.size === 0 || origin === undefined || !allowed.has(origin)) {
      next();
      return;
    }
    handler(req, res, next);
  };
}
