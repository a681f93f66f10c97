import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * GraphiQL (D17: on GET outside production), every byte served by this deployment from the
 * installed packages: graphiql's UMD bundle and stylesheet, and React 18's UMD builds, which that
 * bundle expects as globals. No CDN, no font or image from elsewhere: the page's Content-Security-
 * Policy allows only this origin. The bearer token goes into GraphiQL's Headers tab.
 */
const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

export const GRAPHIQL_BASE = '/v1/graphql/graphiql';

/** Each asset the page loads, by the name it is served under, with its content type. */
const ASSET_FILES: Record<string, { path: string; type: string }> = {
  'react.production.min.js': { path: join(packageDir('react'), 'umd', 'react.production.min.js'), type: 'application/javascript' },
  'react-dom.production.min.js': { path: join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'), type: 'application/javascript' },
  'graphiql.min.js': { path: join(packageDir('graphiql'), 'graphiql.min.js'), type: 'application/javascript' },
  'graphiql.min.css': { path: join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css' },
};

// Kept out of the page so the Content-Security-Policy needs no inline script.
const INIT = `(function () {
  var fetcher = GraphiQL.createFetcher({ url: '/v1/graphql' });
  var headers = JSON.stringify({ authorization: 'Bearer <access_token from POST /api/v1/auth/login>' }, null, 2);
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, { fetcher: fetcher, defaultHeaders: headers, isHeadersEditorEnabled: true, defaultEditorToolsVisibility: 'headers',
      defaultQuery: '# Put your token in the Headers tab below, then run:\\n{\\n  workOrders(first: 5) {\\n    nodes { id status scheduledDate }\\n    pageInfo { hasNextPage endCursor }\\n  }\\n}\\n' })
  );
})();
`;

export const GRAPHIQL_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Shade Office GraphQL</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${GRAPHIQL_BASE}/graphiql.min.css">
  <link rel="stylesheet" href="${GRAPHIQL_BASE}/page.css">
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="${GRAPHIQL_BASE}/react.production.min.js"></script>
  <script src="${GRAPHIQL_BASE}/react-dom.production.min.js"></script>
  <script src="${GRAPHIQL_BASE}/graphiql.min.js"></script>
  <script src="${GRAPHIQL_BASE}/init.js"></script>
</body>
</html>
`;

const PAGE_CSS = 'html, body, #graphiql { height: 100%; margin: 0; }\n';

/** Read once, at start-up, outside production only. */
export function graphiqlAssets(): Map<string, { body: string; type: string }> {
  const assets = new Map<string, { body: string; type: string }>();
  for (const [name, file] of Object.entries(ASSET_FILES)) assets.set(name, { body: readFileSync(file.path, 'utf8'), type: file.type });
  assets.set('init.js', { body: INIT, type: 'application/javascript' });
  assets.set('page.css', { body: PAGE_CSS, type: 'text/css' });
  return assets;
}

/**
 * The page's policy: this origin only. GraphiQL's editors set styles from script (allowed); the
 * stylesheet also embeds its icons as data: URIs.
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
