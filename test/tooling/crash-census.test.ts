import { describe, expect, it } from '@jest/globals';
import { censusTable, countPerKey, takeCensus, type ApprovedQuote, type ProviderHoldings } from '../../scripts/harness/crash-census';

/** The crash campaign's counting rules (docs/crash-campaign.md), on made-up holdings. */
const quote = (n: number): ApprovedQuote => ({ quoteId: `q${n}`, quoteNumber: 1000 + n, customerName: `C${n}`, customerEmail: `c${n}@example.test`, invoiceItems: 3 });
const exact = (quotes: ApprovedQuote[]): ProviderHoldings => ({
  stripeCustomerEmails: quotes.map((q) => q.customerEmail),
  stripeInvoiceQuoteIds: quotes.map((q) => q.quoteId),
  stripeInvoiceItemQuoteIds: quotes.flatMap((q) => [q.quoteId, q.quoteId, q.quoteId]),
  qboCustomerDisplayNames: quotes.map((q) => `${q.customerName} <${q.customerEmail}>`),
  qboInvoiceDocNumbers: quotes.map((q) => `Q-${q.quoteNumber}`),
  sfOpportunityQuoteIds: quotes.map((q) => q.quoteId),
});

describe('countPerKey', () => {
  it('counts an extra object of a key as a duplicate and a missing one as a loss, never netting one against the other', () => {
    const row = countPerKey('invoices', new Map([['a', 1], ['b', 1]]), ['a', 'a']);
    expect(row).toEqual({ what: 'invoices', expected: 2, found: 2, duplicates: 1, losses: 1 });
  });

  it('counts an object of a key nobody expected as a duplicate, and ignores objects tied to nothing', () => {
    expect(countPerKey('opportunities', new Map([['a', 1]]), ['a', 'z', undefined, null])).toEqual({ what: 'opportunities', expected: 1, found: 2, duplicates: 1, losses: 0 });
  });

  it('takes an expectation of several per key (invoice items)', () => {
    expect(countPerKey('items', new Map([['a', 3]]), ['a', 'a'])).toEqual({ what: 'items', expected: 3, found: 2, duplicates: 0, losses: 1 });
  });
});

describe('takeCensus', () => {
  const quotes = [quote(1), quote(2)];
  const events = [
    { event: 'quote.approved', subject: 'q1' },
    { event: 'work_order.dispatched', subject: 'w1' },
  ];

  it('finds nothing wrong when every quote has its objects once and every change one event id, however often delivered', () => {
    const deliveries = [
      { eventId: 'e1', event: 'quote.approved', subject: 'q1' },
      { eventId: 'e2', event: 'work_order.dispatched', subject: 'w1' },
      { eventId: 'e2', event: 'work_order.dispatched', subject: 'w1' },
    ];
    const census = takeCensus(quotes, exact(quotes), events, deliveries);
    expect(census).toMatchObject({ duplicates: 0, losses: 0, redeliveries: 1 });
    expect(census.rows.map((r) => [r.what, r.expected, r.found])).toEqual([
      ['payments customers', 2, 2],
      ['payments invoices', 2, 2],
      ['payments invoice items', 6, 6],
      ['accounting customers', 2, 2],
      ['accounting invoices', 2, 2],
      ['CRM opportunities', 2, 2],
      ['event ids quote.approved', 1, 1],
      ['event ids work_order.dispatched', 1, 1],
    ]);
  });

  it('counts a second invoice of a quote, a second event id for one change, and a missing delivery', () => {
    const holdings = { ...exact(quotes), stripeInvoiceQuoteIds: ['q1', 'q1', 'q2'] };
    const deliveries = [
      { eventId: 'e1', event: 'quote.approved', subject: 'q1' },
      { eventId: 'e9', event: 'quote.approved', subject: 'q1' },
    ];
    const census = takeCensus(quotes, holdings, events, deliveries);
    expect(census).toMatchObject({ duplicates: 2, losses: 1, redeliveries: 0 });
    expect(census.rows.find((r) => r.what === 'payments invoices')).toMatchObject({ duplicates: 1, losses: 0 });
    expect(census.rows.find((r) => r.what === 'event ids quote.approved')).toMatchObject({ expected: 1, found: 2, duplicates: 1 });
    expect(census.rows.find((r) => r.what === 'event ids work_order.dispatched')).toMatchObject({ expected: 1, found: 0, losses: 1 });
    expect(censusTable(census).at(-2)).toMatch(/^total\s+2\s+1$/);
  });

  it('counts an event of a kind the run never made as a duplicate', () => {
    const census = takeCensus([], exact([]), [], [{ eventId: 'e1', event: 'work_order.cancelled', subject: 'w7' }]);
    expect(census.rows.at(-1)).toEqual({ what: 'event ids work_order.cancelled', expected: 0, found: 1, duplicates: 1, losses: 0 });
    expect(census).toMatchObject({ duplicates: 1, losses: 0 });
  });
});
