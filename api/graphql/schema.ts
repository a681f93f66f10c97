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
import { QUOTE_STATUSES, type QuoteStatus } from '../../domain/quotes/quote-status';
import { WORK_ORDER_STATUSES, type WorkOrderStatus } from '../../domain/work-orders/status-table';
import { ROLES } from '../../db/entities/user';
import { QUOTE_KEYSET, quotePage, type QuoteLineRecord, type QuoteRecord, type QuoteRevisionRecord } from '../../db/quotes/quote-list';
import { CUSTOMER_KEYSET, customerPage, type CustomerRow } from '../../db/quotes/customer-directory';
import { CREATED_KEYSET, workOrderPage, type WorkOrderRecord } from '../../db/work-orders/work-orders';
import type { PersonRecord } from '../../db/users';
import { pageOf } from '../../db/cursor';
import type { PricedComponent, PricedLineItem, PricedQuote } from '../../domain/pricing/engine';
import { OFFICE } from '../http/roles';
import { forbidden } from '../../domain/errors/errors';
import type { GraphQLContext } from './context';
import { CONNECTION_SIZE, connectionArgs, connectionCost, connectionOf, positionOf } from './connection';
import { costs, meterResolvers, sizeOf, type FieldCost } from './cost';
import { calculate } from './calculate';
import { createQuote, type CreateQuotePayload } from './create-quote';
import { POINTS_PER_REQUEST } from './throttle';
import { JOB_STATUSES, type JobStatus } from '../../domain/jobs/job-status-table';
import { JOB_FEED_KEYSET, jobById, jobPage, type JobRow } from '../../db/fsm/jobs';
import type { ChangeOrderRow, MaterialDrawRow, TimeEntryRow } from '../../db/fsm/field-writes';
import { CREW_KEYSET, crewPage, type CrewRow } from '../../db/fsm/crews';
import { moveJobWithin, toJob, visibilityOf } from '../fsm/job-service';
import { PatchJobBody } from '../fsm/schemas';
import { FIELD } from '../http/roles';
import { jobNotFound } from '../../domain/errors/errors';
import { parseOrThrow } from '../http/validate';
import { iso } from '../../domain/timestamps';

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
const isUuid = (value: string) => z.uuid().safeParse(value).success;

function requireOffice(context: Context): void {
  if (!(OFFICE as readonly string[]).includes(context.caller.role)) throw forbidden('Quotes, customers and pricing are for ADMIN and SALES (they carry cost and margin).');
}

const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant, RFC 3339 (`2026-11-24T13:00:00.000Z`); answers are in UTC.',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    if (typeof value !== 'string') throw new TypeError('DateTime must be an RFC 3339 string.');
    return value;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new TypeError('DateTime must be an RFC 3339 string.');
    return ast.value;
  },
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

const QuoteRevision = new GraphQLObjectType<QuoteRevisionRecord, Context>({
  name: 'QuoteRevision',
  description: 'D14: one persisted revision of a quote (POST /v1/quotes makes revision 1, each POST /v1/quotes/{id}/revisions the next).',
  fields: {
    revision: { type: nonNull(GraphQLInt) },
    createdAt: { type: nonNull(DateTime), resolve: (r) => iso(r.created_at) },
    createdBy: { type: Person, resolve: (r, _args, ctx) => (r.created_by_user_id ? ctx.loaders.person.load(r.created_by_user_id) : null) },
    pricebookRevision: { type: nonNull(DateTime), description: 'The rate-card revision that priced it.', resolve: (r) => iso(r.pricebook_revision) },
  },
});

