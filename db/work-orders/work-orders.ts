import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type ExpressionBuilder } from 'kysely';
import { z } from 'zod';
import { beyond, CursorTimestamp, keyset, microseconds, TimeAndId } from '../cursor';
import { tablesOf, type Tables } from '../tables';
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
  customer_id: string | null;
  dispatched_at: Date | null;
  completed_at: Date | null;
}

// The date column comes back as text so no time zone can shift the day.
const COLUMNS = `id, status, scheduled_date::text as scheduled_date, site_address, notes, assigned_technician_id, quote_id, customer_id, dispatched_at, completed_at`;


/** A work order as its lists show it (section 4.4 and GraphQL's), with its list positions. */
export interface WorkOrderRecord extends WorkOrderRow {
  created_at: Date;
  cancelled_at: Date | null;
  /** created_at to the microsecond, for both orders' positions. */
  cursor_created_at: string;
}

/** Section 4.4's order: soonest scheduled day first (unscheduled last), then (created_at, id). */
export const SCHEDULE_KEYSET = keyset(z.tuple([z.iso.date().nullable(), CursorTimestamp, z.uuid()]), (row: WorkOrderRecord) => [row.scheduled_date, row.cursor_created_at, row.id] as const);
/** Oldest first by creation (GraphQL's walk of every work order): (created_at, id). */
export const CREATED_KEYSET = keyset(TimeAndId, (row: WorkOrderRecord) => [row.cursor_created_at, row.id] as const);

export type WorkOrderPosition = z.output<typeof SCHEDULE_KEYSET.position>;

export type WorkOrderListOrder =
  | { by: 'schedule'; after?: WorkOrderPosition | undefined }
  | { by: 'created'; after?: z.output<typeof CREATED_KEYSET.position> | undefined };

export interface WorkOrderFilter {
  status?: WorkOrderStatus | undefined;
  /** A calendar day, `YYYY-MM-DD`. */
  scheduledOn?: string | undefined;
  /** D4: a technician's own. */
  assignedTechnicianId?: string | undefined;
  limit: number;
}

function workOrders(em: EntityManager) {
  return tablesOf(em)
    .selectFrom('work_orders as w')
    .select((eb) => [
      'w.id',
      eb.ref('w.status').$castTo<WorkOrderStatus>().as('status'),
      // The date comes back as text so no time zone can shift the day.
      sql<string | null>`${eb.ref('w.scheduled_date')}::text`.as('scheduled_date'),
      'w.site_address',
      'w.notes',
      'w.assigned_technician_id',
      'w.quote_id',
      'w.customer_id',
      'w.created_at',
      'w.dispatched_at',
      'w.completed_at',
      'w.cancelled_at',
      microseconds(eb.ref('w.created_at')).as('cursor_created_at'),
    ]);
}

/**
 * The one list query of `work_orders`: a page (`limit` + 1 rows, so the caller sees whether more
 * follow) in `order`, after its position when given, narrowed by `filter`.
 */
export function workOrderPage(em: EntityManager, filter: WorkOrderFilter, order: WorkOrderListOrder): Promise<WorkOrderRecord[]> {
  let query = workOrders(em);
  if (filter.status) query = query.where('w.status', '=', filter.status);
  if (filter.scheduledOn) query = query.where('w.scheduled_date', '=', filter.scheduledOn);
  if (filter.assignedTechnicianId) query = query.where('w.assigned_technician_id', '=', filter.assignedTechnicianId);
  if (order.by === 'created') {
    if (order.after) {
      const [createdAt, id] = order.after;
      query = query.where((eb) => beyond([eb.ref('w.created_at'), eb.ref('w.id')], 'asc', [createdAt, id]));
    }
    return query.orderBy('w.created_at').orderBy('w.id').limit(filter.limit + 1).execute();
  }
  if (order.after) {
    const [day, createdAt, id] = order.after;
    const sameDayLater = (eb: ExpressionBuilder<Tables & { w: Tables['work_orders'] }, 'w'>) => beyond([eb.ref('w.created_at'), eb.ref('w.id')], 'asc', [createdAt, id]);
    query = query.where((eb) =>
      day === null
        ? eb.and([eb('w.scheduled_date', 'is', null), sameDayLater(eb)])
        : eb.or([eb('w.scheduled_date', '>', day), eb.and([eb('w.scheduled_date', '=', day), sameDayLater(eb)]), eb('w.scheduled_date', 'is', null)]),
    );
  }
  return query
    .orderBy('w.scheduled_date', (o) => o.asc().nullsLast())
    .orderBy('w.created_at')
    .orderBy('w.id')
    .limit(filter.limit + 1)
    .execute();
}

