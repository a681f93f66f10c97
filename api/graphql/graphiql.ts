import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * GraphiQL (D17: on GET outside production), every byte served by this deployment from the
 * installed packages: graphiql's UMD bundle and stylesheet, and React 18's UMD builds, which that
 * bundle expects as globals. No CDN, no font or image from elsewhere: the page's Content-Security-
 * Policy allows only this origin. A sign-in bar above it fetches a token (or one goes into
 * GraphiQL's Headers tab).
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

// Kept out of the page so the Content-Security-Policy needs no inline script. The sign-in bar
// logs in with POST /api/v1/auth/login and keeps the token in this tab's sessionStorage (as the
// deliveries page does); every request then carries it, unless the Headers tab names another.
const INIT = `(function () {
  var TOKEN_KEY = 'shade-office.graphiql.token';
  var EMAIL_KEY = 'shade-office.graphiql.email';
  var base = GraphiQL.createFetcher({ url: '/v1/graphql' });
  function byId(id) { return document.getElementById(id); }
  function token() { return sessionStorage.getItem(TOKEN_KEY); }
  function fetcher(params, options) {
    var headers = Object.assign({}, (options && options.headers) || {});
    var named = Object.keys(headers).some(function (name) { return name.toLowerCase() === 'authorization'; });
    if (!named && token()) headers.authorization = 'Bearer ' + token();
    return base(params, Object.assign({}, options, { headers: headers }));
  }
  function show() {
    var signedIn = Boolean(token());
    byId('sign-in-form').hidden = signedIn;
    byId('signed-in').hidden = !signedIn;
    byId('who').textContent = signedIn ? 'Signed in as ' + sessionStorage.getItem(EMAIL_KEY) : '';
  }
  byId('sign-in-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var form = event.target;
    var message = byId('sign-in-message');
    message.textContent = 'Signing in…';
    fetch('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subdomain: form.subdomain.value.trim(), email: form.email.value.trim(), password: form.password.value }),
    }).then(function (res) {
      return res.json().then(function (body) {
        if (!res.ok) { message.textContent = (body.error && body.error.message) || 'Sign-in failed.'; return; }
        sessionStorage.setItem(TOKEN_KEY, body.access_token);
        sessionStorage.setItem(EMAIL_KEY, form.email.value.trim());
        form.password.value = '';
        message.textContent = '';
        show();
      });
    }).catch(function () { message.textContent = 'The API did not answer.'; });
  });
  byId('sign-out').addEventListener('click', function () {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(EMAIL_KEY);
    show();
  });
  show();
  ReactDOM.createRoot(byId('graphiql')).render(
    React.createElement(GraphiQL, { fetcher: fetcher, isHeadersEditorEnabled: true,
      defaultQuery: '# Sign in above (or put a bearer token in the Headers tab), then run:\\n{\\n  workOrders(first: 5) {\\n    nodes { id status scheduledDate }\\n    pageInfo { hasNextPage endCursor }\\n  }\\n}\\n' })
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
  <header class="bar">
    <strong>Shade Office GraphQL</strong>
    <form id="sign-in-form" aria-label="Sign in">
      <label>Workspace <input name="subdomain" autocomplete="organization" required></label>
      <label>Email <input name="email" type="email" autocomplete="username" required></label>
      <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
      <button type="submit">Sign in</button>
    </form>
    <span id="signed-in" hidden><span id="who"></span> <button id="sign-out" type="button">Sign out</button></span>
    <span id="sign-in-message" role="status" aria-live="polite"></span>
  </header>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="${GRAPHIQL_BASE}/react.production.min.js"></script>
  <script src="${GRAPHIQL_BASE}/react-dom.production.min.js"></script>
  <script src="${GRAPHIQL_BASE}/graphiql.min.js"></script>
  <script src="${GRAPHIQL_BASE}/init.js"></script>
</body>
</html>
`;

const PAGE_CSS = [
  'html, body { height: 100%; margin: 0; }',
  'body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }',
  '.bar { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; padding: 0.5rem 1rem; border-bottom: 1px solid #ddd; font-size: 14px; }',
  '.bar form { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0; }',
  '.bar input { font: inherit; padding: 0.2rem 0.4rem; }',
  '.bar [hidden] { display: none; }',
  '#graphiql { flex: 1; min-height: 0; }',
].join('\n') + '\n';

/** Read once, when GraphiQL is first opened, outside production only. */
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