// Declared before use by the thunks below (types refer to each other).
// eslint-disable-next-line prefer-const
let Customer: GraphQLObjectType<CustomerRow, Context>;
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
    revision: { type: nonNull(GraphQLInt), description: 'D14: the revision the quote is at (1 until revised).' },
    taxRegion: { type: GraphQLString, description: 'D14: the province or territory it was priced for (null for quotes made by /api/v1/quotes/calculate).', resolve: (q) => q.tax_region },
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
      description: 'D14: its revisions, oldest first (none for quotes made by /api/v1/quotes/calculate).',
      ...sized(10, 50),
      resolve: (q, args: { first?: number | null }, ctx) => ctx.loaders.revisionsOfQuote(sizeArg(args, 10, 50, 'revisions')).load(q.id),
    },
    workOrders: {
      type: listOf(WorkOrder),
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


// ---- Jobs (D11), crews and what the field writes on a job ----

const JobStatusEnum = new GraphQLEnumType({
  name: 'JobStatus',
  description: "D11's job status (document 001 spells them in lower case: `in_progress` is IN_PROGRESS).",
  values: Object.fromEntries(JOB_STATUSES.map((s) => [s.toUpperCase(), { value: s }])),
});

const Site = new GraphQLObjectType<{ id: string; name: string; region: string }, Context>({
  name: 'Site',
  fields: { id: { type: nonNull(GraphQLID) }, name: { type: nonNull(GraphQLString) }, region: { type: nonNull(GraphQLString), description: 'e.g. CA-ON' } },
});

const Crew = new GraphQLObjectType<CrewRow, Context>({
  name: 'Crew',
  description: 'A crew (D11): a foreman and member technicians. A TECHNICIAN sees the crews they belong to.',
  fields: {
    id: { type: nonNull(GraphQLID) },
    name: { type: nonNull(GraphQLString) },
    foreman: { type: nonNull(Person), resolve: (c, _args, ctx) => ctx.loaders.person.load(c.foreman_user_id) },
    headcount: { type: nonNull(GraphQLInt), resolve: (c) => c.member_ids.length },
    members: {
      type: listOf(Person),
      ...sized(20, 50),
      resolve: async (c, args: { first?: number | null }, ctx) =>
        (await ctx.loaders.person.loadMany(c.member_ids.slice(0, sizeArg(args, 20, 50, 'members')))).filter((p): p is PersonRecord => p !== null && !(p instanceof Error)),
    },
  },
});


const ChangeOrder = new GraphQLObjectType<ChangeOrderRow, Context>({
  name: 'ChangeOrder',
  description: 'D12: lines and labour added to a job, priced at once; `delta` figures in cents.',
  fields: {
    id: { type: nonNull(GraphQLID) },
    sequence: { type: nonNull(GraphQLInt) },
    status: { type: nonNull(GraphQLString), description: '`submitted`, `approved` or `rejected`.' },
    reason: { type: nonNull(GraphQLString) },
    labourHours: { type: nonNull(Decimal), resolve: (c) => c.labour_hours },
    materialCostCents: { type: nonNull(Cents), resolve: (c) => c.material_cost_cents },
    directCostCents: { type: nonNull(Cents), resolve: (c) => c.direct_cost_cents },
    sellCents: { type: nonNull(Cents), resolve: (c) => c.sell_cents },
    appliedMargin: { type: nonNull(Decimal), resolve: (c) => c.applied_margin },
    floorEngaged: { type: nonNull(GraphQLBoolean), resolve: (c) => c.floor_engaged },
    rejectionReason: { type: GraphQLString, resolve: (c) => c.rejection_reason },
    createdAt: { type: nonNull(DateTime), resolve: (c) => iso(c.created_at) },
    decidedAt: { type: DateTime, resolve: (c) => iso(c.decided_at) },
  },
});

const TimeEntry = new GraphQLObjectType<TimeEntryRow, Context>({
  name: 'TimeEntry',
  fields: {
    id: { type: nonNull(GraphQLID) },
    technician: { type: Person, resolve: (t, _args, ctx) => ctx.loaders.person.load(t.technician_id) },
    startedAt: { type: nonNull(DateTime), resolve: (t) => iso(t.started_at) },
    endedAt: { type: nonNull(DateTime), resolve: (t) => iso(t.ended_at) },
    hours: { type: nonNull(Decimal) },
    notes: { type: GraphQLString },
  },
});

const MaterialDraw = new GraphQLObjectType<MaterialDrawRow, Context>({
  name: 'MaterialDraw',
  fields: {
    id: { type: nonNull(GraphQLID) },
    sku: { type: nonNull(GraphQLString), resolve: (d) => d.sku_code },
    quantity: { type: nonNull(Decimal), description: 'In the SKU\'s unit.' },
    unit: { type: nonNull(GraphQLString) },
    vanId: { type: GraphQLString, resolve: (d) => d.van_id },
    drawnBy: { type: Person, resolve: (d, _args, ctx) => ctx.loaders.person.load(d.drawn_by_user_id) },
    createdAt: { type: nonNull(DateTime), resolve: (d) => iso(d.created_at) },
  },
});

const Job = new GraphQLObjectType<JobRow, Context>({
  name: 'Job',
  description: 'D11: the field view of a work order (its id is the work order\'s). ADMIN and SALES read every job, a TECHNICIAN those of their crews.',
  fields: () => ({
    id: { type: nonNull(GraphQLID), resolve: (j) => j.job_id },
    status: { type: nonNull(JobStatusEnum) },
    workOrderStatus: { type: nonNull(WorkOrderStatusEnum), resolve: (j) => j.work_order_status },
    quoteRef: { type: GraphQLString, resolve: (j) => toJob(j).quote_ref },
    projectType: { type: nonNull(GraphQLString), description: '`install` with a quote, `service` without.', resolve: (j) => toJob(j).project_type },
    site: { type: Site, resolve: (j) => (j.site_id ? { id: j.site_id, name: j.site_name!, region: j.site_region! } : null) },
    crew: { type: Crew, resolve: (j, _args, ctx) => (j.crew_id ? ctx.loaders.crew.load(j.crew_id) : null) },
    scheduledStart: { type: DateTime, resolve: (j) => iso(j.scheduled_start) },
    actualStart: { type: DateTime, resolve: (j) => iso(j.actual_start) },
    hoursLogged: { type: nonNull(Decimal), resolve: (j) => j.hours_logged },
    hoursEstimated: { type: nonNull(Decimal), resolve: (j) => j.hours_estimated },
    percentComplete: { type: nonNull(GraphQLFloat), resolve: (j) => toJob(j).percent_complete },
    openChangeOrders: { type: nonNull(GraphQLInt), resolve: (j) => j.open_change_orders },
    updatedAt: { type: nonNull(DateTime), description: 'To the microsecond: the feed order of D11.', resolve: (j) => j.updated_at },
    workOrder: { type: WorkOrder, resolve: (j, _args, ctx) => ctx.loaders.workOrder.load(j.job_id) },
    quote: {
      type: Quote,
      description: 'The quote (ADMIN and SALES: FORBIDDEN for a TECHNICIAN).',
      resolve: (j, _args, ctx) => {
        if (!j.quote_id) return null;
        requireOffice(ctx);
        return ctx.loaders.quote.load(j.quote_id);
      },
    },
    changeOrders: {
      type: listOf(ChangeOrder),
      description: 'In sequence.',
      ...sized(10, 50),
      resolve: (j, args: { first?: number | null }, ctx) => ctx.loaders.changeOrdersOfJob(sizeArg(args, 10, 50, 'changeOrders')).load(j.job_id),
    },
    timeEntries: {
      type: listOf(TimeEntry),
      description: 'Oldest first.',
      ...sized(20, 100),
      resolve: (j, args: { first?: number | null }, ctx) => ctx.loaders.timeEntriesOfJob(sizeArg(args, 20, 100, 'timeEntries')).load(j.job_id),
    },
    materialDraws: {
      type: listOf(MaterialDraw),
      description: 'Oldest first.',
      ...sized(20, 100),
      resolve: (j, args: { first?: number | null }, ctx) => ctx.loaders.materialDrawsOfJob(sizeArg(args, 20, 100, 'materialDraws')).load(j.job_id),
    },
  }),
});

const JobConnection = connectionOf(Job);
const CrewConnection = connectionOf(Crew);

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
  description: 'The body of POST /v1/quotes (D14); the same rules apply.',
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
    jobs: {
      type: nonNull(JobConnection),
      description: "Jobs in D11's feed order (oldest change first); a TECHNICIAN gets those of their crews.",
      args: connectionArgs({ status: { type: new GraphQLList(new GraphQLNonNull(JobStatusEnum)) }, crewId: { type: GraphQLID } }),
      extensions: connectionCost(),
      resolve: async (_root, args: { first: number; after?: string | null; status?: JobStatus[] | null; crewId?: string | null }, ctx) => {
        const first = sizeArg(args, CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize, 'jobs');
        if (args.crewId && !isUuid(args.crewId)) return pageOf([] as JobRow[], first, JOB_FEED_KEYSET);
        const rows = await jobPage(ctx.tx, {
          ...visibilityOf(ctx.caller),
          statuses: args.status ?? undefined,
          crewId: args.crewId ?? undefined,
          after: positionOf(JOB_FEED_KEYSET, args.after),
          limit: first,
        });
        return pageOf(rows, first, JOB_FEED_KEYSET);
      },
    },
    job: {
      type: Job,
      description: 'One job, or null when there is none the caller may read with that id.',
      args: { id: { type: nonNull(GraphQLID) } },
      resolve: async (_root, args: { id: string }, ctx) => (isUuid(args.id) ? ((await jobById(ctx.tx, args.id, visibilityOf(ctx.caller))) ?? null) : null),
    },
    crews: {
      type: nonNull(CrewConnection),
      description: 'Crews by name; a TECHNICIAN gets the crews they belong to.',
      args: connectionArgs(),
      extensions: connectionCost(),
      resolve: async (_root, args: { first: number; after?: string | null }, ctx) => {
        const first = sizeArg(args, CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize, 'crews');
        const rows = await crewPage(ctx.tx, { memberId: ctx.caller.role === 'TECHNICIAN' ? ctx.caller.userId : undefined, after: positionOf(CREW_KEYSET, args.after), limit: first });
        return pageOf(rows, first, CREW_KEYSET);
      },
    },
    workOrders: {
      type: nonNull(WorkOrderConnection),
      description: 'Work orders, oldest first; a TECHNICIAN gets only those assigned to them (D4).',
      args: connectionArgs({ status: { type: WorkOrderStatusEnum } }),
      extensions: connectionCost(),
      resolve: async (_root, args: { first: number; after?: string | null; status?: WorkOrderStatus | null }, ctx) => {
        const first = sizeArg(args, CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize, 'workOrders');
        const rows = await workOrderPage(
          ctx.tx,
          { status: args.status ?? undefined, assignedTechnicianId: ctx.caller.role === 'TECHNICIAN' ? ctx.caller.userId : undefined, limit: first },
          { by: 'created', after: positionOf(CREATED_KEYSET, args.after) },
        );
        return pageOf(rows, first, CREATED_KEYSET);
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
    createQuote: {
      type: nonNull(CreateQuotePayloadType),
      description:
        'POST /v1/quotes (D14) as a mutation (ADMIN, SALES): a DRAFT quote priced by the same engine, with its first revision and quote.created. ' +
        '`idempotencyKey` (1-255 characters) has D14\'s meaning: the same key and input within 24 hours answer the same quote, another input is IDEMPOTENCY_KEY_REUSED.',
      args: { input: { type: nonNull(CreateQuoteInput) }, idempotencyKey: { type: GraphQLString } },
      extensions: costs.mutation(POINTS_PER_REQUEST),
      resolve: (_root, args: { input: Record<string, unknown>; idempotencyKey?: string | null }, ctx) => {
        requireOffice(ctx);
        return createQuote(ctx, ctx.v1Quotes, args.input, args.idempotencyKey);
      },
    },
    moveJob: {
      type: nonNull(Job),
      description:
        "Move a job by D11's table (ADMIN any job, a TECHNICIAN their crews' jobs): the same checks, history and events as PATCH /v1/fsm/jobs/{id}. " +
        'A repeated status changes nothing. `completedAt` is the device\'s sign-off time, only with COMPLETE.',
      args: { id: { type: nonNull(GraphQLID) }, status: { type: nonNull(JobStatusEnum) }, completedAt: { type: DateTime } },
      extensions: costs.mutation(POINTS_PER_REQUEST),
      resolve: async (_root, args: { id: string; status: JobStatus; completedAt?: string | null }, ctx) => {
        if (!(FIELD as readonly string[]).includes(ctx.caller.role)) throw forbidden('Jobs are moved by ADMIN and TECHNICIAN.');
        if (!isUuid(args.id)) throw jobNotFound();
        const body = parseOrThrow(PatchJobBody, { status: args.status, ...(args.completedAt != null ? { completed_at: args.completedAt } : {}) }, 'args');
        ctx.events.push(...(await moveJobWithin(ctx.tx, ctx.caller, args.id, body)));
        return (await jobById(ctx.tx, args.id, visibilityOf(ctx.caller)))!;
      },
    },
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
