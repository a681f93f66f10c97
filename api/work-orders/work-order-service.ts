import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { badRequest, conflict, forbidden, notFound } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import type { EventEnvelope } from '../../domain/events/catalogue';
import { cursorPosition } from '../http/pagination';
import { pageOf } from '../../db/cursor';
import type { CreateWorkOrderBody, EditWorkOrderBody, UpdateWorkOrderStatusBody, WorkOrder, WorkOrderHistoryEntry, WorkOrderHistoryQuery, WorkOrderListQuery } from './schemas';
import { lockJob, lockJobClock, moveJob, type LockedJob } from '../../db/fsm/jobs';
import { setJobCustomer } from '../../db/fsm/job-customer';
import type { AuditActor } from '../../domain/audit/audit-entry';
import { crewLedBy, siteForAddress } from '../../db/fsm/crews';
import { jobStatusAfterWorkOrderMove } from '../../domain/jobs/job-status-table';
import type { EventDispatcher } from '../../infra/events/dispatcher';
import { decideTransition, type WorkOrderStatus } from '../../domain/work-orders/status-table';
import { insertWorkOrder, recordWorkOrderNote, SCHEDULE_KEYSET, WORK_ORDER_HISTORY_KEYSET, workOrderAssignee, workOrderHistoryPage, updateWorkOrderDetails, workOrderPage, workOrdersByIds, type WorkOrderRow } from '../../db/work-orders/work-orders';
import { quoteExists } from '../../db/quotes/quotes';
import { customersByIds } from '../../db/quotes/customer-directory';
import { userRoleAndActive } from '../../db/users';
import { iso } from '../../domain/timestamps';
import { decideEdit, describeEdit } from '../../domain/work-orders/edit';
import { GREAT_CIRCLE_TRAVEL, recomputeEtasWithEvents, redateJob, type TravelConfig } from '../../infra/routing/routing-day';

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
    customer_id: row.customer_id,
    dispatched_at: iso(row.dispatched_at),
    completed_at: iso(row.completed_at),
  };
}



/** Section 4.4 and D4. */
export class WorkOrderService {
  constructor(
    private readonly em: EntityManager,
    private readonly events?: EventDispatcher,
    /** Where a route's ETA recomputation reads travel times (D23): as the routes' own plans do. */
    private readonly travel: TravelConfig = GREAT_CIRCLE_TRAVEL,
  ) {}

