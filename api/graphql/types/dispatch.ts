import { GraphQLID, GraphQLInputObjectType, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import { forbidden, notFound } from '../../../domain/errors/errors';
import { workOrdersByIds } from '../../../db/work-orders/work-orders';
import { quotesByIds } from '../../../db/quotes/quote-list';
import { approveInTenant } from '../../quotes/approval';
import { approvalRefused } from '../../quotes/quote-service';
import { createWorkOrderWithin, editWorkOrderWithin } from '../../work-orders/work-order-service';
import { CreateWorkOrderBody, EditWorkOrderBody } from '../../work-orders/schemas';
import { parseOrThrow } from '../../http/validate';
import { costs } from '../cost';
import { POINTS_PER_REQUEST } from '../throttle';
import { isUuid, nonNull, requireOffice, type Context } from './common';
import { Quote } from './quotes';
import { WorkOrder } from './work-orders';

/**
 * What a dispatch board writes besides moving jobs (jobs.ts) and assigning crews: send and approve
 * a quote, make a work order and schedule it. Each calls the service its REST route calls, inside the
 * operation's transaction, with the same checks, history and events (dispatched after the commit);
 * each costs what its REST request costs (one request token).
 */

const CreateWorkOrderInput = new GraphQLInputObjectType({
  name: 'CreateWorkOrderInput',
  description: 'The body of POST /api/v1/work-orders: every field optional.',
  fields: {
    quoteId: { type: GraphQLID },
    assignedTechnicianId: { type: GraphQLID },
    scheduledDate: { type: GraphQLString, description: 'A calendar day, `YYYY-MM-DD`.' },
    siteAddress: { type: GraphQLString },
    notes: { type: GraphQLString },
  },
});

const SentQuote = new GraphQLObjectType<{ id: string; pageUrl: string }, Context>({
  name: 'SentQuote',
  description: 'A quote just sent, with the link to its page that went to the customer.',
  fields: () => ({
    // Free: the send costs what its REST request costs, the quote included.
    quote: { type: nonNull(Quote), extensions: costs.free, resolve: async (sent, _args, ctx) => (await quotesByIds(ctx.tx, [sent.id]))[0]! },
    pageUrl: {
      type: nonNull(GraphQLString),
      description: "The customer's page of the quote (read it, download its PDF, accept or decline); the only copy of the link besides the email.",
    },
  }),
});

/** GraphQL's absent and null arguments as the REST body would omit or send them. */
const present = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
const withoutNulls = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined && value !== null));

const requireAdmin = (ctx: Context, what: string) => {
  if (ctx.caller.role !== 'ADMIN') throw forbidden(`${what} is an ADMIN's.`);
};

export const dispatchMutations: GraphQLFieldConfigMap<unknown, Context> = {
  sendQuote: {
    type: nonNull(SentQuote),
    description:
      "Send a DRAFT quote to its customer, or a SENT one again (ADMIN and SALES), as POST /api/v1/quotes/{id}/send: a new link to the quote's page, " +
      'emailed to the customer when they have an email (after the commit) and answered as `pageUrl` either way; an earlier link stops working.',
    args: { id: { type: nonNull(GraphQLID) } },
    extensions: costs.mutation(POINTS_PER_REQUEST),
    resolve: async (_root, args: { id: string }, ctx) => {
      requireOffice(ctx);
      if (!isUuid(args.id)) throw notFound('No such quote in this workspace.');
      const sending = await ctx.quotes.sendWithin(ctx.tx, ctx.caller, args.id);
      ctx.afterCommit.push(() => ctx.quotes.mailQuoteLink(sending));
      return { id: args.id, pageUrl: sending.sent.page_url };
    },
  },
  approveQuote: {
    type: nonNull(Quote),
    description: 'Approve a DRAFT or SENT quote (ADMIN and SALES), as POST /api/v1/quotes/{id}/approve: the calculation is frozen, `quote.approved` recorded and the provider fan-out started after the commit.',
    args: { id: { type: nonNull(GraphQLID) } },
    extensions: costs.mutation(POINTS_PER_REQUEST),
    resolve: async (_root, args: { id: string }, ctx) => {
      requireOffice(ctx);
      if (!isUuid(args.id)) throw notFound('No such quote in this workspace.');
      const outcome = await approveInTenant(ctx.tx, { organizationId: ctx.caller.organizationId, quoteId: args.id, userId: ctx.caller.userId });
      if (!outcome.moved) throw approvalRefused(outcome.status);
      ctx.events.push(outcome.event);
      return (await quotesByIds(ctx.tx, [args.id]))[0]!;
    },
  },
  createWorkOrder: {
    type: nonNull(WorkOrder),
    description: 'Dispatch a job (ADMIN), as POST /api/v1/work-orders: it starts PENDING; the quote and technician must be the workspace’s.',
    args: { input: { type: nonNull(CreateWorkOrderInput) } },
    extensions: costs.mutation(POINTS_PER_REQUEST),
    resolve: async (_root, args: { input: Record<string, unknown> }, ctx) => {
      requireAdmin(ctx, 'Making a work order');
      const body = parseOrThrow(CreateWorkOrderBody, withoutNulls(args.input), 'input');
      const row = await createWorkOrderWithin(ctx.tx, ctx.caller, body);
      return (await workOrdersByIds(ctx.tx, [row.id]))[0]!;
    },
  },
  scheduleWorkOrder: {
    type: nonNull(WorkOrder),
    description:
      'Change a work order’s day, site or notes (ADMIN), as PATCH /api/v1/work-orders/{id}: only the arguments given change, null clears one. ' +
      'A DISPATCHED work order moved to another day goes back to PENDING, with `work_order.pending` and `job.status_changed`. ' +
      'A work order moved to another day, or unscheduled, leaves its crew’s route of the old day (that route fires `dispatch.updated`) and is on no route of the new day until the day is planned or sequenced.',
    args: { id: { type: nonNull(GraphQLID) }, scheduledDate: { type: GraphQLString, description: '`YYYY-MM-DD`; null unschedules.' }, siteAddress: { type: GraphQLString }, notes: { type: GraphQLString } },
    extensions: costs.mutation(POINTS_PER_REQUEST),
    resolve: async (_root, args: { id: string; scheduledDate?: string | null; siteAddress?: string | null; notes?: string | null }, ctx) => {
      requireAdmin(ctx, 'Scheduling a work order');
      if (!isUuid(args.id)) throw notFound('No such work order in this workspace.');
      const { id, ...fields } = args;
      const body = parseOrThrow(EditWorkOrderBody, present(fields), 'args');
      const { events } = await editWorkOrderWithin(ctx.tx, ctx.caller, id, body);
      ctx.events.push(...events);
      return (await workOrdersByIds(ctx.tx, [id]))[0]!;
    },
  },
};
