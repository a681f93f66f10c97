import { GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import { JOB_STATUSES, type JobStatus } from '../../../domain/jobs/job-status-table';
import { JOB_FEED_KEYSET, jobById, jobPage, type JobRow } from '../../../db/fsm/jobs';
import type { ChangeOrderRow, MaterialDrawRow, TimeEntryRow } from '../../../db/fsm/field-writes';
import { pageOf } from '../../../db/cursor';
import { forbidden, jobNotFound } from '../../../domain/errors/errors';
import { assignCrewWithin, moveJobWithin, toJob, visibilityOf } from '../../fsm/job-service';
import { AssignCrewBody, MoveJobBody } from '../../fsm/schemas';
import { z } from 'zod';
import { calendarDate } from '../../http/date-schemas';
import { FIELD } from '../../http/roles';
import { parseOrThrow } from '../../http/validate';
import { CONNECTION_SIZE, connectionArgs, connectionCost, connectionOf, positionOf } from '../connection';
import { costs } from '../cost';
import { POINTS_PER_REQUEST } from '../throttle';
import { iso } from '../../../domain/timestamps';
import { Cents, DateTime, Decimal, isUuid, listOf, nonNull, requireOffice, sized, sizeArg, type Context } from './common';
import { Crew } from './crews';
import { Person } from './people';
import { Quote } from './quotes';
import { WorkOrder, WorkOrderStatusEnum } from './work-orders';

/** Jobs (D11), the field view of work orders, with what the field writes on them (D12's change orders, time, material), and moveJob. */

const JobStatusEnum = new GraphQLEnumType({
  name: 'JobStatus',
  description: "A job's status (`/v1/fsm/jobs` spells them in lower case: `in_progress` is IN_PROGRESS).",
  values: Object.fromEntries(JOB_STATUSES.map((s) => [s.toUpperCase(), { value: s }])),
});

const Site = new GraphQLObjectType<{ id: string; name: string; region: string }, Context>({
  name: 'Site',
  fields: { id: { type: nonNull(GraphQLID) }, name: { type: nonNull(GraphQLString) }, region: { type: nonNull(GraphQLString), description: 'e.g. CA-ON' } },
});

const ChangeOrder = new GraphQLObjectType<ChangeOrderRow, Context>({
  name: 'ChangeOrder',
  description: 'Lines and labour added to a job, priced at once; `delta` figures in cents.',
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
  description: 'The field view of a work order (its id is the work order\'s). ADMIN and SALES read every job, a TECHNICIAN those of their crews.',
  fields: () => ({
    id: { type: nonNull(GraphQLID), resolve: (j) => j.job_id },
    status: { type: nonNull(JobStatusEnum) },
    workOrderStatus: { type: nonNull(WorkOrderStatusEnum), resolve: (j) => j.work_order_status },
    quoteRef: { type: GraphQLString, resolve: (j) => toJob(j).quote_ref },
    projectType: { type: nonNull(GraphQLString), description: '`install` with a quote, `service` without.', resolve: (j) => toJob(j).project_type },
    site: { type: Site, resolve: (j) => (j.site_id ? { id: j.site_id, name: j.site_name!, region: j.site_region! } : null) },
    siteAddress: { type: GraphQLString, description: 'Where the job is, as the work order gives it: everyone who sees the job reads it, a TECHNICIAN included.', resolve: (j) => j.site_address },
    customerName: { type: GraphQLString, description: 'The quote’s customer (null without one): everyone who sees the job reads it, a TECHNICIAN included; the quote’s money stays the office’s.', resolve: (j) => j.customer_name },
    crew: { type: Crew, resolve: (j, _args, ctx) => (j.crew_id ? ctx.loaders.crew.load(j.crew_id) : null) },
    scheduledStart: { type: DateTime, resolve: (j) => iso(j.scheduled_start) },
    actualStart: { type: DateTime, resolve: (j) => iso(j.actual_start) },
    hoursLogged: { type: nonNull(Decimal), resolve: (j) => j.hours_logged },
    hoursEstimated: { type: nonNull(Decimal), resolve: (j) => j.hours_estimated },
    percentComplete: { type: nonNull(GraphQLFloat), resolve: (j) => toJob(j).percent_complete },
    openChangeOrders: { type: nonNull(GraphQLInt), resolve: (j) => j.open_change_orders },
    updatedAt: { type: nonNull(DateTime), description: 'To the microsecond: the order of the jobs feed.', resolve: (j) => j.updated_at },
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

export const jobQueries: GraphQLFieldConfigMap<unknown, Context> = {
  jobs: {
    type: nonNull(JobConnection),
    description: "Jobs in the feed's order (oldest change first); a TECHNICIAN gets those of their crews.",
    args: connectionArgs({
      status: { type: new GraphQLList(new GraphQLNonNull(JobStatusEnum)) },
      crewId: { type: GraphQLID },
      date: { type: GraphQLString, description: 'Only the jobs scheduled on this calendar day, `YYYY-MM-DD` (a dispatch board’s day).' },
    }),
    extensions: connectionCost(),
    resolve: async (_root, args: { first: number; after?: string | null; status?: JobStatus[] | null; crewId?: string | null; date?: string | null }, ctx) => {
      const first = sizeArg(args, CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize, 'jobs');
      if (args.crewId && !isUuid(args.crewId)) return pageOf([] as JobRow[], first, JOB_FEED_KEYSET);
      const date = args.date == null ? undefined : parseOrThrow(JobsDateArgs, { date: args.date }, 'args').date;
      const rows = await jobPage(ctx.tx, {
        ...visibilityOf(ctx.caller),
        statuses: args.status ?? undefined,
        crewId: args.crewId ?? undefined,
        scheduledOn: date,
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
};

const JobsDateArgs = z.strictObject({ date: calendarDate('YYYY-MM-DD') });

export const jobMutations: GraphQLFieldConfigMap<unknown, Context> = {
  assignCrew: {
    type: nonNull(Job),
    description: 'Give a job its crew (ADMIN): the same checks and history as PUT /v1/fsm/jobs/{id}/crew.',
    args: { jobId: { type: nonNull(GraphQLID) }, crewId: { type: nonNull(GraphQLID) } },
    extensions: costs.mutation(POINTS_PER_REQUEST),
    resolve: async (_root, args: { jobId: string; crewId: string }, ctx) => {
      if (ctx.caller.role !== 'ADMIN') throw forbidden('Crews are assigned by an ADMIN.');
      if (!isUuid(args.jobId)) throw jobNotFound();
      const body = parseOrThrow(AssignCrewBody, { crew_id: args.crewId }, 'args');
      ctx.events.push(...(await assignCrewWithin(ctx.tx, ctx.caller, args.jobId, body.crew_id, ctx.travel)));
      return (await jobById(ctx.tx, args.jobId, visibilityOf(ctx.caller)))!;
    },
  },
  moveJob: {
    type: nonNull(Job),
    description:
      "Move a job to another status, as the job status table allows (ADMIN any job, a TECHNICIAN their crews' jobs): the same checks, history and events as PATCH /v1/fsm/jobs/{id}. " +
      'A repeated status changes nothing. `completedAt` is the device\'s sign-off time, only with COMPLETE.',
    args: { id: { type: nonNull(GraphQLID) }, status: { type: nonNull(JobStatusEnum) }, completedAt: { type: DateTime } },
    extensions: costs.mutation(POINTS_PER_REQUEST),
    resolve: async (_root, args: { id: string; status: JobStatus; completedAt?: string | null }, ctx) => {
      if (!(FIELD as readonly string[]).includes(ctx.caller.role)) throw forbidden('Jobs are moved by ADMIN and TECHNICIAN.');
      if (!isUuid(args.id)) throw jobNotFound();
      const body = parseOrThrow(MoveJobBody, { status: args.status, ...(args.completedAt != null ? { completed_at: args.completedAt } : {}) }, 'args');
      ctx.events.push(...(await moveJobWithin(ctx.tx, ctx.caller, args.id, body, ctx.travel)));
      return (await jobById(ctx.tx, args.id, visibilityOf(ctx.caller)))!;
    },
  },
};
