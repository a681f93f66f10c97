import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { badRequest, conflict, forbidden, notFound } from '../http/errors';
import type { Caller } from '../http/request-context';
import { recordEvent } from '../../db/events/outbox';
import type { EventEnvelope } from '../../db/events/catalogue';
import type { EventDispatcher } from '../../activities/events/dispatcher';
import { decideTransition, type WorkOrderStatus } from '../../db/work-orders/status-table';
import { insertWorkOrder, listWorkOrders, lockWorkOrder, moveWorkOrder, recordWorkOrderNote, type WorkOrderRow } from '../../db/work-orders/work-orders';
import { quoteExists } from '../../db/quotes/quotes';
import { userRoleAndActive } from '../../db/users';
import type { CreateWorkOrderBody, UpdateWorkOrderStatusBody, WorkOrder, WorkOrderListQuery } from './schemas';

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);
const dayAsTimestamp = (day: string | null) => (day ? `${day}T00:00:00.000Z` : null);

function toWorkOrder(row: WorkOrderRow): WorkOrder {
  return {
    id: row.id,
    status: row.status,
    scheduled_date: dayAsTimestamp(row.scheduled_date),
    site_address: row.site_address,
    notes: row.notes,
    assigned_technician_id: row.assigned_technician_id,
    quote_id: row.quote_id,
    dispatched_at: iso(row.dispatched_at),
    completed_at: iso(row.completed_at),
  };
}

/** Section 4.4 and D4. */
export class WorkOrderService {
  constructor(
    private readonly em: EntityManager,
    private readonly events?: EventDispatcher,
  ) {}

  list(caller: Caller, query: WorkOrderListQuery): Promise<{ data: WorkOrder[] }> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const rows = await listWorkOrders(tx, {
        status: query.status,
        scheduledOn: query.scheduledOn,
        // D4: a technician sees only their own jobs.
        assignedTechnicianId: caller.role === 'TECHNICIAN' ? caller.userId : undefined,
        limit: query.limit,
      });
      return { data: rows.map(toWorkOrder) };
    });
  }

  create(caller: Caller, body: CreateWorkOrderBody) {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      if (body.quoteId) {
        if (!(await quoteExists(tx, body.quoteId))) throw notFound('quoteId: no such quote in this workspace.');
      }
      if (body.assignedTechnicianId) {
        const user = await userRoleAndActive(tx, body.assignedTechnicianId);
        if (!user) throw notFound('assignedTechnicianId: no such user in this workspace.');
        if (user.role !== 'TECHNICIAN') throw badRequest('assignedTechnicianId: the assignee is not a TECHNICIAN.');
        if (!user.active) throw badRequest('assignedTechnicianId: the assignee is deactivated.');
      }
      const row = await insertWorkOrder(tx, {
        quoteId: body.quoteId ?? null,
        assignedTechnicianId: body.assignedTechnicianId ?? null,
        scheduledDate: body.scheduledDate ?? null,
        siteAddress: body.siteAddress ?? null,
        notes: body.notes ?? null,
        createdByUserId: caller.userId,
      });
      return { id: row.id, status: row.status, scheduled_date: dayAsTimestamp(row.scheduled_date), assigned_technician_id: row.assigned_technician_id };
    });
  }

  /**
   * One PATCH: the row is locked first, so concurrent PATCHes of one work order apply one after
   * the other, each judged against the status the previous one left.
   */
  async updateStatus(caller: Caller, id: string, body: UpdateWorkOrderStatusBody): Promise<{ id: string; status: WorkOrderStatus; unchanged: boolean }> {
    const { result, event } = await this.applyStatus(caller, id, body);
    // After the commit: deliver at once (the outbox relay covers a failure here).
    if (event) await this.events?.tryDispatch(event);
    return result;
  }

  private applyStatus(caller: Caller, id: string, body: UpdateWorkOrderStatusBody): Promise<{ result: { id: string; status: WorkOrderStatus; unchanged: boolean }; event?: EventEnvelope }> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const row = await lockWorkOrder(tx, id);
      if (!row) throw notFound('No such work order in this workspace.');
      if (caller.role === 'TECHNICIAN' && row.assigned_technician_id !== caller.userId) throw forbidden('Only the assigned technician may change this work order.');

      const decision = decideTransition(row.status, body.status);
      if (decision.kind === 'refused') throw conflict(decision.reason);
      if (decision.kind === 'unchanged') {
        // Notes sent with a repeated status are kept, as a note entry, not a transition.
        if (body.notes) {
          await recordWorkOrderNote(tx, { workOrderId: id, status: row.status, changedByUserId: caller.userId, notes: body.notes });
        }
        return { result: { id, status: row.status, unchanged: true } };
      }

      const changedAt = await moveWorkOrder(tx, { workOrderId: id, from: row.status, to: body.status, changedByUserId: caller.userId, notes: body.notes ?? null });
      // Section 6.2: no cost, margin or quote total in work-order events.
      const event = await recordEvent(
        tx,
        caller.organizationId,
        decision.event,
        {
          work_order_id: id,
          status: body.status,
          quote_id: row.quote_id,
          assigned_technician_id: row.assigned_technician_id,
          changed_by_user_id: caller.userId,
          changed_at: changedAt.toISOString(),
        },
        changedAt,
      );
      return { result: { id, status: body.status, unchanged: false }, event };
    });
  }
}
