// The consent page a person sees at a sandbox's authorize endpoint (npm start's sandboxes turn
// it on; tests queue decisions instead). A plain HTML form, no script: Approve or Deny posts the
// authorize parameters back to the same path, and the provider's authorize logic then redirects
// the browser to the client's redirect_uri exactly as the real provider would after consent.
import type { FakeResponse } from './http-fake';

export interface ConsentPageInput {
  /** e.g. "QuickBooks Online sandbox". */
  provider: string;
  /** The authorize path the form posts to. */
  action: string;
  /** The authorize request's own parameters, carried through the form unchanged. */
  params: URLSearchParams;
  /** What approving grants access to, e.g. "company 9341452000000001". */
  account: string;
  /** Where the browser goes afterwards (shown so the person knows). */
  redirectUri: string;
  scopes: readonly string[];
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function consentPage(input: ConsentPageInput): FakeResponse {
  const hidden = [...input.params.entries()]
    .filter(([name]) => name !== 'decision')
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n      ');
  const body = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escapeHtml(input.provider)}: connect Shade Office?</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
    .badge { display: inline-block; background: #fde68a; color: #713f12; padding: .1rem .5rem; border-radius: .3rem; font-size: .85rem; }
    button { font-size: 1rem; padding: .5rem 1.2rem; margin-right: .5rem; cursor: pointer; }
    code { background: #f3f4f6; padding: 0 .2rem; }
  </style>
</head>
<body>
  <p class="badge">Local sandbox: nothing here reaches the real provider</p>
  <h1>${escapeHtml(input.provider)}</h1>
  <p>Shade Office asks for access to <strong>${escapeHtml(input.account)}</strong>
     (scopes: <code>${escapeHtml(input.scopes.join(' '))}</code>).</p>
  <p>After you answer, your browser goes back to <code>${escapeHtml(input.redirectUri)}</code>.</p>
  <form method="post" action="${escapeHtml(input.action)}">
      ${hidden}
    <button type="submit" name="decision" value="approve">Approve</button>
    <button type="submit" name="decision" value="deny">Deny</button>
  </form>
</body>
</html>
`;
  return {
    status: 200,
    headers: {
      'content-type': 'text/html;charset=UTF-8',
      'cache-control': 'no-store',
      // Nothing is loaded. No form-action: browsers apply it to the redirect that follows the
      // post too, and that goes to the client's redirect_uri on another origin.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    },
    body,
  };
}

/** The authorize parameters: the query on GET, the posted form on the consent page's POST. */
export function authorizeParams(req: { method: string; query: URLSearchParams; body: Buffer }): URLSearchParams {
  return req.method === 'POST' ? new URLSearchParams(req.body.toString('utf8')) : req.query;
}
