import type { EntityManager } from '@mikro-orm/postgresql';
import { CHANGE_ORDER_SELECT, type ChangeOrderRow } from './field-writes';
import { recordLocalSync, type LocalSyncOutcome } from '../sync-records';

/** D12: change orders of a job, numbered per job, in the caller's tenant transaction. */

export interface JobQuoteRow {
  quote_id: string;
  quote_number: number;
  quote_status: string;
  rate_card_revision_id: string;
  labor_tier_code: string;
  applied_margin: string;
  total_amount_cents: string;
}

/** The job's quote as a change order prices on it; undefined for a job without a quote. */
export async function jobQuote(em: EntityManager, jobId: string): Promise<JobQuoteRow | undefined> {
  const [row] = await em.execute<JobQuoteRow[]>(
    `select q.id as quote_id, q.quote_number, q.status as quote_status, q.rate_card_revision_id, q.labor_tier_code,
            q.applied_margin::text as applied_margin, q.total_amount_cents::text as total_amount_cents
       from work_orders w join quotes q on q.id = w.quote_id where w.id = ?`,
    [jobId],
  );
  return row;
}

/** The tenant's margin floor now: its current rate-card revision's. */
export async function tenantMarginFloor(em: EntityManager): Promise<string> {
  const [row] = await em.execute<{ margin_floor: string }[]>('select margin_floor::text as margin_floor from rate_card_revisions where id = rate_card_revision_at(now())');
  return row!.margin_floor;
}

/** D12: the job's value, the quote's total plus its approved change orders, in cents. */
export async function jobValueCents(em: EntityManager, jobId: string): Promise<bigint> {
  const [row] = await em.execute<{ value: string }[]>(
    `select (coalesce((select q.total_amount_cents from work_orders w join quotes q on q.id = w.quote_id where w.id = ?), 0)
           + coalesce((select sum(sell_cents) from change_orders where work_order_id = ? and status = 'approved'), 0))::text as value`,
    [jobId, jobId],
  );
  return BigInt(row!.value);
}

export interface NewChangeOrder {
  jobId: string;
  quoteId: string;
  reason: string;
  request: unknown;
  calculation: unknown;
  labourHours: string;
  materialCostCents: number;
  directCostCents: number;
  sellCents: number;
  previousValueCents: bigint;
  appliedMargin: string;
  floorEngaged: boolean;
  raisedBy: string;
}

/** Inserts the next change order of the job (the job row is locked by the caller, so numbers never collide). */
export async function insertChangeOrder(em: EntityManager, co: NewChangeOrder): Promise<ChangeOrderRow> {
  const [made] = await em.execute<{ id: string }[]>(
    `insert into change_orders (organization_id, work_order_id, quote_id, sequence, status, reason, request, calculation, labour_hours, material_cost_cents,
                                direct_cost_cents, sell_cents, previous_value_cents, applied_margin, floor_engaged, raised_by_user_id)
     values (app_current_organization(), ?, ?, (select coalesce(max(sequence), 0) + 1 from change_orders where work_order_id = ?), 'submitted', ?, ?::jsonb, ?::jsonb,
             ?::numeric, ?, ?, ?, ?::bigint, ?::numeric, ?, ?)
     returning id`,
    [
      co.jobId, co.quoteId, co.jobId, co.reason, JSON.stringify(co.request), JSON.stringify(co.calculation), co.labourHours, co.materialCostCents,
      co.directCostCents, co.sellCents, co.previousValueCents.toString(), co.appliedMargin, co.floorEngaged, co.raisedBy,
    ],
  );
  return (await changeOrderById(em, made!.id))!;
}

export async function changeOrderById(em: EntityManager, id: string, lock = false): Promise<ChangeOrderRow | undefined> {
  if (lock) await em.execute('select id from change_orders where id = ? for update', [id]);
  const [row] = await em.execute<ChangeOrderRow[]>(`${CHANGE_ORDER_SELECT} where co.id = ?`, [id]);
  return row;
}

export async function approveChangeOrder(
  em: EntityManager,
  id: string,
  approval: { userId: string; approvedBy: { name: string; role: string; method: string }; previousValueCents: bigint },
): Promise<void> {
  await em.execute(
    `update change_orders set status = 'approved', decided_at = clock_timestamp(), decided_by_user_id = ?, approved_by = ?::jsonb, previous_value_cents = ?::bigint
      where id = ? and status = 'submitted'`,
    [approval.userId, JSON.stringify(approval.approvedBy), approval.previousValueCents.toString(), id],
  );
}

export async function rejectChangeOrder(em: EntityManager, id: string, rejection: { userId: string; reason: string }): Promise<void> {
  await em.execute(`update change_orders set status = 'rejected', decided_at = clock_timestamp(), decided_by_user_id = ?, rejection_reason = ? where id = ? and status = 'submitted'`, [
    rejection.userId,
    rejection.reason,
    id,
  ]);
}

/** What the change order's payments leg reads (the worker's role: change orders and quotes only). */
export interface ChangeOrderInvoiceRow {
  id: string;
  sequence: number;
  status: string;
  reason: string;
  quote_id: string;
  sell_cents: string;
}

export async function changeOrderForInvoice(em: EntityManager, id: string): Promise<ChangeOrderInvoiceRow | undefined> {
  const [row] = await em.execute<ChangeOrderInvoiceRow[]>(
    'select id, sequence, status, reason, quote_id, sell_cents::text as sell_cents from change_orders where id = ?',
    [id],
  );
  return row;
}

/** D12: the sync-log record of a change order's invoice (section 3.4's store, keyed by the change order). */
export const CHANGE_ORDER_ENTITY = 'change_order_invoice';

export function changeOrderSync(em: EntityManager, ref: { quoteId: string; changeOrderId: string }, outcome: LocalSyncOutcome): Promise<void> {
  return recordLocalSync(em, { entityType: CHANGE_ORDER_ENTITY, quoteId: ref.quoteId, localId: ref.changeOrderId }, outcome);
}
