import type { Response } from 'express';
import { QUOTE_PAGE_ICON, QUOTE_PAGE_STYLESHEET } from '../quote-page/page';

/**
 * Every outcome of the OAuth callback (section 4.5): a page for a person, never JSON. `back`, once
 * the signed state is trusted: where the consent began (api/integrations/integration-service.ts).
 */
export type CallbackOutcome = (
  | { kind: 'connected'; providerName: string; accountId: string }
  | { kind: 'declined'; providerName: string }
  | { kind: 'bad_request'; reason: string }
  | { kind: 'provider_refused'; providerName: string; reason: string }
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'failed'; requestId: string }
) & { back?: string | undefined };

/** Where the page links when the consent's start is not known: the API reference's integrations. */
export const CALLBACK_DEFAULT_BACK = '/docs/#/integrations';

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function content(outcome: CallbackOutcome): { status: number; title: string; body: string } {
  switch (outcome.kind) {
    case 'connected':
      return {
        status: 200,
        title: `${outcome.providerName} connected`,
        body: `Consent completed: ${outcome.providerName} account ${outcome.accountId} is now connected to your workspace.`,
      };
    case 'declined':
      return {
        status: 200,
        title: `${outcome.providerName} not connected`,
        body: `Consent was declined at ${outcome.providerName}, so nothing was connected. Start again from the integrations settings if that was a mistake.`,
      };
    case 'bad_request':
      return { status: 400, title: 'This link cannot be used', body: `${outcome.reason} Start the connection again from the integrations settings.` };
    case 'provider_refused':
      return { status: 502, title: `${outcome.providerName} refused the connection`, body: `${outcome.reason} Nothing was connected; try again from the integrations settings.` };
    case 'rate_limited':
      return { status: 429, title: 'Too many requests', body: `Please wait ${outcome.retryAfterSeconds} seconds, then start the connection again from the integrations settings.` };
    case 'failed':
      return { status: 500, title: 'Something went wrong', body: `The connection could not be completed. Quote reference ${outcome.requestId} if you contact support.` };
  }
}

/**
 * The page for an outcome, and its status: the same look as the app's other pages (their one
 * stylesheet, from this app), and a link back to where the consent began.
 */
export function renderCallbackPage(outcome: CallbackOutcome): { status: number; html: string } {
  const { status, title, body } = content(outcome);
  const back = outcome.back ?? CALLBACK_DEFAULT_BACK;
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow"><title>${escape(title)}</title>
<link rel="stylesheet" href="${QUOTE_PAGE_STYLESHEET}"><link rel="icon" type="image/svg+xml" href="${QUOTE_PAGE_ICON}"></head>
<body>
<main class="page" data-outcome="${outcome.kind}">
<header><p class="contractor">Shade Office integrations</p><h1>${escape(title)}</h1></header>
<section class="card" role="status"><p>${escape(body)}</p>
<p><a id="back" href="${escape(back)}">${outcome.back ? 'Back to where you started' : 'Back to the integrations reference'}</a></p></section>
</main>
</body>
</html>
`;
  return { status, html };
}

export function sendCallbackPage(res: Response, outcome: CallbackOutcome): void {
  const { status, html } = renderCallbackPage(outcome);
  res
    .status(status)
    // The URL that led here carried a code and a state: keep it out of caches and referrers. The
    // page loads only the app's own stylesheet and icon, and runs no script.
    .set({
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
    })
    .type('html')
    .send(html);
}
