import { z } from 'zod';
import { createRequire } from 'node:module';
import { route, type RouteHost } from '../http/route';
import { routeTable } from '../http/route-table';
import { ErrorEnvelopeSchema } from '../http/common-schemas';
import { notFound } from '../../domain/errors/errors';
import { buildDocument, type DocumentOptions } from './openapi';

export const RouteTable = z
  .strictObject({
    count: z.number().int().min(0),
    routes: z.array(z.strictObject({ method: z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']), path: z.string() })),
  })
  .meta({ id: 'RouteTable' });

const ROUTE_TABLE_EXAMPLE = {
  count: 4,
  routes: [
    { method: 'GET', path: '/api/health' },
    { method: 'POST', path: '/api/v1/auth/login' },
    { method: 'GET', path: '/api/v1/quotes' },
    { method: 'POST', path: '/api/v1/quotes/calculate' },
  ],
} as const;

/** The top of the document; the rest is open-ended. */
const OpenApiDocument = z
  .looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  })
  .meta({ id: 'OpenApiDocument' });

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Shade Office API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/** Every file of swagger-ui-dist that DOCS_PAGE uses, and nothing else of that folder. */
export const DOCS_ASSETS: ReadonlySet<string> = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

// Kept out of the page so a strict Content-Security-Policy (no inline scripts) still works.
// BaseLayout: the standalone layout's top bar would load any document a visitor types in, and
// its logo carries an inline <style> that the page's CSP (no inline styles) refuses.
const DOCS_INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout'
});
`;

/** Section 4.1 route table, section 9.3 OpenAPI document, and a self-hosted reference (no CDN). */
export function metaRoutes(host: RouteHost, options: DocumentOptions): void {
  route(host, {
    method: 'get',
    path: '/api/routes',
    operationId: 'listRoutes',
    summary: 'Every method and path this process dispatches, sorted by path then method',
    description:
      'Read from the router itself, so it lists exactly what this process answers. It exists because every unauthenticated ' +
      'request under /api/v1, to a real or an invented path, answers 401 alike. Discloses no handlers, schemas or configuration.',
    tags: ['infrastructure'],
    auth: 'none',
    responses: { 200: { description: 'Route table', schema: RouteTable, example: ROUTE_TABLE_EXAMPLE } },
    handler: ({ res }) => {
      const routes = routeTable(host.app);
      res.json({ count: routes.length, routes });
    },
  });

  let document: unknown;
  route(host, {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1.0 document',
    description: 'Generated from the zod schemas that validate every request, with the outbound events under `webhooks`.',
    tags: ['infrastructure'],
    auth: 'none',
    responses: {
      200: {
        description: 'OpenAPI document',
        schema: OpenApiDocument,
        example: { openapi: '3.1.0', info: { title: 'Shade Office API', version: '1.0.0' }, paths: { '/api/health': { get: { operationId: 'getHealth' } } } },
      },
    },
    handler: ({ res }) => {
      // Built on first use: by then every route has registered itself.
      document ??= buildDocument(host.registry, options);
      res.json(document);
    },
  });

  route(host, {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    summary: 'Interactive API reference (assets served by this app)',
    description: 'A page that renders /openapi.json with Swagger UI, every asset served by this app (no CDN).',
    tags: ['infrastructure'],
    auth: 'none',
    responses: { 200: { description: 'HTML page', schema: z.string(), contentType: 'text/html', example: DOCS_PAGE } },
    handler: ({ res }) => {
      res.type('html').send(DOCS_PAGE);
    },
  });
  route(host, {
    method: 'get',
    path: '/docs/init.js',
    operationId: 'getApiReferenceScript',
    documented: false,
    summary: 'Start-up script of the API reference page',
    description: 'Kept out of the page so that a Content-Security-Policy without inline scripts still allows it.',
    tags: ['infrastructure'],
    auth: 'none',
    responses: { 200: { description: 'JavaScript', schema: z.string(), contentType: 'application/javascript', example: DOCS_INIT } },
    handler: ({ res }) => {
      res.type('application/javascript').send(DOCS_INIT);
    },
  });
  // A route rather than a mounted static folder, so that its answers carry a route pattern in
  // the request metrics like every other answer (api/http/metrics.ts), never `unmatched`.
  // The package's folder from its absolute-path helper alone: its main module would load the whole
  // browser bundle into this process (about 12 MB resident) for nothing but the folder's path.
  const assetsRoot = (createRequire(import.meta.url)('swagger-ui-dist/absolute-path.js') as () => string)();
  route(host, {
    method: 'get',
    path: '/docs/assets/:asset',
    operationId: 'getApiReferenceAsset',
    documented: false,
    summary: 'The stylesheet and script of the API reference page (from swagger-ui-dist)',
    description: "Only the files the page loads: not the package's stock page, package.json or source maps.",
    tags: ['infrastructure'],
    auth: 'none',
    params: z.strictObject({ asset: z.string().regex(/^[^/]+\.[A-Za-z0-9]+$/, 'Must be a file name with its extension.') }),
    responses: {
      200: { description: 'CSS or JavaScript', schema: z.string(), contentType: 'application/javascript', example: '/*! For license information please see swagger-ui-bundle.js.LICENSE.txt */' },
      404: { description: "Not one of the page's files", schema: ErrorEnvelopeSchema },
    },
    handler: async ({ req, res, params }) => {
      // `swagger-ui.css/` matches the pattern too (routing is not strict), but names no file.
      if (!DOCS_ASSETS.has(params.asset) || req.path.endsWith('/')) throw notFound(`No asset ${params.asset} of the API reference page.`);
      await new Promise<void>((resolve, reject) => {
        // A client that goes away mid-file is not an error of ours to answer.
        res.sendFile(params.asset, { root: assetsRoot, dotfiles: 'deny' }, (err) => (err && !res.headersSent ? reject(err) : resolve()));
      });
    },
  });
}
