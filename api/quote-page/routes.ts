import { readFileSync } from 'node:fs';
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Pool } from 'pg';
import { z } from 'zod';
import { openApiPath, type RouteHost } from '../http/route';
import { asDomainError } from '../http/error-handler';
import { Limiter, type LimitPolicy } from '../http/rate-limit';
import { clientAddressKey } from '../http/client-address';
import { readFormBody } from '../http/body-reader';
import { RateLimitedError } from '../../domain/errors/errors';
import { ERROR_RENDERINGS } from '../../domain/errors/error-kinds';
import { QUOTE_PAGE_ICON, QUOTE_PAGE_STYLESHEET, renderPage, TOO_MANY } from './page';
import { quotePdf } from './pdf';
import type { PageView, QuotePageService } from './page-service';
import { QUOTE_PAGE_EXAMPLES } from './examples';
import { withStandardHeaders } from '../http/response-headers';

/** A page of the customer's: public, unmetered, limited per address like every path. */
const pageRoute = (path: string) => ({ path, auth: 'none' as const, metered: false, idempotent: false });

/** D24: the page's requests counted per client address (a link is guessed by no one, but tried by many). */
export const QUOTE_PAGE_LIMIT: LimitPolicy = { name: 'quote-page', points: 30, windowSeconds: 60 };

const PAGE_PATH = '/q/:token';
const STYLESHEET = readFileSync(new URL('./assets/quote-page.css', import.meta.url), 'utf8');
const ICON = readFileSync(new URL('./assets/favicon.svg', import.meta.url), 'utf8');

/** The form posts: URL-encoded, small, flat, read by the service's one body reader. */
const readForm = readFormBody();

/**
 * A cross-site post is refused before anything is read (D24): a browser says where a request
 * comes from (`Sec-Fetch-Site`, `Origin`); only this deployment's own origin may post. The form's
 * CSRF token, bound to the link, is checked after this (api/quote-page/page-service.ts).
 */
export function crossSite(req: Request, publicBaseUrl: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.get('origin');
  if (origin === undefined) return false;
  const own = new Set([new URL(publicBaseUrl).origin, `${req.protocol}://${req.get('host') ?? ''}`]);
  return !own.has(origin);
}

function send(res: Response, view: PageView, action: string): void {
  // The link is a secret in the URL: no referrer leaves this origin. Same-origin (rather than
  // none) so that the browser still sends this origin as `Origin` on the page's own form posts,
  // which crossSite() requires (with no-referrer a browser sends `Origin: null`).
  res.status(view.status).set('Referrer-Policy', 'same-origin').set('Cache-Control', 'no-store').type('html').send(renderPage(view, action));
}

const pathOf = (req: Request) => `/q/${encodeURIComponent(String(req.params.token))}`;