export function workOrdersByIds(em: EntityManager, ids: readonly string[]): Promise<WorkOrderRecord[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return workOrders(em).where('w.id', 'in', ids).execute();
}

/** Up to `limit` work orders of each quote, oldest first (one statement for every quote). */
export function workOrdersByQuoteIds(em: EntityManager, quoteIds: readonly string[], limit: number): Promise<WorkOrderRecord[]> {
  if (quoteIds.length === 0) return Promise.resolve([]);
  return tablesOf(em)
    .selectFrom(
      workOrders(em)
        .select(sql<number>`row_number() over (partition by w.quote_id order by w.created_at, w.id)`.as('nth'))
        .where('w.quote_id', 'in', quoteIds)
        .as('ranked'),
    )
    .selectAll()
    .where('nth', '<=', limit)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
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

/** A history's position: the entry's sequence number. */
export const WORK_ORDER_HISTORY_KEYSET = keyset(z.tuple([z.string().regex(/^\d{1,19}$/)]), (row: WorkOrderHistoryRow) => [row.sequence] as const);

/** One page of a work order's history, oldest first (`limit` + 1 rows), after a sequence number. */
export function workOrderHistoryPage(em: EntityManager, id: string, afterSequence: string | undefined, limit: number): Promise<WorkOrderHistoryRow[]> {
  let query = tablesOf(em)
    .selectFrom('work_order_history as h')
    .innerJoin('users as u', 'u.id', 'h.changed_by_user_id')
    .select((eb) => [
      'h.id',
      // A bigint as text (digits, exact); the order below names the column, not this text.
      sql<string>`${eb.ref('h.sequence')}::text`.as('sequence'),
      eb.ref('h.from_status').$castTo<WorkOrderStatus | null>().as('from_status'),
      eb.ref('h.to_status').$castTo<WorkOrderStatus>().as('to_status'),
      'h.changed_by_user_id',
      'u.full_name as changed_by_name',
      'h.changed_at',
      'h.notes',
    ])
    .where('h.work_order_id', '=', id);
  if (afterSequence !== undefined) query = query.where('h.sequence', '>', afterSequence);
  return query.orderBy('h.sequence').limit(limit + 1).execute();
}

export interface NewWorkOrder {
  quoteId: string | null;
  /** Issue 30: whom a job without a quote is invoiced to at completion. */
  customerId?: string | null;
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
    `insert into work_orders (organization_id, status, quote_id, assigned_technician_id, scheduled_date, site_address, notes, created_by_user_id, crew_id, site_id, customer_id)
     values (app_current_organization(), 'PENDING', ?, ?, ?::date, ?, ?, ?, ?, ?, ?) returning ${COLUMNS}`,
    [order.quoteId, order.assignedTechnicianId, order.scheduledDate, order.siteAddress, order.notes, order.createdByUserId, order.crewId ?? null, order.siteId ?? null, order.customerId ?? null],
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

/**
 * A work order's site (its address and D11 site) and notes; only the fields given change. Its day
 * is `setScheduledDate`'s, which only infra/routing/routing-day.ts `redateJob` calls (D23: the job
 * leaves its old date's route).
 */
export async function updateWorkOrderDetails(
  em: EntityManager,
  id: string,
  changes: { siteAddress?: string | null; siteId?: string | null; notes?: string | null },
): Promise<void> {
  const columns: [string, unknown][] = [];
  if (changes.siteAddress !== undefined) columns.push(['site_address = ?', changes.siteAddress], ['site_id = ?', changes.siteId ?? null]);
  if (changes.notes !== undefined) columns.push(['notes = ?', changes.notes]);
  if (columns.length === 0) return;
  await em.execute(`update work_orders set ${columns.map(([c]) => c).join(', ')}, updated_at = now() where id = ?`, [...columns.map(([, v]) => v), id]);
}

/** A work order's day (null: unscheduled). Call `redateJob` (infra/routing/routing-day.ts), which keeps the routes right. */
export async function setScheduledDate(em: EntityManager, id: string, date: string | null): Promise<void> {
  await em.execute('update work_orders set scheduled_date = ?::date, updated_at = now() where id = ?', [date, id]);
}
