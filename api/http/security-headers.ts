import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * The pages: the reference (api/meta/routes.ts) and the webhook deliveries page
 * (api/developer/routes.ts) load their own scripts and styles, /openapi.json and the API.
 */
const DOCS_PAGE = /^\/(docs|developer)(\/|$)/;
/** D24: the customer's quote page runs no script at all and loads only its own stylesheet. */
const QUOTE_PAGE = /^\/q\//;

/**
 * Every response's security headers, configured here once (helmet). Besides helmet's defaults
 * (nosniff on everything, no referrer, same-origin resource policy, ...):
 * - API responses are data, never a page: `default-src 'none'` and no framing.
 * - /docs and /developer/, the pages, may use only this app's own scripts and styles (swagger-ui's bundle),
 *   images inline in its stylesheet, and this app for /openapi.json; it cannot be framed.
 * - /q/, the customer's quote page (D24), runs no script and loads only its own stylesheet; its
 *   forms post only to this app.
 * - HSTS only where HTTPS is served: a request that arrived over TLS (at the trusted proxy,
 *   X-Forwarded-Proto, or here). Plain-HTTP development answers none, so no browser is pinned.
 * - Nothing under /api/ is stored by a cache: tokens (the login response), tenant data.
 * The OAuth callback page sets its own, stricter headers (api/integrations/callback-page.ts).
 */
export function securityHeaders(): RequestHandler[] {
  const common = helmet({
    contentSecurityPolicy: false,
    strictTransportSecurity: false,
    xFrameOptions: { action: 'deny' },
  });
  const apiPolicy = helmet.contentSecurityPolicy({ useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } });
  const pagePolicy = helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  });
  const quotePagePolicy = helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'none'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
    },
  });
  const hsts = helmet.strictTransportSecurity({ maxAge: 365 * 24 * 60 * 60, includeSubDomains: true });
  return [
    common,
    (req, res, next) => (QUOTE_PAGE.test(req.path) ? quotePagePolicy : DOCS_PAGE.test(req.path) ? pagePolicy : apiPolicy)(req, res, next),
    (req, res, next) => (req.secure ? hsts(req, res, next) : next()),
    (req, res, next) => {
      if (req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
      next();
    },
  ];
}
