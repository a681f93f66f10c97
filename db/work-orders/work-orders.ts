import type { EntityManager } from '@mikro-orm/postgresql';
import { cursorTimestamp } from '../cursor-timestamp';
import type { WorkOrderStatus } from '../../domain/work-orders/status-table';

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
const COLUMNS = `id, status, scheduled_date::text as scheduled_date, site_address, notes, assigned_technician_id, quote_id, dispatched_at, completed_at`;


export interface WorkOrderFilter {
  status?: WorkOrderStatus | undefined;
  /** A calendar day, `YYYY-MM-DD`. */
  scheduledOn?: string | undefined;
  assignedTechnicianId?: string | undefined;
  limit: number;
}

/** Where a page of work orders ended: its scheduled day (null when unscheduled), created_at, id. */
export type WorkOrderPosition = readonly [string | null, string, string];

/**
 * One page of work orders (`limit` + 1 rows, so the caller sees whether more follow): scheduled
 * first by day (unscheduled last), then oldest first, after `after` when given. Each row carries
 * its created_at at microsecond precision for the next cursor.
 */
export function workOrderPage(em: EntityManager, filter: WorkOrderFilter & { after?: WorkOrderPosition | undefined }): Promise<(WorkOrderRow & { cursor_created_at: string })[]> {
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
  if (filter.after) {
    const [day, createdAt, id] = filter.after;
    if (day === null) {
      conditions.push('(scheduled_date is null and (created_at, id) > (?::timestamptz, ?::uuid))');
      params.push(createdAt, id);
    } else {
      conditions.push('(scheduled_date > ?::date or (scheduled_date = ?::date and (created_at, id) > (?::timestamptz, ?::uuid)) or scheduled_date is null)');
      params.push(day, day, createdAt, id);
    }
  }
  const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
  return em.execute<(WorkOrderRow & { cursor_created_at: string })[]>(
    `select ${COLUMNS}, ${cursorTimestamp('created_at')} as cursor_created_at
       from work_orders ${where} order by scheduled_date asc nulls last, created_at asc, id asc limit ?`,
    [...params, filter.limit + 1],
  );
}

/** Whom a work order is assigned to; undefined when there is no such work order in the tenant. */
export async function workOrderAssignee(em: EntityManager, id: string): Promise<{ assigned_technician_id: string | null } | undefined> {
  const [order] = await em.execute<{ assigned_technician_id: string | null }[]>('select assigned_technician_id from work_orders where id = ?', [id]);
  return order;
}

export interface WorkOrderHistoryRow {
  id: string;
  sequence: string;
  from_status: WorkOrderStatus | null;
  to_status: WorkOrderStatus;
  changed_by_user_id: string;
  changed_by_name: string;
  changed_at: Date;
  notes: string | null;
}

/** One page of a work order's history, oldest first (`limit` + 1 rows), after a sequence number. */
export function workOrderHistoryPage(em: EntityManager, id: string, afterSequence: string | undefined, limit: number): Promise<WorkOrderHistoryRow[]> {
  return em.execute<WorkOrderHistoryRow[]>(
    `select h.id, h.sequence::text as sequence, h.from_status, h.to_status, h.changed_by_user_id, u.full_name as changed_by_name, h.changed_at, h.notes
       from work_order_history h join users u on u.id = h.changed_by_user_id
      where h.work_order_id = ? ${afterSequence !== undefined ? 'and h.sequence > ?::bigint' : ''}
      order by h.sequence asc limit ?`,
    afterSequence !== undefined ? [id, afterSequence, limit + 1] : [id, limit + 1],
  );
}

export interface NewWorkOrder {
  quoteId: string | null;
  assignedTechnicianId: string | null;
  scheduledDate: string | null;
  siteAddress: string | null;
  notes: string | null;
  createdByUserId: string;
  /** D11: the job's crew and site. */
  crewId?: string | null;
  siteId?: string | null;
}

/** A new PENDING work order; its creation is recorded in the history (from nothing to PENDING). */
export async function insertWorkOrder(em: EntityManager, order: NewWorkOrder): Promise<WorkOrderRow> {
  const [row] = await em.execute<WorkOrderRow[]>(
    `insert into work_orders (organization_id, status, quote_id, assigned_technician_id, scheduled_date, site_address, notes, created_by_user_id, crew_id, site_id)
     values (app_current_organization(), 'PENDING', ?, ?, ?::date, ?, ?, ?, ?, ?) returning ${COLUMNS}`,
    [order.quoteId, order.assignedTechnicianId, order.scheduledDate, order.siteAddress, order.notes, order.createdByUserId, order.crewId ?? null, order.siteId ?? null],
  );
  await em.execute(
    `insert into job_history (organization_id, work_order_id, kind, to_status, changed_by_user_id, detail) values (app_current_organization(), ?, 'created', 'scheduled', ?, ?::jsonb)`,
    [row!.id, order.createdByUserId, JSON.stringify({ crew_id: order.crewId ?? null, site_id: order.siteId ?? null })],
  );
  await em.execute(
    `insert into work_order_history (organization_id, work_order_id, from_status, to_status, changed_by_user_id, notes)
     values (app_current_organization(), ?, null, 'PENDING', ?, ?)`,
    [row!.id, order.createdByUserId, order.notes],
  );
  return row!;
}


/** Notes sent with a repeated status: an entry whose from and to are equal. */
export async function recordWorkOrderNote(em: EntityManager, entry: { workOrderId: string; status: WorkOrderStatus; changedByUserId: string; notes: string }): Promise<void> {
  await em.execute(
    `insert into work_order_history (organization_id, work_order_id, from_status, to_status, changed_by_user_id, notes)
     values (app_current_organization(), ?, ?, ?, ?, ?)`,
    [entry.workOrderId, entry.status, entry.status, entry.changedByUserId, entry.notes],
  );
}
