import type { EntityManager } from '@mikro-orm/postgresql';
import type { QuoteLineRow } from '../quotes/quotes';
import type { QuoteStatus } from '../../domain/quotes/quote-status';
import type { WorkOrderStatus } from '../../domain/work-orders/status-table';
import { cursorTimestamp } from '../cursor-timestamp';

/**
 * The reads behind the GraphQL endpoint (D17): one statement per page of a top-level list and
 * one statement per batch of nested rows, whatever the number of parents (the API's DataLoaders
 * collect the parents' ids and call these once per tick). Every function runs inside the
 * caller's tenant transaction (db/tenant-scope.ts): row-level security decides what exists, so
 * an id of another tenant finds nothing here, at the top or nested.
 */

export interface QuoteRecord {
  id: string;
  quote_number: number;
  status: QuoteStatus;
  customer_id: string | null;
  created_by_user_id: string | null;
  labor_tier_code: string;
  total_cost_cents: string;
  total_amount_cents: string;
  margin_percent: string;
  applied_margin: string;
  created_at: Date;
  sent_at: Date | null;
  approved_at: Date | null;
  rejected_at: Date | null;
  expired_at: Date | null;
  paid_at: Date | null;
  /** D14: the revision the quote is at, and the tax region it was priced for (null for /api/ quotes). */
  revision: number;
  tax_region: string | null;
  /** created_at to the microsecond, for keyset cursors. */
  cursor_created_at: string;
}

/** A list of ids bound as one JSON array parameter (one statement, whatever its length). */
const ID_LIST = 'array(select jsonb_array_elements_text(?::jsonb)::uuid)';

const QUOTE_COLUMNS = `q.id, q.quote_number, q.status, q.revision, q.tax_region, q.customer_id, q.created_by_user_id, q.labor_tier_code, q.total_cost_cents::text as total_cost_cents,
  q.total_amount_cents::text as total_amount_cents, q.margin_percent::text as margin_percent, q.applied_margin::text as applied_margin,
  q.created_at, q.sent_at, q.approved_at, q.rejected_at, q.expired_at, q.paid_at, ${cursorTimestamp('q.created_at')} as cursor_created_at`;

/** Where a page ended: a row's created_at (to the microsecond) and id. */
export type Position = readonly [string, string];

/** Newest first; `limit` + 1 rows so the caller sees whether more follow. */
export function quotePage(em: EntityManager, filter: { status?: QuoteStatus | undefined; after?: Position | undefined; limit: number }): Promise<QuoteRecord[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    conditions.push('q.status = ?');
    params.push(filter.status);
  }
  if (filter.after) {
    conditions.push('(q.created_at, q.id) < (?::timestamptz, ?::uuid)');
    params.push(...filter.after);
  }
  const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
  return em.execute<QuoteRecord[]>(`select ${QUOTE_COLUMNS} from quotes q ${where} order by q.created_at desc, q.id desc limit ?`, [...params, filter.limit + 1]);
}

export function quotesByIds(em: EntityManager, ids: readonly string[]): Promise<QuoteRecord[]> {
  return em.execute<QuoteRecord[]>(`select ${QUOTE_COLUMNS} from quotes q where q.id = any(${ID_LIST})`, [JSON.stringify(ids)]);
}

/** Up to `limit` quotes of each customer, newest first (one statement for every customer). */
export function quotesByCustomerIds(em: EntityManager, customerIds: readonly string[], limit: number): Promise<QuoteRecord[]> {
  return em.execute<QuoteRecord[]>(
    `select * from (
       select ${QUOTE_COLUMNS}, row_number() over (partition by q.customer_id order by q.created_at desc, q.id desc) as nth
         from quotes q where q.customer_id = any(${ID_LIST})
     ) ranked where nth <= ? order by created_at desc, id desc`,
    [JSON.stringify(customerIds), limit],
  );
}

export type QuoteLineRecord = QuoteLineRow & { quote_id: string };

/** The first `limit` lines of each quote, in their order. */
export function linesByQuoteIds(em: EntityManager, quoteIds: readonly string[], limit: number): Promise<QuoteLineRecord[]> {
  return em.execute<QuoteLineRecord[]>(
    `select quote_id, position, reference, width_inches::text as width_inches, drop_inches::text as drop_inches, quantity, fabric_sku_code,
            hardware_sku_code, motor_sku_code, trim_sku_code, cost_cents::text as cost_cents, price_cents::text as price_cents
       from quote_lines where quote_id = any(${ID_LIST}) and position < ? order by quote_id, position`,
    [JSON.stringify(quoteIds), limit],
  );
}

export interface CustomerRecord {
  id: string;
  name: string;
  email: string | null;
  created_at: Date;
  cursor_created_at: string;
}

const CUSTOMER_COLUMNS = `c.id, c.name, c.email, c.created_at, ${cursorTimestamp('c.created_at')} as cursor_created_at`;

