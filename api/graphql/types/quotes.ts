import { GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import { QUOTE_STATUSES, type QuoteStatus } from '../../../domain/quotes/quote-status';
import { QUOTE_KEYSET, quotePage, type QuoteLineRecord, type QuoteRecord, type QuoteRevisionRecord } from '../../../db/quotes/quote-list';
import { CUSTOMER_KEYSET, customerPage, type CustomerRow } from '../../../db/quotes/customer-directory';
import { pageOf } from '../../../db/cursor';
import { CONNECTION_SIZE, connectionArgs, connectionCost, connectionOf, positionOf } from '../connection';
import { costs } from '../cost';
import { createQuote, type CreateQuotePayload } from '../create-quote';
import { POINTS_PER_REQUEST } from '../throttle';
import { iso } from '../../../domain/timestamps';
import { Cents, DateTime, Decimal, isUuid, listOf, nonNull, requireOffice, sized, sizeArg, type Context } from './common';
import { lateTypes } from './late-types';
import { Person } from './people';

/** Quotes and customers (ADMIN and SALES: they carry cost and margin), and D14's createQuote. */

const QuoteStatusEnum = new GraphQLEnumType({ name: 'QuoteStatus', values: Object.fromEntries(QUOTE_STATUSES.map((s) => [s, { value: s }])) });

const QuoteLine = new GraphQLObjectType<QuoteLineRecord, Context>({
  name: 'QuoteLine',
  description: 'One line as it was asked for, with its cost and price.',
  fields: {
    position: { type: nonNull(GraphQLInt) },
    reference: { type: GraphQLString },
    widthInches: { type: nonNull(GraphQLFloat), resolve: (l) => Number(l.width_inches) },
    dropInches: { type: nonNull(GraphQLFloat), resolve: (l) => Number(l.drop_inches) },
    quantity: { type: nonNull(GraphQLInt) },
    fabricSkuCode: { type: nonNull(GraphQLString), resolve: (l) => l.fabric_sku_code },
    hardwareSkuCode: { type: nonNull(GraphQLString), resolve: (l) => l.hardware_sku_code },
    motorSkuCode: { type: GraphQLString, resolve: (l) => l.motor_sku_code },
    trimSkuCode: { type: GraphQLString, resolve: (l) => l.trim_sku_code },
    costCents: { type: nonNull(Cents), resolve: (l) => l.cost_cents },
    priceCents: { type: nonNull(Cents), resolve: (l) => l.price_cents },
    deduction: {
      type: GraphQLFloat,
      description: 'Since 2026-07-01: inches the tube is cut shorter than the width, a scalar as `/v1/quotes` answers it; null for a line without a cut list.',
      resolve: (l) => (l.deduction_inches === null ? null : Number(l.deduction_inches)),
    },
  },
});

const QuoteRevision = new GraphQLObjectType<QuoteRevisionRecord, Context>({
  name: 'QuoteRevision',
  description: 'One persisted revision of a quote (POST /v1/quotes makes revision 1, each POST /v1/quotes/{id}/revisions the next).',
  fields: {
    revision: { type: nonNull(GraphQLInt) },
    createdAt: { type: nonNull(DateTime), resolve: (r) => iso(r.created_at) },
    createdBy: { type: Person, resolve: (r, _args, ctx) => (r.created_by_user_id ? ctx.loaders.person.load(r.created_by_user_id) : null) },
    pricebookRevision: { type: nonNull(DateTime), description: 'The rate-card revision that priced it.', resolve: (r) => iso(r.pricebook_revision) },
  },
});

// Declared before use by the thunks below (the two types refer to each other).
// eslint-disable-next-line prefer-const
let Customer: GraphQLObjectType<CustomerRow, Context>;

export const Quote: GraphQLObjectType<QuoteRecord, Context> = new GraphQLObjectType<QuoteRecord, Context>({
  name: 'Quote',
  description: 'A quote of the workspace (ADMIN and SALES).',
  fields: (): GraphQLFieldConfigMap<QuoteRecord, Context> => ({
    id: { type: nonNull(GraphQLID) },
    number: { type: nonNull(GraphQLInt), resolve: (q) => q.quote_number },
    reference: { type: nonNull(GraphQLString), description: 'The proposal reference, `Q-<number>`.', resolve: (q) => `Q-${q.quote_number}` },
    status: { type: nonNull(QuoteStatusEnum) },
    revision: { type: nonNull(GraphQLInt), description: 'The revision the quote is at (1 until revised).' },
    taxRegion: { type: GraphQLString, description: 'The province or territory it was priced for (null for quotes made by /api/v1/quotes/calculate).', resolve: (q) => q.tax_region },
    laborTierCode: { type: nonNull(GraphQLString), resolve: (q) => q.labor_tier_code },
    totalAmountCents: { type: nonNull(Cents), resolve: (q) => q.total_amount_cents },
    totalCostCents: { type: nonNull(Cents), resolve: (q) => q.total_cost_cents },
    marginPercent: { type: nonNull(Decimal), resolve: (q) => q.margin_percent },
    appliedMargin: { type: nonNull(Decimal), resolve: (q) => q.applied_margin },
    createdAt: { type: nonNull(DateTime), resolve: (q) => iso(q.created_at) },
    sentAt: { type: DateTime, resolve: (q) => iso(q.sent_at) },
    approvedAt: { type: DateTime, resolve: (q) => iso(q.approved_at) },
    rejectedAt: { type: DateTime, resolve: (q) => iso(q.rejected_at) },
    expiredAt: { type: DateTime, resolve: (q) => iso(q.expired_at) },
    paidAt: { type: DateTime, resolve: (q) => iso(q.paid_at) },
    customer: { type: Customer, resolve: (q, _args, ctx) => (q.customer_id ? ctx.loaders.customer.load(q.customer_id) : null) },
    createdBy: { type: Person, resolve: (q, _args, ctx) => (q.created_by_user_id ? ctx.loaders.person.load(q.created_by_user_id) : null) },
    lines: {
      type: listOf(QuoteLine),
      description: 'The lines in order (a quote has at most 200).',
      ...sized(50, 200),
      resolve: (q, args: { first?: number | null }, ctx) => ctx.loaders.linesOfQuote(sizeArg(args, 50, 200, 'lines')).load(q.id),
    },
    revisions: {
      type: listOf(QuoteRevision),
      description: 'Its revisions, oldest first (none for quotes made by /api/v1/quotes/calculate).',
      ...sized(10, 50),
      resolve: (q, args: { first?: number | null }, ctx) => ctx.loaders.revisionsOfQuote(sizeArg(args, 10, 50, 'revisions')).load(q.id),
    },
    workOrders: {
      type: listOf(lateTypes.WorkOrder),
      description: 'Work orders made from this quote, oldest first.',
      ...sized(10, 50),
      resolve: (q, args: { first?: number | null }, ctx) => ctx.loaders.workOrdersOfQuote(sizeArg(args, 10, 50, 'workOrders')).load(q.id),
    },
  }),
});

Customer = new GraphQLObjectType<CustomerRow, Context>({
  name: 'Customer',
  description: 'A customer of the workspace (ADMIN and SALES).',
  fields: () => ({
    id: { type: nonNull(GraphQLID) },
    name: { type: nonNull(GraphQLString) },
    email: { type: GraphQLString },
    createdAt: { type: nonNull(DateTime), resolve: (c) => iso(c.created_at) },
    quotes: {
      type: listOf(Quote),
      description: "The customer's quotes, newest first.",
      ...sized(10, 50),
      resolve: (c, args: { first?: number | null }, ctx) => ctx.loaders.quotesOfCustomer(sizeArg(args, 10, 50, 'quotes')).load(c.id),
    },
  }),
});

const QuoteLineConfigurationInput = new GraphQLInputObjectType({
  name: 'QuoteLineConfigurationInput',
  fields: {
    finishedWidthIn: { type: nonNull(GraphQLFloat) },
    finishedHeightIn: { type: nonNull(GraphQLFloat) },
    controlSide: { type: nonNull(GraphQLString), description: '`left` or `right`.' },
    motorised: { type: GraphQLBoolean },
    motorSku: { type: GraphQLString, description: 'Required when motorised.' },
  },
});

const CreateQuoteInput = new GraphQLInputObjectType({
  name: 'CreateQuoteInput',
  description: 'The body of POST /v1/quotes; the same rules apply.',
  fields: {
    customerId: { type: nonNull(GraphQLID) },
    currency: { type: nonNull(GraphQLString), description: 'CAD.' },
    taxRegion: { type: nonNull(GraphQLString), description: 'A Canadian province or territory code, e.g. CA-ON.' },
    pricebookId: { type: nonNull(GraphQLID) },
    laborTierCode: { type: GraphQLString },
    lines: {
      type: listOf(
        new GraphQLInputObjectType({
          name: 'CreateQuoteLineInput',
          fields: { sku: { type: nonNull(GraphQLString), description: 'A product of the catalogue.' }, quantity: { type: nonNull(GraphQLInt) }, configuration: { type: nonNull(QuoteLineConfigurationInput) } },
        }),
      ),
    },
  },
});

const CreateQuotePayloadType = new GraphQLObjectType<CreateQuotePayload, Context>({
  name: 'CreateQuotePayload',
  fields: {
    quote: { type: nonNull(Quote) },
    replayed: { type: nonNull(GraphQLBoolean), description: 'True when the idempotency key had made this quote already: nothing new was made.' },
  },
});

const QuoteConnection = connectionOf(Quote);
const CustomerConnection = connectionOf(Customer);

export const quoteQueries: GraphQLFieldConfigMap<unknown, Context> = {
  quotes: {
    type: nonNull(QuoteConnection),
    description: 'Quotes, newest first (ADMIN, SALES).',
    args: connectionArgs({ status: { type: QuoteStatusEnum } }),
    extensions: connectionCost(),
    resolve: async (_root, args: { first: number; after?: string | null; status?: QuoteStatus | null }, ctx) => {
      requireOffice(ctx);
      const first = sizeArg(args, CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize, 'quotes');
      return pageOf(await quotePage(ctx.tx, { status: args.status ?? undefined, after: positionOf(QUOTE_KEYSET, args.after), limit: first }), first, QUOTE_KEYSET);
    },
  },
  quote: {
    type: Quote,
    description: 'One quote, or null when the workspace has none with that id (ADMIN, SALES).',
    args: { id: { type: nonNull(GraphQLID) } },
    resolve: (_root, args: { id: string }, ctx) => {
      requireOffice(ctx);
      return isUuid(args.id) ? ctx.loaders.quote.load(args.id) : null;
    },
  },
  customers: {
    type: nonNull(CustomerConnection),
    description: 'Customers, newest first (ADMIN, SALES).',
    args: connectionArgs(),
    extensions: connectionCost(),
    resolve: async (_root, args: { first: number; after?: string | null }, ctx) => {
      requireOffice(ctx);
      const first = sizeArg(args, CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize, 'customers');
      return pageOf(await customerPage(ctx.tx, { order: 'newest', after: positionOf(CUSTOMER_KEYSET, args.after), limit: first }), first, CUSTOMER_KEYSET);
    },
  },
  customer: {
    type: Customer,
    args: { id: { type: nonNull(GraphQLID) } },
    resolve: (_root, args: { id: string }, ctx) => {
      requireOffice(ctx);
      return isUuid(args.id) ? ctx.loaders.customer.load(args.id) : null;
    },
  },
};

export const quoteMutations: GraphQLFieldConfigMap<unknown, Context> = {
  createQuote: {
    type: nonNull(CreateQuotePayloadType),
    description:
      'POST /v1/quotes as a mutation (ADMIN, SALES): a DRAFT quote priced by the same engine, with its first revision and quote.created. ' +
      '`idempotencyKey` (1-255 characters) means what the Idempotency-Key header of POST /v1/quotes means: the same key and input within 24 hours answer the same quote, another input is IDEMPOTENCY_KEY_REUSED.',
    args: { input: { type: nonNull(CreateQuoteInput) }, idempotencyKey: { type: GraphQLString } },
    extensions: costs.mutation(POINTS_PER_REQUEST),
    resolve: (_root, args: { input: Record<string, unknown>; idempotencyKey?: string | null }, ctx) => {
      requireOffice(ctx);
      return createQuote(ctx, ctx.v1Quotes, args.input, args.idempotencyKey);
    },
  },
};
