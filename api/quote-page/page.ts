import { createElement as h, Fragment, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { formatCad, type Decision, type LineChoices } from '../../domain/quotes/customer-page';
import { taxLineLabel } from '../../domain/tax/quote-tax';
import type { OpenQuote, PageView } from './page-service';

/**
 * D24's page, rendered on the server with React (renderToStaticMarkup: escaping is React's, no
 * client script at all). One stylesheet of this app (`/q/assets/quote-page.css`), nothing else
 * loaded: the page's Content-Security-Policy (api/http/security-headers.ts) allows no script and
 * no third-party asset. Every control has a visible label; errors are tied to their field.
 */
export const QUOTE_PAGE_STYLESHEET = '/q/assets/quote-page.css';
/** Its icon, from this app too (a browser asks for one; without it, a 404 on every visit). */
export const QUOTE_PAGE_ICON = '/q/assets/favicon.svg';

const day = (date: Date) => date.toLocaleDateString('en-CA', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
/** An instant as the acceptance record states it: the day, and the minute in UTC. */
export const instant = (date: Date) => `${day(date)} at ${date.toISOString().slice(11, 16)} UTC`;

/** The contractor's logo under the page's own origin (CSP `img-src 'self'`). */
export const logoPath = (action: string) => `${action}/logo`;

function layout(title: string, body: ReactNode): string {
  const html = h(
    'html',
    { lang: 'en' },
    h(
      'head',
      null,
      h('meta', { charSet: 'utf-8' }),
      h('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }),
      h('meta', { name: 'robots', content: 'noindex, nofollow' }),
      h('title', null, title),
      h('link', { rel: 'stylesheet', href: QUOTE_PAGE_STYLESHEET }),
      h('link', { rel: 'icon', type: 'image/svg+xml', href: QUOTE_PAGE_ICON }),
    ),
    h('body', null, h('main', { className: 'page' }, body)),
  );
  return `<!doctype html>${renderToStaticMarkup(html)}`;
}

function problemFor(view: Extract<PageView, { kind: 'open' }>, form: 'accept' | 'decline') {
  return view.problem?.form === form ? view.problem : undefined;
}

function acceptForm(view: Extract<PageView, { kind: 'open' }>, action: string): ReactNode {
  const problem = problemFor(view, 'accept');
  return h(
    'form',
    { method: 'post', action: `${action}/accept`, className: 'card accept', 'aria-labelledby': 'accept-heading' },
    h('h2', { id: 'accept-heading' }, 'Accept this quote'),
    h('input', { type: 'hidden', name: 'csrf', value: view.csrf }),
    h('label', { htmlFor: 'accept-name' }, 'Type your full name to accept'),
    h('input', {
      id: 'accept-name',
      name: 'name',
      type: 'text',
      required: true,
      maxLength: 200,
      autoComplete: 'name',
      defaultValue: problem?.value ?? '',
      'aria-invalid': problem ? 'true' : undefined,
      'aria-describedby': problem ? 'accept-error' : 'accept-help',
    }),
    problem ? h('p', { id: 'accept-error', className: 'error', role: 'alert' }, problem.message) : h('p', { id: 'accept-help', className: 'help' }, 'Typing your name and pressing Accept is your signature.'),
    h('button', { type: 'submit', className: 'primary', id: 'accept-button' }, `Accept quote ${view.quote.quoteNumber}`),
  );
}

function declineForm(view: Extract<PageView, { kind: 'open' }>, action: string): ReactNode {
  const problem = problemFor(view, 'decline');
  return h(
    'form',
    { method: 'post', action: `${action}/decline`, className: 'card decline', 'aria-labelledby': 'decline-heading' },
    h('h2', { id: 'decline-heading' }, 'Decline this quote'),
    h('input', { type: 'hidden', name: 'csrf', value: view.csrf }),
    h('label', { htmlFor: 'decline-reason' }, 'Reason (optional)'),
    h('textarea', {
      id: 'decline-reason',
      name: 'reason',
      rows: 3,
      maxLength: 2000,
      defaultValue: problem?.value ?? '',
      'aria-invalid': problem ? 'true' : undefined,
      'aria-describedby': problem ? 'decline-error' : undefined,
    }),
    problem ? h('p', { id: 'decline-error', className: 'error', role: 'alert' }, problem.message) : null,
    h('button', { type: 'submit', className: 'secondary' }, 'Decline'),
  );
}

/** What was chosen for a line, each choice on its own line under the line's description. */
function choicesList(choices: LineChoices): ReactNode {
  const item = (label: string, value: string) => h('li', { key: label }, h('span', { className: 'choice' }, `${label}: `), value);
  return h(
    'ul',
    { className: 'choices' },
    item('Fabric', choices.fabric ?? 'not recorded'),
    item('Hardware', choices.hardware ?? 'not recorded'),
    item('Motor', choices.motor ?? 'none (manual)'),
    item('Control side', choices.controlSide ?? 'not specified'),
    item('Cassette', choices.cassette ?? 'none'),
  );
}

function linesTable(quote: OpenQuote): ReactNode {
  const { figures } = quote;
  return h(
    'table',
    { className: 'lines' },
    h('caption', null, 'What the quote includes'),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Description'), h('th', { scope: 'col', className: 'amount' }, 'Price'))),
    h(
      'tbody',
      null,
      ...figures.lines.map((line, index) =>
        h('tr', { key: `line-${index}` }, h('td', null, h('span', { className: 'line' }, line.description), choicesList(line.choices)), h('td', { className: 'amount' }, formatCad(line.amountCents))),
      ),
    ),
    h(
      'tfoot',
      null,
      h('tr', null, h('th', { scope: 'row' }, 'Subtotal'), h('td', { className: 'amount' }, formatCad(figures.subtotalCents))),
      ...figures.tax.lines.map((line) => h('tr', { key: line.code }, h('th', { scope: 'row' }, taxLineLabel(line)), h('td', { className: 'amount' }, formatCad(line.amount_cents)))),
      h('tr', { className: 'total' }, h('th', { scope: 'row' }, 'Total'), h('td', { className: 'amount', 'data-total-cents': figures.totalCents }, formatCad(figures.totalCents))),
    ),
  );
}

function header(quote: { contractor: string; quoteNumber: number; logo?: boolean }, action: string): ReactNode {
  return h(
    'header',
    null,
    quote.logo ? h('img', { className: 'logo', src: logoPath(action), alt: `${quote.contractor} logo` }) : null,
    h('p', { className: 'contractor' }, quote.contractor),
    h('h1', null, `Quote ${quote.quoteNumber}`),
  );
}

/** Who sent the quote and on what terms: the contractor's address and phone, the issue date, the validity, the terms. */
function aboutQuote(quote: OpenQuote): ReactNode {
  const address = quote.contractorAddress?.split(/\r?\n/).filter((part) => part.trim() !== '') ?? [];
  return h(
    'footer',
    { className: 'about card' },
    h('h2', null, `About this quote`),
    h(
      'dl',
      { className: 'facts' },
      h('div', null, h('dt', null, 'From'), h('dd', { id: 'contractor' }, quote.contractor, ...address.map((part, i) => h(Fragment, { key: `address-${i}` }, h('br'), part)))),
      quote.contractorPhone ? h('div', null, h('dt', null, 'Phone'), h('dd', { id: 'contractor-phone' }, h('a', { href: `tel:${quote.contractorPhone.replace(/[^0-9+]/g, '')}` }, quote.contractorPhone))) : null,
      h('div', null, h('dt', null, 'Issued'), h('dd', { id: 'issued' }, h('time', { dateTime: quote.issuedAt.toISOString() }, day(quote.issuedAt)))),
      h('div', null, h('dt', null, 'Valid until'), h('dd', null, h('time', { dateTime: quote.validUntil.toISOString() }, day(quote.validUntil)))),
    ),
    h('h3', null, 'Terms'),
    h('p', { className: 'terms', id: 'terms' }, quote.terms),
  );
}

function openPage(view: Extract<PageView, { kind: 'open' }>, action: string): string {
  const { quote } = view;
  return layout(
    `Quote ${quote.quoteNumber} from ${quote.contractor}`,
    h(
      Fragment,
      null,
      header(quote, action),
      h(
        'dl',
        { className: 'summary' },
        h('div', null, h('dt', null, 'Total, tax included'), h('dd', { id: 'quote-total' }, formatCad(quote.figures.totalCents))),
        h('div', null, h('dt', null, 'Valid until'), h('dd', { id: 'valid-until' }, h('time', { dateTime: quote.validUntil.toISOString() }, day(quote.validUntil)))),
      ),
      acceptForm(view, action),
      linesTable(quote),
      h('p', { className: 'pdf' }, h('a', { href: `${action}/quote.pdf`, download: `quote-${quote.quoteNumber}.pdf` }, 'Download this quote as a PDF')),
      declineForm(view, action),
      aboutQuote(quote),
    ),
  );
}

function decisionText(decision: Decision, contractor: string, justNow: boolean, kept: boolean): { heading: string; detail: string } {
  switch (decision.kind) {
    case 'accepted_by_customer':
      if (kept) return { heading: 'You accepted this quote', detail: `Accepted by ${decision.name} on ${instant(decision.at)}. This is the quote as you accepted it.` };
      return {
        heading: justNow ? 'Thank you: you accepted this quote' : 'This quote was already accepted',
        detail: `Accepted by ${decision.name} on ${day(decision.at)}. ${contractor} has been told; your invoice will come by email.${justNow ? '' : ' Nothing was changed.'}`,
      };
    case 'declined_by_customer':
      if (kept) return { heading: 'You declined this quote', detail: `Declined on ${instant(decision.at)}. This is the quote as you declined it.` };
      return {
        heading: justNow ? 'You declined this quote' : 'This quote was already declined',
        detail: `Declined on ${day(decision.at)}. ${contractor} has been told.${justNow ? '' : ' Nothing was changed.'}`,
      };
    case 'decided_by_office':
      return { heading: 'This quote can no longer be answered here', detail: `${contractor} has already decided on it. Nothing was changed; contact them with any question.` };
  }
}

function decidedPage(view: Extract<PageView, { kind: 'decided' }>, action: string): string {
  const { quote } = view;
  const { heading, detail } = decisionText(view.decision, view.contractor, view.justNow, quote !== undefined);
  // The customer's own decision: its PDF is theirs to keep (until the quote's validity plus 90 days).
  const own = view.decision.kind !== 'decided_by_office';
  const pdf = own ? h('p', { className: 'pdf' }, h('a', { href: `${action}/quote.pdf`, download: `quote-${view.quoteNumber}.pdf` }, 'Download this quote as a PDF')) : null;
  return layout(
    `Quote ${view.quoteNumber} from ${view.contractor}`,
    h(
      Fragment,
      null,
      header({ contractor: view.contractor, quoteNumber: view.quoteNumber, logo: quote?.logo ?? false }, action),
      h('section', { className: 'card', role: 'status' }, h('h2', null, heading), h('p', { id: 'decision' }, detail), pdf),
      quote ? linesTable(quote) : null,
      quote ? aboutQuote(quote) : null,
    ),
  );
}

/** One neutral page for every link that does not open a quote: it says nothing of any quote. */
const GONE = layout(
  'This link does not open a quote',
  h(
    Fragment,
    null,
    h('h1', null, 'This link does not open a quote'),
    h('p', null, 'It may have expired, or been replaced by a newer link. Ask the business that sent it for a new one.'),
  ),
);

const REFUSED = layout(
  'The form could not be accepted',
  h(Fragment, null, h('h1', null, 'The form could not be accepted'), h('p', null, 'Nothing was changed. Open the link from your email again and answer from that page.')),
);

/** D22: the contractor's workspace is suspended: the quote is neither shown nor decided, and the link is kept. */
const UNAVAILABLE = layout(
  'This quote is not available right now',
  h(Fragment, null, h('h1', null, 'This quote is not available right now'), h('p', null, 'Nothing was changed. Try the link again later, or ask the business that sent it.')),
);

export const TOO_MANY = layout(
  'Too many requests',
  h(Fragment, null, h('h1', null, 'Too many requests'), h('p', null, 'Nothing was changed. Wait a minute, then open the link from your email again.')),
);

/** The page's HTML for a view; `action` is the page's own path (`/q/<token>`). */
export function renderPage(view: PageView, action: string): string {
  switch (view.kind) {
    case 'open':
      return openPage(view, action);
    case 'decided':
      return decidedPage(view, action);
    case 'gone':
      return GONE;
    case 'refused':
      return REFUSED;
    case 'unavailable':
      return UNAVAILABLE;
  }
}
