import { auditContext } from '../http/audit-actor';
import { route, type RouteHost } from '../http/route';
import { ADMIN_ONLY, FIELD } from '../http/roles';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import type { WorkOrderService } from './work-order-service';
import { linkNext, PageHeaders } from '../http/pagination';
import {
  CreateWorkOrderBody, EditWorkOrderBody, UpdateWorkOrderStatusBody, WorkOrder, WorkOrderCreated, WorkOrderHistory, WorkOrderHistoryQuery, WorkOrderList, WorkOrderListQuery, WorkOrderStatusResult,
} from './schemas';
import {
  CREATE_WORK_ORDER_EXAMPLE, HISTORY_EXAMPLE, WORK_ORDER_EXAMPLE, STATUS_RESULT_EXAMPLE, UPDATE_STATUS_EXAMPLE, WORK_ORDER_CREATED_EXAMPLE, WORK_ORDER_LIST_EXAMPLE,
} from './examples';

const error = (description: string) => ({ description, schema: ErrorEnvelopeSchema });

export function workOrderRoutes(host: RouteHost, deps: { workOrders: WorkOrderService }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/work-orders',
    operationId: 'listWorkOrders',
    summary: 'Scheduled work, soonest first (unscheduled last); a TECHNICIAN sees only their own',
    description:
      'ADMIN and SALES see every work order of the workspace, a TECHNICIAN only those assigned to them. No cost, margin or quote total. ' +
      'At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`); follow it until it is absent.',
    tags: ['work orders'],
    auth: 'bearer',
    query: WorkOrderListQuery,
    responses: {
      200: { description: 'A page of work orders', schema: WorkOrderList, example: WORK_ORDER_LIST_EXAMPLE, headers: PageHeaders },
      400: error('A cursor this list did not hand out'),
    },
    handler: async ({ req, res, caller, query }) => {
      const { data, next } = await deps.workOrders.list(caller, query);
      linkNext(req, res, next);
      res.json({ data });
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/work-orders',
    operationId: 'createWorkOrder',
    summary: 'Dispatch a job (ADMIN); it starts PENDING',
    description: 'Every field is optional. The quote and the technician must be of this workspace (404 names which was not); the assignee must be an active TECHNICIAN (400).',
    tags: ['work orders'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
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
    method: 'get',
    path: '/api/v1/work-orders/:id',
    operationId: 'getWorkOrder',
    summary: 'One work order; a TECHNICIAN reads only their own',
    description: 'The work order as the list shows it. ADMIN and SALES read any work order of the workspace, a TECHNICIAN only one assigned to them. No cost, margin or quote total.',
    tags: ['work orders'],
    auth: 'bearer',
    params: IdParams,
    responses: {
      200: { description: 'The work order', schema: WorkOrder, example: WORK_ORDER_EXAMPLE },
      403: error('A technician who is not the one assigned'),
      404: error('No such work order in the tenant'),
    },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.workOrders.get(caller, params.id));
    },
  });

  route(host, {
    method: 'patch',
    path: '/api/v1/work-orders/:id',
    operationId: 'editWorkOrder',
    summary: 'Change a work order’s day, site, notes or customer (ADMIN)',
    description:
      'Only the fields sent change; null clears one. The history gains an entry naming each change. A DISPATCHED work order moved to another day goes back to PENDING ' +
      '(it must be dispatched again for the new day), with `work_order.pending` and `job.status_changed` as that status change records. ' +
      'A work order moved to another day, or unscheduled, leaves its crew\'s route of the old day (that route fires `dispatch.updated`, reason `reassignment`) and is on no route of the new day until the day is planned or sequenced. ' +
      'A COMPLETED or CANCELLED work order is final: 409. ' +
      '`customerId` is the customer a work order without a quote is invoiced to at completion: a customer of the workspace (404 otherwise), or null to clear it before completion. ' +
      'It may also be set on a COMPLETED work order whose time-and-materials invoice waits for a customer, which issues that invoice; 409 for a work order with a quote (invoiced to its quote’s customer), a CANCELLED one, or a COMPLETED one already billed. ' +
      'A change records `job.customer_changed`, a history entry and an audit event (`work_order.customer_changed`).',
    tags: ['work orders'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    body: EditWorkOrderBody,
    bodyExample: { scheduledDate: '2026-12-10', notes: 'Customer asked for the afternoon' },
    responses: {
      200: { description: 'The work order after the change', schema: WorkOrder, example: WORK_ORDER_EXAMPLE },
      404: error('No such work order, or customerId names no customer, in the tenant'),
      409: error('The work order is COMPLETED or CANCELLED, or (customerId) has a quote or an invoice already billed'),
    },
    handler: async ({ req, res, caller, params, body }) => {
      res.json(await deps.workOrders.edit(caller, params.id, body, auditContext(req)));
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/work-orders/:id/history',
    operationId: 'listWorkOrderHistory',
    summary: "A work order's history, oldest first: creation, each status change with who and when, and the notes sent with them",
    description:
      'Who may read it is who may read the work order: ADMIN and SALES any, a TECHNICIAN only one assigned to them. ' +
      'Notes sent with a repeated status are an entry whose from_status and to_status are equal. Paged like the lists (`Link` rel="next").',
    tags: ['work orders'],
    auth: 'bearer',
    params: IdParams,
    query: WorkOrderHistoryQuery,
    responses: {
      200: { description: 'A page of history entries', schema: WorkOrderHistory, example: HISTORY_EXAMPLE, headers: PageHeaders },
      400: error('A cursor this list did not hand out'),
      403: error('A technician who is not the one assigned'),
      404: error('No such work order in the tenant'),
    },
    handler: async ({ req, res, caller, params, query }) => {
      const { data, next } = await deps.workOrders.history(caller, params.id, query);
      linkNext(req, res, next);
      res.json({ data });
    },
  });

  route(host, {
    method: 'patch',
    path: '/api/v1/work-orders/:id/status',
    operationId: 'updateWorkOrderStatus',
    summary: 'Move a work order to another status (ADMIN any; TECHNICIAN only their own)',
    description:
      'PENDING to DISPATCHED or CANCELLED; DISPATCHED to COMPLETED, PENDING or CANCELLED. A real move emits `work_order.<status>`; ' +
      'the same status again answers `unchanged: true` and emits nothing. `notes` are kept in the history either way (GET .../history).',
    tags: ['work orders'],
    auth: 'bearer',
    roles: FIELD,
    params: IdParams,
    body: UpdateWorkOrderStatusBody,
    bodyExample: UPDATE_STATUS_EXAMPLE,
    responses: {
      200: { description: 'Moved, or unchanged for a repeated status', schema: WorkOrderStatusResult, example: STATUS_RESULT_EXAMPLE },
      403: error('A technician who is not the one assigned, or SALES'),
      404: error('No such work order in the tenant'),
      409: error('A move the work order status table does not permit'),
    },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.workOrders.updateStatus(caller, params.id, body));
    },
  });
}
