import { GraphQLEnumType, GraphQLID, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import { WORK_ORDER_STATUSES, type WorkOrderStatus } from '../../../domain/work-orders/status-table';
import { CREATED_KEYSET, workOrderPage, type WorkOrderRecord } from '../../../db/work-orders/work-orders';
import { pageOf } from '../../../db/cursor';
import { CONNECTION_SIZE, connectionArgs, connectionCost, connectionOf, positionOf } from '../connection';
import { iso } from '../../../domain/timestamps';
import { DateTime, isUuid, nonNull, requireOffice, sizeArg, type Context } from './common';
import { lateTypes } from './late-types';
import { Person } from './people';
import { Quote } from './quotes';

/** Work orders (section 3.2): ADMIN and SALES see all, a TECHNICIAN those assigned to them (D4). */

export const WorkOrderStatusEnum = new GraphQLEnumType({ name: 'WorkOrderStatus', values: Object.fromEntries(WORK_ORDER_STATUSES.map((s) => [s, { value: s }])) });

export const WorkOrder = new GraphQLObjectType<WorkOrderRecord, Context>({
  name: 'WorkOrder',
  description: 'A work order: ADMIN and SALES see all, a TECHNICIAN those assigned to them.',
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
lateTypes.WorkOrder = WorkOrder;

const WorkOrderConnection = connectionOf(WorkOrder);

/** A technician reads only work orders assigned to them (D4); anyone else every one of the tenant. */
const visibleTo = (ctx: Context, order: WorkOrderRecord | null) =>
  order && (ctx.caller.role !== 'TECHNICIAN' || order.assigned_technician_id === ctx.caller.userId) ? order : null;

export const workOrderQueries: GraphQLFieldConfigMap<unknown, Context> = {
  workOrders: {
    type: nonNull(WorkOrderConnection),
    description: 'Work orders, oldest first; a TECHNICIAN gets only those assigned to them.',
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
};
