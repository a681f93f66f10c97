import { route, type RouteHost } from '../http/route';
import { OFFICE } from '../http/roles';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import type { QuoteService } from './quote-service';
import { sendJsonBytes } from '../versions/middleware';
import { linkNext, pageHeaders } from '../http/pagination';
import { acceptCalculateBody, ApprovedQuote, CalculateBody, CalculationResult, QuoteDetail, QuoteListQuery, QuotePage, QuoteSummary, SentQuote } from './schemas';
import { APPROVED_QUOTE_EXAMPLE, CALCULATE_EXAMPLE, CALCULATION_RESULT_EXAMPLE, QUOTE_DETAIL_EXAMPLE, QUOTE_PAGE_EXAMPLE, QUOTE_SUMMARY_EXAMPLE, SENT_QUOTE_EXAMPLE } from './examples';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

export function quoteRoutes(host: RouteHost, deps: { quotes: QuoteService }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/quotes',
    operationId: 'listQuotes',
    summary: "The tenant's quotes, newest first, cursor-paginated; by number or by text",
    description:
      'Pass `next_cursor` back as `cursor` for the next page; null means the last page (the `Link` header rel="next" says the same, as on every list). ' +
      '`number` finds the quote of that number; `q` finds text in the customer’s name or the reference (Q-<number>). TECHNICIAN is refused (quotes carry cost and margin).',
    tags: ['quotes'],
    auth: 'bearer',
    roles: OFFICE,
    query: QuoteListQuery,
    responses: { 200: { description: 'A page of quotes', schema: QuotePage, example: QUOTE_PAGE_EXAMPLE, headers: pageHeaders(`https://shades.example.test/api/v1/quotes?limit=25&cursor=${QUOTE_PAGE_EXAMPLE.next_cursor}`) } },
    handler: async ({ req, res, caller, query }) => {
      const page = await deps.quotes.list(caller, query);
      linkNext(req, res, page.next_cursor);
      res.json(page);
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/quotes/:id',
    operationId: 'getQuote',
    summary: 'One quote with its lines and its calculation',
    description:
      'The QuoteSummary fields, the customer’s email, when the quote was sent, approved, rejected, expired or paid, each line as it was asked for ' +
      '(dimensions and SKU codes, with its cost and price), and the calculation as calculate answered it. TECHNICIAN is refused (cost and margin).',
    tags: ['quotes'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    responses: {
      200: { description: 'The quote', schema: QuoteDetail, example: QUOTE_DETAIL_EXAMPLE },
      404: error('No such quote in the tenant'),
    },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.quotes.get(caller, params.id));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/quotes/calculate',
    operationId: 'calculateQuote',
    summary: "Price a configuration from the tenant's rate card; persist it as a DRAFT quote when asked",
    description:
      'Send dimensions and SKU codes only: every figure comes from the tenant’s current rate card (docs/pricing.md has the formulas). ' +
      'Without `targetMargin` the margin floor applies; below the floor needs `marginOverride.reason` and an ADMIN. ' +
      '`persist: true` keeps it as a DRAFT quote with the next quote number.',
    tags: ['quotes'],
    auth: 'bearer',
    roles: OFFICE,
    body: CalculateBody,
    bodyAcceptor: acceptCalculateBody,
    bodyExample: CALCULATE_EXAMPLE,
    responses: {
      200: { description: 'Priced (and persisted when persist is true)', schema: CalculationResult, example: CALCULATION_RESULT_EXAMPLE },
      400: error('Unknown SKU or labour tier, SKU of the wrong component, or a margin below the floor without an override'),
      403: error('TECHNICIAN, or a margin override by a non-ADMIN'),
    },
    handler: async ({ req, res, caller, body }) => {
      sendJsonBytes(req, res, await deps.quotes.calculate(caller, body));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/quotes/:id/approve',
    operationId: 'approveQuote',
    summary: 'Approve a DRAFT or SENT quote: emits quote.approved and fans out to the connected providers once',
    description:
      'Freezes the calculation (invoices use it, never a recalculation), emits `quote.approved` after the commit, ' +
      'and starts the provider fan-out (payments invoice, accounting, CRM); `GET /api/v1/integrations/syncs` shows each leg. A second approve is a 409 that changes nothing.',
    tags: ['quotes'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    responses: {
      200: { description: 'Approved', schema: ApprovedQuote, example: APPROVED_QUOTE_EXAMPLE },
      404: error('No such quote in the tenant'),
      409: error('Not approvable (already approved, rejected or expired)'),
    },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.quotes.approve(caller, params.id));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/quotes/:id/send',
    operationId: 'sendQuote',
    summary: "Send a DRAFT quote to its customer (or a SENT one again) with a link to the quote's page",
    description:
      'DRAFT to SENT; a SENT quote can still be approved or rejected. Each send makes a new link to the quote\'s page, ' +
      '`<PUBLIC_BASE_URL>/q/<token>`, where the customer reads the quote, downloads its PDF, and accepts or declines it; the link is emailed ' +
      'to the customer when they have an email, and answered as `page_url` either way. Sending a SENT quote again sends a new link and voids the ' +
      'old one. The link stops working when the quote leaves SENT or when it expires (the workspace’s `quote_validity_days`). Any other state is a 409.',
    tags: ['quotes'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    responses: {
      200: { description: 'The quote after the send, with its page link', schema: SentQuote, example: SENT_QUOTE_EXAMPLE },
      404: error('No such quote in the tenant'),
      409: error('The quote is approved, rejected or expired'),
    },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.quotes.send(caller, params.id));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/quotes/:id/reject',
    operationId: 'rejectQuote',
    summary: 'Reject a DRAFT or SENT quote',
    description: 'DRAFT or SENT to REJECTED (final); the link of a SENT quote\'s page stops working. Any other state is a 409.',
    tags: ['quotes'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    responses: {
      200: { description: 'The quote after the move', schema: QuoteSummary, example: { ...QUOTE_SUMMARY_EXAMPLE, status: 'REJECTED' } },
      404: error('No such quote in the tenant'),
      409: error('The quote is not in a state this action moves from'),
    },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.quotes.transition(caller, params.id, 'reject'));
    },
  });
}