  /**
   * Soonest first, unscheduled last, then by creation: keyset-paged on that order, so work orders
   * created or rescheduled meanwhile never make a page repeat or skip what is left of the others.
   */
  list(caller: Caller, query: WorkOrderListQuery): Promise<{ data: WorkOrder[]; next: string | null }> {
    const after = query.cursor ? cursorPosition(SCHEDULE_KEYSET, query.cursor) : undefined;
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const rows = await workOrderPage(tx, {
        status: query.status,
        scheduledOn: query.scheduledOn,
        // D4: a technician sees only their own jobs.
        assignedTechnicianId: caller.role === 'TECHNICIAN' ? caller.userId : undefined,
        limit: query.limit,
      }, { by: 'schedule', after });
      const { rows: page, next } = pageOf(rows, query.limit, SCHEDULE_KEYSET);
      return { data: page.map(toWorkOrder), next };
    });
  }

  /** One work order, readable by whoever may read it (D4): ADMIN and SALES any, a TECHNICIAN only their own (403). */
  get(caller: Caller, id: string): Promise<WorkOrder> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const [row] = await workOrdersByIds(tx, [id]);
      if (!row) throw notFound('No such work order in this workspace.');
      if (caller.role === 'TECHNICIAN' && row.assigned_technician_id !== caller.userId) throw forbidden('Only the assigned technician may read this work order.');
      return toWorkOrder(row);
    });
  }

  /**
   * Every entry of a work order's history, oldest first: its creation, each transition with who
   * and when, and notes sent with a repeated status. Readable by whoever may read the work order
   * (D4): ADMIN and SALES any, a TECHNICIAN only one assigned to them (403 otherwise).
   */
  history(caller: Caller, id: string, query: WorkOrderHistoryQuery): Promise<{ data: WorkOrderHistoryEntry[]; next: string | null }> {
    const after = query.cursor ? cursorPosition(WORK_ORDER_HISTORY_KEYSET, query.cursor) : undefined;
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const order = await workOrderAssignee(tx, id);
      if (!order) throw notFound('No such work order in this workspace.');
      if (caller.role === 'TECHNICIAN' && order.assigned_technician_id !== caller.userId) throw forbidden('Only the assigned technician may read this work order.');
      const rows = await workOrderHistoryPage(tx, id, after?.[0], query.limit);
      const { rows: page, next } = pageOf(rows, query.limit, WORK_ORDER_HISTORY_KEYSET);
      return {
        data: page.map((row) => ({
          id: row.id,
          from_status: row.from_status,
          to_status: row.to_status,
          changed_by: { id: row.changed_by_user_id, name: row.changed_by_name },
          changed_at: new Date(row.changed_at).toISOString(),
          notes: row.notes,
        })),
        next,
      };
    });
  }

  create(caller: Caller, body: CreateWorkOrderBody) {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const row = await createWorkOrderWithin(tx, caller, body);
      return { id: row.id, status: row.status, scheduled_date: dayAsTimestamp(row.scheduled_date), assigned_technician_id: row.assigned_technician_id };
    });
  }

  /**
   * PATCH /api/v1/work-orders/{id} (ADMIN): the day, site and notes, with a history entry naming
   * what changed. domain/work-orders/edit.ts decides: a final work order is not edited (409), and
   * a dispatched one moved to another day goes back to PENDING through the same job move, history
   * and events as that status change. Locks as every job writer does: the sync clock, then the row.
   */
  async edit(caller: Caller, id: string, body: EditWorkOrderBody, audit: { actor: AuditActor; requestId: string | null }): Promise<WorkOrder> {
    const { order, events } = await inTenant(this.em, caller.organizationId, (tx) => editWorkOrderWithin(tx, caller, id, body, audit));
    await this.events?.tryDispatchAll(events);
    return order;
  }

  /**
   * One PATCH: the row is locked first, so concurrent PATCHes of one work order apply one after
   * the other, each judged against the status the previous one left.
   */
  async updateStatus(caller: Caller, id: string, body: UpdateWorkOrderStatusBody): Promise<{ id: string; status: WorkOrderStatus; unchanged: boolean }> {
    const { result, events } = await this.applyStatus(caller, id, body);
    // After the commit: deliver at once (the outbox relay covers a failure here).
    await this.events?.tryDispatchAll(events);
    return result;
  }

  /**
   * D11: judged by the section 3.2 table alone, the job moves to the projected status (so
   * DISPATCHED to COMPLETED completes an in_progress or on_hold job too), with the job's events.
   */
  private applyStatus(caller: Caller, id: string, body: UpdateWorkOrderStatusBody): Promise<{ result: { id: string; status: WorkOrderStatus; unchanged: boolean }; events: EventEnvelope[] }> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      // The sync clock first, then the row: every job writer takes the locks in this order.
      await lockJobClock(tx);
      const row = await lockJob(tx, id, {});
      if (!row) throw notFound('No such work order in this workspace.');
      if (caller.role === 'TECHNICIAN' && row.assigned_technician_id !== caller.userId) throw forbidden('Only the assigned technician may change this work order.');

      const decision = decideTransition(row.status, body.status);
      if (decision.kind === 'refused') throw conflict(decision.reason);
      if (decision.kind === 'unchanged') {
        // Notes sent with a repeated status are kept, as a note entry, not a transition.
        if (body.notes) {
          await recordWorkOrderNote(tx, { workOrderId: id, status: row.status, changedByUserId: caller.userId, notes: body.notes });
        }
        return { result: { id, status: row.status, unchanged: true }, events: [] };
      }
      const events = await moveJob(tx, caller.organizationId, { job: row, to: jobStatusAfterWorkOrderMove(body.status), userId: caller.userId, notes: body.notes ?? null });
      // D23: as PATCH /v1/fsm/jobs/{id}: the status moves the ETAs of the stops after it on its route.
      events.push(...(await recomputeEtasWithEvents(tx, { jobId: id, travel: this.travel })));
      return { result: { id, status: body.status, unchanged: false }, events };
    });
  }
}

/**
 * Section 4.4's create in the caller's tenant transaction `tx` (POST /api/v1/work-orders and
 * GraphQL's createWorkOrder): the quote and the technician must be the tenant's (404 names which),
 * the assignee an active TECHNICIAN (400); the job gets its crew and site (D11).
 */
