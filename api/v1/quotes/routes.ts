import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { route, type RouteHost } from '../../http/route';
import { OFFICE } from '../../http/roles';
import { IdParams } from '../../http/common-schemas';
import { inTenant } from '../../../db/tenant-scope';
import { listProducts, PRODUCT_KEYSET } from '../../../db/catalogue/products';
import { addCustomer, CUSTOMER_KEYSET, customerPage, customerRecord } from '../../../db/quotes/customer-directory';
import { pageOf } from '../../../db/cursor';
import { v1CursorPosition, v1PageOf } from '../page';
import type { RateCardRepository } from '../../../db/rate-cards/repository';
import { PROBLEM_CONTENT_TYPE, ProblemSchema } from '../problem';
import { IDEMPOTENCY_HEADER, type Answer } from '../../http/idempotency';
import type { QuoteOutcome, V1QuoteService } from './v1-quote-service';
import { Customer, CustomerBody, CustomerListQuery, CustomerPage, IdempotencyHeaders, PageQuery, PricebookList, ProductPage, QuoteBody, V1Quote, V1QuoteListQuery, V1QuotePage } from './schemas';
import { V1_CUSTOMER_EXAMPLE, V1_PRICEBOOKS_EXAMPLE, V1_PRODUCT_PAGE_EXAMPLE, V1_QUOTE_EXAMPLE, V1_QUOTE_REQUEST_EXAMPLE } from './examples';

/** The quote operations' own response header (route() adds the ones every answer carries: api/http/response-headers.ts). */
const QuoteHeaders = z.object({
  'X-Engine-Latency-Ms': z.string().max(32).meta({ description: 'The pricing engine’s own time for this quote, milliseconds', example: '1.284' }),
});

const problem = (description: string) => ({ description, schema: ProblemSchema, contentType: PROBLEM_CONTENT_TYPE });

const engineHeader = (ms: number) => ({ 'X-Engine-Latency-Ms': ms.toFixed(3) });
const created = (outcome: QuoteOutcome): Answer => ({ status: 201, body: outcome.quote, headers: engineHeader(outcome.engineMs) });

