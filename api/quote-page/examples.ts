import { customerFigures } from '../../domain/quotes/customer-page';
import { renderPage, TOO_MANY } from './page';

/** The page's OpenAPI examples, rendered by the page itself from one sample quote. */
const token = '7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS';
const csrf = 'dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU';
const action = `/q/${token}`;
const quote = {
  contractor: 'Northern Shades Ltd.',
  quoteNumber: 1042,
  customerName: 'Morgan Lee',
  figures: customerFigures(
    [
      { reference: 'Living room', quantity: 2, width_inches: 36, drop_inches: 60, price_cents: 64_200 },
      { reference: 'Bedroom', quantity: 1, width_inches: 48, drop_inches: 72, price_cents: 41_850 },
    ],
    null,
  ),
  validUntil: new Date('2026-12-20T00:00:00.000Z'),
};

export const QUOTE_PAGE_EXAMPLES = {
  token,
  csrf,
  open: renderPage({ kind: 'open', status: 200, quote, csrf }, action),
  decided: renderPage(
    { kind: 'decided', status: 200, contractor: quote.contractor, quoteNumber: quote.quoteNumber, decision: { kind: 'accepted_by_customer', name: 'Morgan Lee', at: new Date('2026-11-21T16:45:00.000Z') }, justNow: true },
    action,
  ),
  gone: renderPage({ kind: 'gone', status: 410 }, action),
  refused: renderPage({ kind: 'refused', status: 403 }, action),
  unavailable: renderPage({ kind: 'unavailable', status: 403 }, action),
  tooMany: TOO_MANY,
};
