import type { EntityManager } from '@mikro-orm/postgresql';
import type { WorkOrderStatus } from './status-table';

/**
 * The `work_orders` table and its append-only `work_order_history` (section 4.4, D4). Every
 * function runs inside the tenant transaction of the caller (db/tenant-scope.ts).
 */

export interface WorkOrderRow {
  id: string;
  status: WorkOrderStatus;
  scheduled_date: string | null;
  site_address: string | null;
  notes: string | null;
  assigned_technician_id: string | null;
  quote_id: string | null;
  dispatched_at: Date | null;
  completed_at: Date | null;
}

// The date column comes back as text so no time zone can shift the day.
export const COLUMNS = `id, status, scheduled_date::text as scheduled_date, site_address, notes, assigned_technician_id, quote_id, dispatched_at, completed_at`;

/** Time columns each target status sets (the completion time is the server's, never the client's). */
const STAMPS: Record<WorkOrderStatus, string> = {
  DISPATCHED: 'dispatched_at = now()',
  COMPLETED: 'completed_at = now()',
  // Back to the queue: no longer dispatched (the history keeps when it was).
  PENDING: 'dispatched_at = null',
  CANCELLED: 'cancelled_at = now()',
};

export interface WorkOrderFilter {
  status?: WorkOrderStatus | undefined;
  /** A calendar day, `YYYY-MM-DD`. */
  scheduledOn?: string | undefined;
  assignedTechnicianId?: string | undefined;
  limit: number;
}

/** Scheduled first by day (unscheduled last), then oldest first. */
export function listWorkOrders(em: EntityManager, filter: WorkOrderFilter): Promise<WorkOrderRow[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    conditions.push('status = ?');
    params.push(filter.status);
  }
  if (filter.scheduledOn) {
    conditions.push('scheduled_date = ?::date');
    params.push(filter.scheduledOn);
  }
  if (filter.assignedTechnicianId) {
    conditions.push('assigned_technician_id = ?');
    params.push(filter.assignedTechnicianId);
  }
  const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
  return em.execute<WorkOrderRow[]>(
    `select ${COLUMNS} from work_orders ${where} order by scheduled_date asc nulls last, created_at asc, id asc limit ?`,
    [...params, filter.limit],
  );
}

export interface NewWorkOrder {
  quoteId: string | null;
  assignedTechnicianId: string | null;
  scheduledDate: string | null;
  siteAddress: string | null;
  notes: string | null;
  createdByUserId: string;
}

/** A new PENDING work order; its creation is recorded in the history (from nothing to PENDING). */
export async function insertWorkOrder(em: EntityManager, order: NewWorkOrder): Promise<WorkOrderRow> {
  const [row] = await em.execute<WorkOrderRow[]>(
    `insert into work_orders (organization_id, status, quote_id, assigned_technician_id, scheduled_date, site_address, notes, created_by_user_id)
     values (app_current_organization(), 'PENDING', ?, ?, ?::date, ?, ?, ?) returning ${COLUMNS}`,
    [order.quoteId, order.assignedTechnicianId, order.scheduledDate, order.siteAddress, order.notes, order.createdByUserId],
  );
  await em.execute(
    `insert into work_order_history (organization_id, work_order_id, from_status, to_status, changed_by_user_id, notes)
     values (app_current_organization(), ?, null, 'PENDING', ?, ?)`,
    [row!.id, order.createdByUserId, order.notes],
  );
  return row!;
}

/** The work order, locked until the transaction ends. */
export async function lockWorkOrder(em: EntityManager, id: string): Promise<WorkOrderRow | undefined> {
  const [row] = await em.execute<WorkOrderRow[]>(`select ${COLUMNS} from work_orders where id = ? for update`, [id]);
  return row;
}

/** Notes sent with a repeated status: an entry whose from and to are equal. */
export async function recordWorkOrderNote(em: EntityManager, entry: { workOrderId: string; status: WorkOrderStatus; changedByUserId: string; notes: string }): Promise<void> {
  await em.execute(
    `insert into work_order_history (organization_id, work_order_id, from_status, to_status, changed_by_user_id, notes)
     values (app_current_organization(), ?, ?, ?, ?, ?)`,
    [entry.workOrderId, entry.status, entry.status, entry.changedByUserId, entry.notes],
  );
}

/** Moves the work order (with the time columns of its target status) and records the move; returns when it was recorded. */
export async function moveWorkOrder(
  em: EntityManager,
  move: { workOrderId: string; from: WorkOrderStatus; to: WorkOrderStatus; changedByUserId: string; notes: string | null },
): Promise<Date> {
  await em.execute(`update work_orders set status = ?, ${STAMPS[move.to]}, updated_at = now() where id = ?`, [move.to, move.workOrderId]);
  const [entry] = await em.execute<{ changed_at: Date }[]>(
    `insert into work_order_history (organization_id, work_order_id, from_status, to_status, changed_by_user_id, notes)
     values (app_current_organization(), ?, ?, ?, ?, ?) returning changed_at`,
    [move.workOrderId, move.from, move.to, move.changedByUserId, move.notes],
  );
  return new Date(entry!.changed_at);
}
