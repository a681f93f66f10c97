import { customerFigures } from '../../domain/quotes/customer-page';
import { DEFAULT_QUOTE_TERMS } from '../../domain/organizations/settings';
import { renderPage, TOO_MANY } from './page';

/** The page's OpenAPI examples, rendered by the page itself from one sample quote. */
const token = '7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS';
const csrf = 'dGhlLWZvcm0tdG9rZW4tb2YtdGhpcy1saW5rLWV4YW1wbGU';
const action = `/q/${token}`;
const component = (kind: string, sku: string, description: string) => ({ component: kind, sku_code: sku, description });
const quote = {
  contractor: 'Northern Shades Ltd.',
  contractorAddress: '120 King Street West\nToronto, ON M5H 1J9',
  contractorPhone: '+1 416 555 0142',
  logo: false,
  quoteNumber: 1042,
  customerName: 'Morgan Lee',
  figures: customerFigures(
    [
      {
        reference: 'Living room', quantity: 2, width_inches: 36, drop_inches: 60, price_cents: 64_200,
        components: [component('fabric', 'FAB-SCREEN-3', 'Solar screen 3% openness'), component('hardware', 'HW-ROLLER-STD', 'Standard roller hardware'), component('motor', 'MTR-BATTERY', 'Battery motor'), component('trim', 'TRIM-CASSETTE', 'Aluminium cassette valance')],
      },
      {
        reference: 'Bedroom', quantity: 1, width_inches: 48, drop_inches: 72, price_cents: 41_850,
        components: [component('fabric', 'FAB-BLACKOUT', 'Blackout fabric'), component('hardware', 'HW-ROLLER-HD', 'Heavy-duty roller hardware')],
      },
    ],
    null,
    ['left', 'right'],
  ),
  issuedAt: new Date('2026-11-20T15:00:00.000Z'),
  validUntil: new Date('2026-12-20T00:00:00.000Z'),
  terms: DEFAULT_QUOTE_TERMS,
};

export const QUOTE_PAGE_EXAMPLES = {
  token,
  csrf,
  open: renderPage({ kind: 'open', status: 200, quote, csrf }, action),
  decided: renderPage(
    { kind: 'decided', status: 200, contractor: quote.contractor, quoteNumber: quote.quoteNumber, decision: { kind: 'accepted_by_customer', name: 'Morgan Lee', at: new Date('2026-11-21T16:45:00.000Z') }, justNow: true },
    action,
  ),
  gone: renderPage({ kind: 'gone', status: 404 }, action),
  refused: renderPage({ kind: 'refused', status: 403 }, action),
  unavailable: renderPage({ kind: 'unavailable', status: 403 }, action),
  tooMany: TOO_MANY,
};