/** Newest first, `limit` + 1 rows. */
export function customerPage(em: EntityManager, filter: { after?: Position | undefined; limit: number }): Promise<CustomerRecord[]> {
  const after = filter.after ? 'where (c.created_at, c.id) < (?::timestamptz, ?::uuid)' : '';
  return em.execute<CustomerRecord[]>(`select ${CUSTOMER_COLUMNS} from customers c ${after} order by c.created_at desc, c.id desc limit ?`, [
    ...(filter.after ?? []),
    filter.limit + 1,
  ]);
}

export function customersByIds(em: EntityManager, ids: readonly string[]): Promise<CustomerRecord[]> {
  return em.execute<CustomerRecord[]>(`select ${CUSTOMER_COLUMNS} from customers c where c.id = any(${ID_LIST})`, [JSON.stringify(ids)]);
}

export interface WorkOrderRecord {
  id: string;
  status: WorkOrderStatus;
  quote_id: string | null;
  assigned_technician_id: string | null;
  scheduled_date: string | null;
  site_address: string | null;
  notes: string | null;
  created_at: Date;
  dispatched_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  cursor_created_at: string;
}

const WORK_ORDER_COLUMNS = `w.id, w.status, w.quote_id, w.assigned_technician_id, w.scheduled_date::text as scheduled_date, w.site_address, w.notes,
  w.created_at, w.dispatched_at, w.completed_at, w.cancelled_at, ${cursorTimestamp('w.created_at')} as cursor_created_at`;

/**
 * Oldest first by creation (a stable order for a client walking every work order), `limit` + 1
 * rows; `assignedTechnicianId` narrows to one technician's (D4).
 */
export function workOrderPage(
  em: EntityManager,
  filter: { status?: WorkOrderStatus | undefined; assignedTechnicianId?: string | undefined; after?: Position | undefined; limit: number },
): Promise<WorkOrderRecord[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    conditions.push('w.status = ?');
    params.push(filter.status);
  }
  if (filter.assignedTechnicianId) {
    conditions.push('w.assigned_technician_id = ?');
    params.push(filter.assignedTechnicianId);
  }
  if (filter.after) {
    conditions.push('(w.created_at, w.id) > (?::timestamptz, ?::uuid)');
    params.push(...filter.after);
  }
  const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
  return em.execute<WorkOrderRecord[]>(`select ${WORK_ORDER_COLUMNS} from work_orders w ${where} order by w.created_at asc, w.id asc limit ?`, [
    ...params,
    filter.limit + 1,
  ]);
}

export function workOrdersByIds(em: EntityManager, ids: readonly string[]): Promise<WorkOrderRecord[]> {
  return em.execute<WorkOrderRecord[]>(`select ${WORK_ORDER_COLUMNS} from work_orders w where w.id = any(${ID_LIST})`, [JSON.stringify(ids)]);
}

/** Up to `limit` work orders of each quote, oldest first. */
export function workOrdersByQuoteIds(em: EntityManager, quoteIds: readonly string[], limit: number): Promise<WorkOrderRecord[]> {
  return em.execute<WorkOrderRecord[]>(
    `select * from (
       select ${WORK_ORDER_COLUMNS}, row_number() over (partition by w.quote_id order by w.created_at, w.id) as nth
         from work_orders w where w.quote_id = any(${ID_LIST})
     ) ranked where nth <= ? order by created_at, id`,
    [JSON.stringify(quoteIds), limit],
  );
}

export interface PersonRecord {
  id: string;
  full_name: string;
  email: string;
  role: string;
}

/** Users as other records name them: name, email and role, never a credential. */
export function peopleByIds(em: EntityManager, ids: readonly string[]): Promise<PersonRecord[]> {
  return em.execute<PersonRecord[]>(`select id, full_name, email, role from users where id = any(${ID_LIST})`, [JSON.stringify(ids)]);
}

export interface QuoteRevisionRecord {
  quote_id: string;
  revision: number;
  created_by_user_id: string | null;
  created_at: Date;
  /** The rate-card revision that priced it (D2's timestamp). */
  pricebook_revision: Date;
}

/** D14: the first `limit` revisions of each quote, oldest first (quotes made by /api/ calculate have none). */
export function revisionsByQuoteIds(em: EntityManager, quoteIds: readonly string[], limit: number): Promise<QuoteRevisionRecord[]> {
  return em.execute<QuoteRevisionRecord[]>(
    `select * from (
       select r.quote_id, r.revision, r.created_by_user_id, r.created_at, c.revision as pricebook_revision,
              row_number() over (partition by r.quote_id order by r.revision) as nth
         from quote_revisions r join rate_card_revisions c on c.id = r.rate_card_revision_id
        where r.quote_id = any(${ID_LIST})
     ) ranked where nth <= ? order by quote_id, revision`,
    [JSON.stringify(quoteIds), limit],
  );
}
