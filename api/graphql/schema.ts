import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  type GraphQLFieldConfigMap,
  type GraphQLNullableType,
} from 'graphql';
import { z } from 'zod';
import { QUOTE_STATUSES, type QuoteStatus } from '../../db/quotes/quote-status';
import { WORK_ORDER_STATUSES, type WorkOrderStatus } from '../../db/work-orders/status-table';
import { ROLES } from '../../db/entities/user';
import { customerPage, quotePage, workOrderPage, type CustomerRecord, type PersonRecord, type QuoteLineRecord, type QuoteRecord, type WorkOrderRecord } from '../../db/graphql/reads';
import type { PricedComponent, PricedLineItem, PricedQuote } from '../quotes/pricing/engine';
import { OFFICE } from '../http/roles';
import { forbidden } from '../http/errors';
import type { GraphQLContext } from './context';
import { CONNECTION_SIZE, connectionArgs, connectionCost, connectionOf, pageOf, positionOf } from './connection';
import { costs, meterResolvers, sizeOf, type FieldCost } from './cost';
import { calculate } from './calculate';

/**
 * D17's schema, written once in code: its types are the records of db/graphql/reads.ts and the
 * pricing engine's result, so a change there that the schema does not follow fails the type
 * check. api/graphql/schema.graphql is its printed SDL (served at /v1/graphql/schema.graphql; a
 * test compares them, so a change to the SDL shows in review). Every field declares its cost
 * (api/graphql/cost.ts); roles are D10's: quotes, customers and pricing are the office's (they
 * carry cost and margin), work orders everyone's, a TECHNICIAN seeing only their own (D4).
 */

type Context = GraphQLContext;
const nonNull = <T extends GraphQLNullableType>(type: T) => new GraphQLNonNull(type);
const listOf = <T extends GraphQLNullableType>(type: T) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));
const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);
const isUuid = (value: string) => z.uuid().safeParse(value).success;

function requireOffice(context: Context): void {
  if (!(OFFICE as readonly string[]).includes(context.caller.role)) throw forbidden('Quotes, customers and pricing are for ADMIN and SALES (they carry cost and margin).');
}

const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant, ISO 8601 in UTC (`2026-11-24T13:00:00.000Z`).',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
});

const Decimal = new GraphQLScalarType({
  name: 'Decimal',
  description: 'An exact decimal as a string (`0.4000`): never a float.',
  serialize: (value) => String(value),
});

const Cents = new GraphQLScalarType({
  name: 'Cents',
  description: 'An amount in integer cents (CAD). A JSON integer, exact up to 2^53 - 1 (beyond GraphQL Int).',
  serialize: (value) => {
    const cents = typeof value === 'string' ? Number(value) : value;
    if (typeof cents !== 'number' || !Number.isSafeInteger(cents)) throw new TypeError('Cents: not a safe integer');
    return cents;
  },
  parseValue: (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new TypeError('Cents must be an integer.');
    return value;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT || !Number.isSafeInteger(Number(ast.value))) throw new TypeError('Cents must be an integer.');
    return Number(ast.value);
  },
});

const QuoteStatusEnum = new GraphQLEnumType({ name: 'QuoteStatus', values: Object.fromEntries(QUOTE_STATUSES.map((s) => [s, { value: s }])) });
const WorkOrderStatusEnum = new GraphQLEnumType({ name: 'WorkOrderStatus', values: Object.fromEntries(WORK_ORDER_STATUSES.map((s) => [s, { value: s }])) });
const RoleEnum = new GraphQLEnumType({ name: 'Role', values: Object.fromEntries(ROLES.map((s) => [s, { value: s }])) });

const sized = (defaultSize: number, maxSize: number): { args: { first: { type: typeof GraphQLInt; defaultValue: number; description: string } }; extensions: { cost: FieldCost } } => ({
  args: { first: { type: GraphQLInt, defaultValue: defaultSize, description: `At most ${maxSize}; the cost assumes this many.` } },
  extensions: costs.list(defaultSize, maxSize),
});
const sizeArg = (args: { first?: number | null }, defaultSize: number, maxSize: number, field: string) => sizeOf({ first: args.first ?? undefined }, { defaultSize, maxSize }, field);

const Person = new GraphQLObjectType<PersonRecord, Context>({
  name: 'Person',
  description: 'A user of the workspace as other records name them.',
  fields: {
    id: { type: nonNull(GraphQLID) },
    name: { type: nonNull(GraphQLString), resolve: (p) => p.full_name },
    email: { type: nonNull(GraphQLString) },
    role: { type: nonNull(RoleEnum) },
  },
});

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
  },
});

// Declared before use by the thunks below (types refer to each other).
// eslint-disable-next-line prefer-const
let Customer: GraphQLObjectType<CustomerRecord, Context>;
// eslint-disable-next-line prefer-const
let WorkOrder: GraphQLObjectType<WorkOrderRecord, Context>;

