import { route, type RouteHost } from '../http/route';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import type { WorkOrderService } from './work-order-service';
import { CreateWorkOrderBody, UpdateWorkOrderStatusBody, WorkOrderCreated, WorkOrderList, WorkOrderListQuery, WorkOrderStatusResult } from './schemas';
import { CREATE_WORK_ORDER_EXAMPLE, STATUS_RESULT_EXAMPLE, UPDATE_STATUS_EXAMPLE, WORK_ORDER_CREATED_EXAMPLE, WORK_ORDER_LIST_EXAMPLE } from './examples';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

export function workOrderRoutes(host: RouteHost, deps: { workOrders: WorkOrderService }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/work-orders',
    operationId: 'listWorkOrders',
    summary: 'Scheduled work, soonest first (unscheduled last); a TECHNICIAN sees only their own (D4)',
    description: 'Section 4.4 and D4. ADMIN and SALES see every work order of the workspace, a TECHNICIAN only those assigned to them. No cost, margin or quote total.',
    tags: ['work orders'],
    auth: 'bearer',
    query: WorkOrderListQuery,
    responses: { 200: { description: 'Work orders', schema: WorkOrderList, example: WORK_ORDER_LIST_EXAMPLE } },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.workOrders.list(caller, query));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/work-orders',
    operationId: 'createWorkOrder',
    summary: 'Dispatch a job (ADMIN); it starts PENDING (D4)',
    description: 'Section 4.4: every field is optional. The quote and the technician must be of this workspace (404 names which was not); the assignee must be an active TECHNICIAN (400).',
    tags: ['work orders'],
    auth: 'bearer',
    roles: ['ADMIN'],
    body: CreateWorkOrderBody,
    bodyExample: CREATE_WORK_ORDER_EXAMPLE,
    responses: {
      201: { description: 'Created', schema: WorkOrderCreated, example: WORK_ORDER_CREATED_EXAMPLE },
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
    operationId: 'updateWorkOrderStatus',
    summary: 'Move a work order along section 3.2 (ADMIN any; TECHNICIAN only their own, D4)',
    description:
      'Section 3.2: PENDING to DISPATCHED or CANCELLED; DISPATCHED to COMPLETED, PENDING or CANCELLED. A real move emits `work_order.<status>`; ' +
      'the same status again answers `unchanged: true` and emits nothing. `notes` are kept in the history either way (GET .../history).',
    tags: ['work orders'],
    auth: 'bearer',
    roles: ['ADMIN', 'TECHNICIAN'],
    params: IdParams,
    body: UpdateWorkOrderStatusBody,
    bodyExample: UPDATE_STATUS_EXAMPLE,
    responses: {
      200: { description: 'Moved, or unchanged for a repeated status', schema: WorkOrderStatusResult, example: STATUS_RESULT_EXAMPLE },
      403: error('A technician who is not the one assigned, or SALES'),
      404: error('No such work order in the tenant'),
      409: error('Transition not permitted by section 3.2'),
    },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.workOrders.updateStatus(caller, params.id, body));
    },
  });
}