export async function createWorkOrderWithin(tx: EntityManager, caller: Caller, body: CreateWorkOrderBody): Promise<WorkOrderRow> {
  if (body.quoteId) {
    if (!(await quoteExists(tx, body.quoteId))) throw notFound('quoteId: no such quote in this workspace.');
  }
  if (body.customerId && (await customersByIds(tx, [body.customerId])).length === 0) throw notFound('customerId: no such customer in this workspace.');
  if (body.assignedTechnicianId) {
    const user = await userRoleAndActive(tx, body.assignedTechnicianId);
    if (!user) throw notFound('assignedTechnicianId: no such user in this workspace.');
    if (user.role !== 'TECHNICIAN') throw badRequest('assignedTechnicianId: the assignee is not a TECHNICIAN.');
    if (!user.active) throw badRequest('assignedTechnicianId: the assignee is deactivated.');
  }
  await lockJobClock(tx);
  const crewId = body.assignedTechnicianId ? await crewLedBy(tx, body.assignedTechnicianId) : null;
  const siteId = await siteForAddress(tx, body.siteAddress ?? null);
  return insertWorkOrder(tx, {
    crewId,
    siteId,
    quoteId: body.quoteId ?? null,
    customerId: body.customerId ?? null,
    assignedTechnicianId: body.assignedTechnicianId ?? null,
    scheduledDate: body.scheduledDate ?? null,
    siteAddress: body.siteAddress ?? null,
    notes: body.notes ?? null,
    createdByUserId: caller.userId,
  });
}

/**
 * PATCH /api/v1/work-orders/{id} (and GraphQL's scheduleWorkOrder) in `tx`: the day, site and
 * notes, with a history entry naming what changed. domain/work-orders/edit.ts decides: a final
 * work order is not edited (409), and a dispatched one moved to another day goes back to PENDING
 * through the same job move, history and events as that status change; the caller dispatches the
 * events after the commit. Locks as every job writer does: the sync clock, then the row.
 * `customerId` (D11) is judged by its own rule (db/fsm/job-customer.ts), so it may be set on a
 * COMPLETED work order whose invoice waits for a customer; it is applied first and audited (D22).
 */
export async function editWorkOrderWithin(
  tx: EntityManager,
  caller: Caller,
  id: string,
  body: EditWorkOrderBody,
  audit?: { actor: AuditActor; requestId: string | null },
): Promise<{ order: WorkOrder; events: EventEnvelope[] }> {
  await lockJobClock(tx);
  const row = await lockJob(tx, id, {});
  if (!row) throw notFound('No such work order in this workspace.');
  let events: EventEnvelope[] = [];
  const { customerId, ...details } = body;
  if (customerId !== undefined) {
    if (customerId !== null && (await customersByIds(tx, [customerId])).length === 0) throw notFound('customerId: no such customer in this workspace.');
    const actor: AuditActor = audit?.actor ?? { type: 'user', id: caller.userId, email: caller.email };
    events = await setJobCustomer(tx, caller.organizationId, { job: row, customerId, userId: caller.userId, audit: { actor, requestId: audit?.requestId ?? null } });
  }
  if (Object.keys(details).length > 0) events = [...events, ...(await editDetails(tx, caller, row, details))];
  const [after] = await workOrdersByIds(tx, [id]);
  return { order: toWorkOrder(after!), events };
}

/** The day, site and notes of a locked work order (domain/work-orders/edit.ts decides); returns the events. */
async function editDetails(tx: EntityManager, caller: Caller, row: LockedJob, body: Omit<EditWorkOrderBody, 'customerId'>): Promise<EventEnvelope[]> {
  const id = row.id;
  const [before] = await workOrdersByIds(tx, [id]);
  const current = { scheduledDate: before!.scheduled_date, siteAddress: before!.site_address, notes: before!.notes };
  const decision = decideEdit(row.status, current, body);
  if (decision.kind === 'refused') throw conflict(decision.reason);
  let events: EventEnvelope[] = [];
  if (decision.changed.length > 0) {
    if (decision.to) events = await moveJob(tx, caller.organizationId, { job: row, to: jobStatusAfterWorkOrderMove(decision.to), userId: caller.userId, notes: null });
    const newSite = decision.changed.includes('siteAddress');
    // D23: a new day takes the job off its old day's route (that route told); it joins none on the new day.
    if (decision.changed.includes('scheduledDate')) events = [...events, ...(await redateJob(tx, { jobId: id, date: body.scheduledDate ?? null, userId: caller.userId }))];
    await updateWorkOrderDetails(tx, id, {
      siteAddress: newSite ? body.siteAddress : undefined,
      siteId: newSite ? await siteForAddress(tx, body.siteAddress ?? null) : undefined,
      notes: decision.changed.includes('notes') ? body.notes : undefined,
    });
    await recordWorkOrderNote(tx, { workOrderId: id, status: decision.to ?? row.status, changedByUserId: caller.userId, notes: describeEdit(current, body, decision.changed) });
  }
  return events;
}