/** D14: the alternate `/v1/quotes` and the lists a client fills a quote in from (ADMIN, SALES). */
export function v1QuoteRoutes(host: RouteHost, deps: { em: EntityManager; quotes: V1QuoteService; rateCards: RateCardRepository }): void {
  route(host, {
    method: 'post',
    path: '/v1/quotes',
    operationId: 'createV1Quote',
    summary: 'Price a configuration and keep it as a DRAFT quote',
    description:
      'Each line names a product of the catalogue; the same engine as `/api/v1/quotes/calculate` prices it from the tenant’s current rate card, ' +
      'at the margin floor, and the tax lines come from the region’s GST/HST/PST/QST rates. The quote is the same record as `/api/v1/quotes` lists and approves. ' +
      'Records `quote.created`. With an `Idempotency-Key` the first answer is answered again for 24 hours.',
    tags: ['v1 quotes'],
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    idempotency: IDEMPOTENCY_HEADER,
    headers: IdempotencyHeaders,
    body: QuoteBody,
    bodyExample: V1_QUOTE_REQUEST_EXAMPLE,
    responses: {
      201: { description: 'The quote, revision 1', schema: V1Quote, example: V1_QUOTE_EXAMPLE, headers: QuoteHeaders },
      409: problem('idempotency-key-in-use: the first request with this key is still running'),
    },
    handler: async ({ caller, body, keep }) => created(await deps.quotes.create(caller, body, (tx, outcome) => keep(tx, created(outcome)))),
  });

  route(host, {
    method: 'get',
    path: '/v1/quotes',
    operationId: 'listV1Quotes',
    summary: 'The tenant’s quotes, newest first; by reference, status or text',
    description:
      'Every quote of the workspace, whichever interface made it, each as `GET /v1/quotes/{id}` answers it. `reference=Q-12` finds quote 12; `q` finds text in the customer’s name or the reference. ' +
      'Pass `next_cursor` back as `cursor` while `has_more` is true.',
    tags: ['v1 quotes'],
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    query: V1QuoteListQuery,
    responses: {
      200: { description: 'A page of quotes', schema: V1QuotePage, example: { data: [V1_QUOTE_EXAMPLE], next_cursor: null, has_more: false } },
      400: problem('A cursor this list did not hand out'),
      422: problem('A malformed reference or limit'),
    },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.quotes.list(caller, query));
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/quotes/:id',
    operationId: 'getV1Quote',
    summary: 'A quote at its latest revision, whichever interface made it',
    description:
      'A quote is one record: this reads a quote made through `/v1/quotes` or priced through `/api/v1/quotes/calculate`, with its status now (it may have been sent or approved through `/api/`). ' +
      'A quote priced through `/api/` names component SKUs rather than catalogue products, so its lines’ `sku` and `controlSide` are null.',
    tags: ['v1 quotes'],
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    params: IdParams,
    responses: { 200: { description: 'The quote', schema: V1Quote, example: V1_QUOTE_EXAMPLE }, 404: problem('No such quote in the tenant') },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.quotes.get(caller, params.id));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/quotes/:id/revisions',
    operationId: 'reviseV1Quote',
    summary: 'A new revision of a DRAFT or SENT quote',
    description: 'The quote priced anew from this body as revision n+1, with its own `quote.created`. A quote in any other status is a 409.',
    tags: ['v1 quotes'],
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    idempotency: IDEMPOTENCY_HEADER,
    headers: IdempotencyHeaders,
    params: IdParams,
    body: QuoteBody,
    bodyExample: V1_QUOTE_REQUEST_EXAMPLE,
    responses: {
      201: { description: 'The quote at its new revision', schema: V1Quote, example: { ...V1_QUOTE_EXAMPLE, revision: 2 }, headers: QuoteHeaders },
      404: problem('No such quote in the tenant'),
      409: problem('Not revisable (approved, rejected or expired), or idempotency-key-in-use'),
    },
    handler: async ({ caller, params, body, keep }) => created(await deps.quotes.revise(caller, params.id, body, (tx, outcome) => keep(tx, created(outcome)))),
  });

  route(host, {
    method: 'get',
    path: '/v1/products',
    operationId: 'listV1Products',
    summary: 'The catalogue’s products with their component SKUs',
    description: 'A product bundles a fabric, a hardware and optionally a trim SKU of the rate card. Pass `next_cursor` back as `cursor` while `has_more` is true.',
    tags: ['v1 quotes'],
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    query: PageQuery,
    responses: { 200: { description: 'A page of products', schema: ProductPage, example: V1_PRODUCT_PAGE_EXAMPLE } },
    handler: async ({ res, caller, query }) => {
      const after = v1CursorPosition(PRODUCT_KEYSET, query.cursor);
      const page = await inTenant(deps.em, caller.organizationId, (tx) => listProducts(tx, { limit: query.limit, afterSku: after?.[0] }));
      res.json(v1PageOf(page, (p) => ({ id: p.id, sku: p.sku, name: p.name, components: { fabricSku: p.fabricSkuCode, hardwareSku: p.hardwareSkuCode, trimSku: p.trimSkuCode } })));
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/customers',
    operationId: 'listV1Customers',
    summary: 'The tenant’s customers, oldest first; by text',
    description: '`q` finds text in the name or the email. Pass `next_cursor` back as `cursor` while `has_more` is true.',
    tags: ['v1 quotes'],
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    query: CustomerListQuery,
    responses: { 200: { description: 'A page of customers', schema: CustomerPage, example: { data: [V1_CUSTOMER_EXAMPLE], next_cursor: null, has_more: false } } },
    handler: async ({ res, caller, query }) => {
      const after = v1CursorPosition(CUSTOMER_KEYSET, query.cursor);
      const rows = await inTenant(deps.em, caller.organizationId, (tx) => customerPage(tx, { order: 'oldest', after, limit: query.limit, q: query.q }));
      res.json(v1PageOf(pageOf(rows, query.limit, CUSTOMER_KEYSET), customerRecord));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/customers',
    operationId: 'createV1Customer',
    summary: 'Add a customer',
    description: 'A customer with an email is one customer per tenant: posting an email the tenant has answers that customer (200) instead of a new one (201).',
    tags: ['v1 quotes'],
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    idempotency: IDEMPOTENCY_HEADER,
    headers: IdempotencyHeaders,
    body: CustomerBody,
    bodyExample: { name: 'Jordan Rivera', email: 'jordan@example.test' },
    responses: {
      201: { description: 'Added', schema: Customer, example: V1_CUSTOMER_EXAMPLE },
      200: { description: 'The tenant’s customer of that email', schema: Customer, example: V1_CUSTOMER_EXAMPLE },
    },
    handler: ({ caller, body, keep }) =>
      inTenant(deps.em, caller.organizationId, async (tx) => {
        const added = await addCustomer(tx, body);
        const answer: Answer = { status: added.created ? 201 : 200, body: added.customer };
        await keep(tx, answer);
        return answer;
      }),
  });

  route(host, {
    method: 'get',
    path: '/v1/pricebooks',
    operationId: 'listV1Pricebooks',
    summary: 'The tenant’s rate card and its current revision',
    description: 'One price book per tenant: its id is what a quote names as `pricebookId`, its `revision` what prices a quote made now.',
    tags: ['v1 quotes'],
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    responses: { 200: { description: 'The price books', schema: PricebookList, example: V1_PRICEBOOKS_EXAMPLE } },
    handler: async ({ res, caller }) => {
      const card = await deps.rateCards.currentOf(deps.em, caller.organizationId);
      res.json({ data: card ? [{ id: caller.organizationId, revision: new Date(card.snapshot.revision).toISOString(), currency: 'CAD' }] : [] });
    },
  });
}
