import { route, type RouteHost } from '../http/route';
import { ADMIN_ONLY, FIELD } from '../http/roles';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import type { WorkOrderService } from './work-order-service';
import { CreateWorkOrderBody, UpdateWorkOrderStatusBody, WorkOrderCreated, WorkOrderList, WorkOrderListQuery, WorkOrderStatusResult } from './schemas';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

export function workOrderRoutes(host: RouteHost, deps: { workOrders: WorkOrderService }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/work-orders',
    summary: 'Scheduled work, soonest first (unscheduled last); a TECHNICIAN sees only their own (D4)',
    tags: ['work orders'],
    auth: 'bearer',
    query: WorkOrderListQuery,
    responses: { 200: { description: 'Work orders', schema: WorkOrderList } },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.workOrders.list(caller, query));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/work-orders',
    summary: 'Dispatch a job (ADMIN); it starts PENDING (D4)',
    tags: ['work orders'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    body: CreateWorkOrderBody,
    responses: {
      201: { description: 'Created', schema: WorkOrderCreated },
      400: error('The assignee is not a TECHNICIAN or is deactivated'),
      404: error('quoteId or assignedTechnicianId is not in the tenant (the message names which)'),
    },
    handler: async ({ res, caller, body }) => {
      res.status(201).json(await deps.workOrders.create(caller, body));
    },
  });

  route(host, {
    method: 'patch',
    path: '/api/v1/work-orders/:id/status',
    summary: 'Move a work order along section 3.2 (ADMIN any; TECHNICIAN only their own, D4)',
    tags: ['work orders'],
    auth: 'bearer',
    roles: FIELD,
    params: IdParams,
    body: UpdateWorkOrderStatusBody,
    responses: {
      200: { description: 'Moved, or unchanged for a repeated status', schema: WorkOrderStatusResult },
      403: error('A technician who is not the one assigned, or SALES'),
      404: error('No such work order in the tenant'),
      409: error('Transition not permitted by section 3.2'),
    },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.workOrders.updateStatus(caller, params.id, body));
    },
  });
}