export function quotePageRoutes(host: RouteHost, deps: { pages: QuotePageService; limiterPool: Pool; publicBaseUrl: string }): void {
  const limiter = new Limiter(deps.limiterPool, QUOTE_PAGE_LIMIT);
  const page = (description: string, example: string) => ({ description, content: { 'text/html': { schema: z.string(), example } } });
  const params = z.object({ token: z.string().meta({ description: 'The token of the link the customer was sent', example: QUOTE_PAGE_EXAMPLES.token }) });
  const common = {
    404: page(
      'The link opens no quote: no link has this token, or it was replaced by a newer send, expired with the quote, the office decided the quote, or the ' +
        "customer's decided quote is past its validity plus 90 days. One neutral page and one status for all, revealing nothing",
      QUOTE_PAGE_EXAMPLES.gone,
    ),
    429: page('Too many requests from this address; back off by Retry-After', QUOTE_PAGE_EXAMPLES.tooMany),
  };
  const unavailable = page("The contractor's workspace is suspended: the quote is not shown and nothing can be decided; the link opens again once it is resumed", QUOTE_PAGE_EXAMPLES.unavailable);
  const form = (fields: z.ZodObject, example: Record<string, string>) => ({
    required: true,
    content: { 'application/x-www-form-urlencoded': { schema: fields, example } },
  });

  // The page's own stylesheet and icon, from this app (the page loads nothing from elsewhere): page
  // plumbing, served and listed in the route table but not operations of the API document.
  host.app.get(QUOTE_PAGE_STYLESHEET, (_req, res) => {
    res.type('text/css').set('Cache-Control', 'public, max-age=3600').send(STYLESHEET);
  });

  host.app.get(QUOTE_PAGE_ICON, (_req, res) => {
    res.type('image/svg+xml').set('Cache-Control', 'public, max-age=86400').send(ICON);
  });

  const limited = async (req: Request, res: Response) => limiter.consume(clientAddressKey(req), res);
  const client = (req: Request) => ({ address: req.ip ?? req.socket.remoteAddress ?? 'unknown', userAgent: req.get('user-agent')?.slice(0, 1000) ?? null });

  host.registry.registerPath({
    method: 'get',
    path: openApiPath(PAGE_PATH),
    operationId: 'getQuotePage',
    summary: "The customer's page of a sent quote (HTML, no login)",
    description:
      'The link emailed by `POST /api/v1/quotes/{id}/send`. While the quote is SENT and the link valid: the contractor, the quote number, each line with ' +
      'what was chosen (fabric, hardware, motor, control side, cassette) and its price, the tax lines of the quote\'s region, the total, the issue date, until when it ' +
      "is valid, the contractor's address, phone and logo, the terms, a PDF link, and the accept and decline forms. After the customer's own decision, the same " +
      'quote read-only with the decision (for an acceptance, the typed name and the time) and its PDF, until the quote\'s validity plus 90 days. Any other link: ' +
      'one neutral page (404). Rate-limited per address.',
    tags: ['customer page'],
    security: [],
    request: { params },
    responses: withStandardHeaders(pageRoute(PAGE_PATH), { 200: page('The quote (or, read-only, the quote the customer decided, with their decision)', QUOTE_PAGE_EXAMPLES.open), 403: unavailable, ...common }),
  });
  host.app.get(PAGE_PATH, async (req, res) => {
    await limited(req, res);
    send(res, await deps.pages.view(String(req.params.token)), pathOf(req));
  });

  host.registry.registerPath({
    method: 'get',
    path: openApiPath(`${PAGE_PATH}/quote.pdf`),
    operationId: 'getQuotePagePdf',
    summary: 'The PDF of the quote the page shows',
    description:
      "The same quote as the page, as a PDF (PDFKit): the contractor's logo, address and phone, the issue date, the validity, each line with what was chosen, " +
      "the figures, the terms and, once the customer decided, their decision (the acceptance's typed name and time). While the link opens the quote, and after the " +
      "customer's decision until the quote's validity plus 90 days; otherwise the neutral page.",
    tags: ['customer page'],
    security: [],
    request: { params },
    responses: withStandardHeaders(pageRoute(`${PAGE_PATH}/quote.pdf`), { 200: { description: 'The PDF', content: { 'application/pdf': { schema: z.string().meta({ format: 'binary' }), example: '%PDF-1.3 …' } } }, 403: unavailable, ...common }),
  });
  host.app.get(`${PAGE_PATH}/quote.pdf`, async (req, res) => {
    await limited(req, res);
    const found = await deps.pages.pdfQuote(String(req.params.token));
    if ('view' in found) return send(res, found.view, pathOf(req));
    const logo = found.quote.logo ? await deps.pages.logoBytes(found.organizationId) : undefined;
    const pdf = await quotePdf(found.quote, { logo, decision: found.decision });
    res.status(200).type('application/pdf').set('Content-Disposition', `inline; filename="quote-${found.quote.quoteNumber}.pdf"`).set('Cache-Control', 'no-store').send(pdf);
  });

  host.registry.registerPath({
    method: 'get',
    path: openApiPath(`${PAGE_PATH}/logo`),
    operationId: 'getQuotePageLogo',
    summary: "The contractor's logo, as the page shows it",
    description:
      "The workspace's logo (`PUT /api/v1/organization/logo`), served under the page's own origin so that its Content-Security-Policy (`img-src 'self'`) holds. " +
      'Only while the link shows its quote; otherwise, or when the workspace has no logo, the neutral page.',
    tags: ['customer page'],
    security: [],
    request: { params },
    responses: withStandardHeaders(pageRoute(`${PAGE_PATH}/logo`), {
      200: {
        description: 'The logo, with the type it was uploaded as',
        content: { 'image/png': { schema: z.string().meta({ format: 'binary' }), example: '<the PNG bytes>' }, 'image/jpeg': { schema: z.string().meta({ format: 'binary' }), example: '<the JPEG bytes>' } },
      },
      403: unavailable,
      ...common,
    }),
  });
  host.app.get(`${PAGE_PATH}/logo`, async (req, res) => {
    await limited(req, res);
    const found = await deps.pages.logo(String(req.params.token));
    if ('view' in found) return send(res, found.view, pathOf(req));
    res.status(200).type(found.contentType).set('Cache-Control', 'no-store').send(found.bytes);
  });

  for (const action of ['accept', 'decline'] as const) {
    const path = `${PAGE_PATH}/${action}`;
    host.registry.registerPath({
      method: 'post',
      path: openApiPath(path),
      operationId: action === 'accept' ? 'acceptQuoteOnPage' : 'declineQuoteOnPage',
      summary: action === 'accept' ? 'The customer accepts the quote by typing their name' : 'The customer declines the quote, with an optional reason',
      description:
        (action === 'accept'
          ? 'The page\'s accept form: the same approval as `POST /api/v1/quotes/{id}/approve` (one `quote.approved`, the same fan-out), as the user who sent ' +
            'the quote, with the acceptance (typed name, time, client address, user agent) recorded on the quote. '
          : 'The page\'s decline form: the quote moves to REJECTED with the reason. ') +
        'Only from this deployment\'s own pages (Origin / Sec-Fetch-Site, and the form\'s token bound to the link); a second decision, or one after the office ' +
        'decided, changes nothing (409, the page says what happened).',
      tags: ['customer page'],
      security: [],
      request: {
        params,
        body:
          action === 'accept'
            ? form(z.object({ csrf: z.string(), name: z.string().min(1).max(200) }), { csrf: QUOTE_PAGE_EXAMPLES.csrf, name: 'Morgan Lee' })
            : form(z.object({ csrf: z.string(), reason: z.string().max(2000).optional() }), { csrf: QUOTE_PAGE_EXAMPLES.csrf, reason: 'We went with a smaller window treatment.' }),
      },
      responses: withStandardHeaders(pageRoute(path), {
        200: page('Decided: the page says what the customer did', QUOTE_PAGE_EXAMPLES.decided),
        403: page("A cross-site post, or a form token not of this link: refused, nothing changed (or, the contractor's workspace being suspended, the page saying the quote is not available for now)", QUOTE_PAGE_EXAMPLES.refused),
        409: page('Already decided (by the customer or the office): nothing changed, the page says what happened', QUOTE_PAGE_EXAMPLES.decided),
        422: page('The typed name or the reason is not acceptable: the page again with the complaint beside its field', QUOTE_PAGE_EXAMPLES.open),
        400: page('The form could not be read: its body does not decode as its Content-Encoding says (nothing changed)', QUOTE_PAGE_EXAMPLES.refused),
        413: page('The form is over 16 KB (decoded), or has more than 10 fields (nothing changed)', QUOTE_PAGE_EXAMPLES.refused),
        415: page('A Content-Encoding other than gzip, deflate or br, or a charset other than UTF-8 (nothing changed)', QUOTE_PAGE_EXAMPLES.refused),
        ...common,
      }),
    });
    host.app.post(path, async (req, res) => {
      await limited(req, res);
      if (crossSite(req, deps.publicBaseUrl)) return send(res, { kind: 'refused', status: 403 }, pathOf(req));
      await new Promise<void>((resolve, reject) => readForm(req, res, (err?: unknown) => (err ? reject(err as Error) : resolve())));
      const fields = (req.body ?? {}) as unknown;
      const view = action === 'accept' ? await deps.pages.accept(String(req.params.token), fields, client(req)) : await deps.pages.decline(String(req.params.token), fields, client(req));
      send(res, view, pathOf(req));
    });
  }
  // Every answer under /q/ is a page, refusals raised before the handlers (the broad limit) included.
  host.app.use('/q', quotePageErrorPage);
}

const quotePageErrorPage: ErrorRequestHandler = (err: unknown, req, res, next) => {
  if (res.headersSent) return next(err);
  const error = asDomainError(err, req.log);
  if (error instanceof RateLimitedError) {
    res.set('Retry-After', String(error.retryAfterSeconds)).status(429).type('html').send(TOO_MANY);
    return;
  }
  // A path that names no link (one that does not even decode) is the neutral page; anything else
  // (an unreadable form, an outage) is the refusal page, with its kind's status: nothing changed.
  const view: PageView = error.kind === 'not_found' ? { kind: 'gone', status: 404 } : { kind: 'refused', status: 403 };
  res.status(ERROR_RENDERINGS[error.kind].status).type('html').send(renderPage(view, req.path));
};
