import { route, type RouteHost } from '../http/route';
import { OFFICE } from '../http/roles';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import type { QuoteService } from './quote-service';
import { ApprovedQuote, CalculateBody, CalculationResult, QuoteListQuery, QuotePage, QuoteSummary } from './schemas';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

export function quoteRoutes(host: RouteHost, deps: { quotes: QuoteService }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/quotes',
    summary: "The tenant's quotes, newest first, cursor-paginated",
    tags: ['quotes'],
    auth: 'bearer',
    roles: OFFICE,
    query: QuoteListQuery,
    responses: { 200: { description: 'A page of quotes', schema: QuotePage } },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.quotes.list(caller, query));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/quotes/calculate',
    summary: "Price a configuration from the tenant's rate card; persist it as a DRAFT quote when asked",
    tags: ['quotes'],
    auth: 'bearer',
    roles: OFFICE,
    body: CalculateBody,
    responses: {
      200: { description: 'Priced (and persisted when persist is true)', schema: CalculationResult },
      400: error('Unknown SKU or labour tier, SKU of the wrong component, or a margin below the floor without an override'),
      403: error('TECHNICIAN, or a margin override by a non-ADMIN'),
    },
    handler: async ({ res, caller, body }) => {
      res.json(await deps.quotes.calculate(caller, body));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/quotes/:id/approve',
    summary: 'Approve a DRAFT or SENT quote: emits quote.approved and fans out to the connected providers once',
    tags: ['quotes'],
    auth: 'bearer',
    roles: OFFICE,
    params: IdParams,
    responses: {
      200: { description: 'Approved', schema: ApprovedQuote },
      404: error('No such quote in the tenant'),
      409: error('Not approvable (already approved, rejected or expired)'),
    },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.quotes.approve(caller, params.id));
    },
  });

  for (const action of ['send', 'reject'] as const) {
    route(host, {
      method: 'post',
      path: `/api/v1/quotes/:id/${action}`,
      summary: action === 'send' ? 'D3: mark a DRAFT quote as sent to the customer' : 'D3: reject a DRAFT or SENT quote',
      tags: ['quotes'],
      auth: 'bearer',
      roles: OFFICE,
      params: IdParams,
      responses: {
        200: { description: 'The quote after the move', schema: QuoteSummary },
        404: error('No such quote in the tenant'),
        409: error('The quote is not in a state this action moves from'),
      },
      handler: async ({ res, caller, params }) => {
        res.json(await deps.quotes.transition(caller, params.id, action));
      },
    });
  }
}