const Quote: GraphQLObjectType<QuoteRecord, Context> = new GraphQLObjectType<QuoteRecord, Context>({
  name: 'Quote',
  description: 'A quote of the workspace (ADMIN and SALES).',
  fields: (): GraphQLFieldConfigMap<QuoteRecord, Context> => ({
    id: { type: nonNull(GraphQLID) },
    number: { type: nonNull(GraphQLInt), resolve: (q) => q.quote_number },
    reference: { type: nonNull(GraphQLString), description: 'The proposal reference, `Q-<number>`.', resolve: (q) => `Q-${q.quote_number}` },
    status: { type: nonNull(QuoteStatusEnum) },
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
    workOrders: {
      type: listOf(WorkOrder),
      description: 'Work orders made from this quote, oldest first.',
      ...sized(10, 50),
      resolve: (q, args: { first?: number | null }, ctx) => ctx.loaders.workOrdersOfQuote(sizeArg(args, 10, 50, 'workOrders')).load(q.id),
    },
  }),
});

Customer = new GraphQLObjectType<CustomerRecord, Context>({
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

WorkOrder = new GraphQLObjectType<WorkOrderRecord, Context>({
  name: 'WorkOrder',
  description: 'A work order (section 3.2): ADMIN and SALES see all, a TECHNICIAN those assigned to them.',
  fields: () => ({
    id: { type: nonNull(GraphQLID) },
    status: { type: nonNull(WorkOrderStatusEnum) },
    scheduledDate: { type: GraphQLString, description: 'A calendar day, `YYYY-MM-DD`.', resolve: (w) => w.scheduled_date },
    siteAddress: { type: GraphQLString, resolve: (w) => w.site_address },
    notes: { type: GraphQLString },
    createdAt: { type: nonNull(DateTime), resolve: (w) => iso(w.created_at) },
    dispatchedAt: { type: DateTime, resolve: (w) => iso(w.dispatched_at) },
    completedAt: { type: DateTime, resolve: (w) => iso(w.completed_at) },
    cancelledAt: { type: DateTime, resolve: (w) => iso(w.cancelled_at) },
    assignedTechnician: { type: Person, resolve: (w, _args, ctx) => (w.assigned_technician_id ? ctx.loaders.person.load(w.assigned_technician_id) : null) },
    quote: {
      type: Quote,
      description: 'The quote it was made from (ADMIN and SALES: FORBIDDEN for a TECHNICIAN).',
      resolve: (w, _args, ctx) => {
        if (!w.quote_id) return null;
        requireOffice(ctx);
        return ctx.loaders.quote.load(w.quote_id);
      },
    },
  }),
});

const QuoteConnection = connectionOf(Quote);
const CustomerConnection = connectionOf(Customer);
const WorkOrderConnection = connectionOf(WorkOrder);

/** A technician reads only work orders assigned to them (D4); anyone else every one of the tenant. */
const visibleTo = (ctx: Context, order: WorkOrderRecord | null) =>
  order && (ctx.caller.role !== 'TECHNICIAN' || order.assigned_technician_id === ctx.caller.userId) ? order : null;

const PricedComponentType = new GraphQLObjectType<PricedComponent, Context>({
  name: 'PricedComponent',
  fields: {
    component: { type: nonNull(GraphQLString) },
    skuCode: { type: GraphQLString, resolve: (c) => c.sku_code },
    description: { type: nonNull(GraphQLString) },
    quantity: { type: nonNull(Decimal) },
    unit: { type: nonNull(GraphQLString) },
    unitCostCents: { type: nonNull(Decimal), description: 'May carry fractions of a cent (D2).', resolve: (c) => c.unit_cost_cents },
    extendedCostCents: { type: nonNull(Cents), resolve: (c) => c.extended_cost_cents },
  },
});

const PricedLine = new GraphQLObjectType<PricedLineItem, Context>({
  name: 'PricedLine',
  fields: {
    reference: { type: GraphQLString },
    widthInches: { type: nonNull(GraphQLFloat), resolve: (l) => l.width_inches },
    dropInches: { type: nonNull(GraphQLFloat), resolve: (l) => l.drop_inches },
    quantity: { type: nonNull(GraphQLInt) },
    openingSquareFeet: { type: nonNull(Decimal), resolve: (l) => l.opening_square_feet },
    fabricSquareFeetWithWaste: { type: nonNull(Decimal), resolve: (l) => l.fabric_square_feet_with_waste },
    labourHours: { type: nonNull(Decimal), resolve: (l) => l.labour_hours },
    tubeLengthInches: { type: nonNull(Decimal), resolve: (l) => l.cut_list.tube_length_inches },
    hembarLengthInches: { type: nonNull(Decimal), resolve: (l) => l.cut_list.hembar_length_inches },
    fabricWidthInches: { type: nonNull(Decimal), resolve: (l) => l.cut_list.fabric_width_inches },
    fabricDropInches: { type: nonNull(Decimal), resolve: (l) => l.cut_list.fabric_drop_inches },
    components: { type: listOf(PricedComponentType), extensions: costs.free },
    costCents: { type: nonNull(Cents), resolve: (l) => l.cost_cents },
    priceCents: { type: nonNull(Cents), resolve: (l) => l.price_cents },
  },
});

const Calculation = new GraphQLObjectType<PricedQuote, Context>({
  name: 'Calculation',
  description: 'What POST /api/v1/quotes/calculate answers, from the same engine and rate card; nothing is stored.',
  fields: {
    currency: { type: nonNull(GraphQLString) },
    laborTierCode: { type: nonNull(GraphQLString), resolve: (p) => p.labor_tier.code },
    laborTierName: { type: nonNull(GraphQLString), resolve: (p) => p.labor_tier.name },
    marginFloor: { type: nonNull(Decimal), resolve: (p) => p.margin_floor },
    appliedMargin: { type: nonNull(Decimal), resolve: (p) => p.applied_margin },
    floorOverridden: { type: nonNull(GraphQLBoolean), resolve: (p) => p.floor_overridden },
    lineItems: { type: listOf(PricedLine), extensions: costs.free, resolve: (p) => p.line_items },
    costCents: { type: nonNull(Cents), resolve: (p) => p.totals.cost_cents },
    amountCents: { type: nonNull(Cents), resolve: (p) => p.totals.amount_cents },
    profitCents: { type: nonNull(Cents), resolve: (p) => p.totals.profit_cents },
    marginPercent: { type: nonNull(Decimal), resolve: (p) => p.totals.margin_percent },
  },
});

const LineItemInput = new GraphQLInputObjectType({
  name: 'LineItemInput',
  fields: {
    reference: { type: GraphQLString },
    widthInches: { type: nonNull(GraphQLFloat) },
    dropInches: { type: nonNull(GraphQLFloat) },
    quantity: { type: nonNull(GraphQLInt) },
    fabricSkuCode: { type: nonNull(GraphQLString) },
    hardwareSkuCode: { type: nonNull(GraphQLString) },
    motorSkuCode: { type: GraphQLString },
    trimSkuCode: { type: GraphQLString },
  },
});

export const CalculateInput = new GraphQLInputObjectType({
  name: 'CalculateInput',
  description: 'The body of POST /api/v1/quotes/calculate without `persist` and `customer` (calculate stores nothing); the same limits apply.',
  fields: {
    laborTierCode: { type: nonNull(GraphQLString) },
    lineItems: { type: listOf(LineItemInput) },
    targetMargin: { type: GraphQLFloat, description: 'A fraction in [0, 1); omitted prices at the floor.' },
    marginOverride: { type: new GraphQLInputObjectType({ name: 'MarginOverrideInput', fields: { reason: { type: nonNull(GraphQLString) } } }) },
  },
});

const Query = new GraphQLObjectType<unknown, Context>({
  name: 'Query',
  fields: {
    quotes: {
      type: nonNull(QuoteConnection),
      description: 'Quotes, newest first (ADMIN, SALES).',
      args: connectionArgs({ status: { type: QuoteStatusEnum } }),
      extensions: connectionCost(),
      resolve: async (_root, args: { first: number; after?: string | null; status?: QuoteStatus | null }, ctx) => {
        requireOffice(ctx);
        const first = sizeArg(args, CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize, 'quotes');
        return pageOf(await quotePage(ctx.tx, { status: args.status ?? undefined, after: positionOf(args.after), limit: first }), first);
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
        return pageOf(await customerPage(ctx.tx, { after: positionOf(args.after), limit: first }), first);
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
    workOrders: {
      type: nonNull(WorkOrderConnection),
      description: 'Work orders, oldest first; a TECHNICIAN gets only those assigned to them (D4).',
      args: connectionArgs({ status: { type: WorkOrderStatusEnum } }),
      extensions: connectionCost(),
      resolve: async (_root, args: { first: number; after?: string | null; status?: WorkOrderStatus | null }, ctx) => {
        const first = sizeArg(args, CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize, 'workOrders');
        const rows = await workOrderPage(ctx.tx, {
          status: args.status ?? undefined,
          assignedTechnicianId: ctx.caller.role === 'TECHNICIAN' ? ctx.caller.userId : undefined,
          after: positionOf(args.after),
          limit: first,
        });
        return pageOf(rows, first);
      },
    },
    workOrder: {
      type: WorkOrder,
      description: 'One work order, or null when there is none the caller may read with that id.',
      args: { id: { type: nonNull(GraphQLID) } },
      resolve: async (_root, args: { id: string }, ctx) => (isUuid(args.id) ? visibleTo(ctx, await ctx.loaders.workOrder.load(args.id)) : null),
    },
  },
});

const Mutation = new GraphQLObjectType<unknown, Context>({
  name: 'Mutation',
  fields: {
    calculate: {
      type: nonNull(Calculation),
      description: "Price a configuration from the workspace's current rate card (ADMIN, SALES; below the floor needs an ADMIN and a reason). Stores nothing.",
      args: { input: { type: nonNull(CalculateInput) } },
      extensions: costs.mutation(),
      resolve: (_root, args: { input: Record<string, unknown> }, ctx) => {
        requireOffice(ctx);
        return calculate(ctx, args.input);
      },
    },
  },
});

/** The one schema of the process (its resolvers are metered once, here). */
export const schema = new GraphQLSchema({ query: Query, mutation: Mutation });
meterResolvers(schema);
