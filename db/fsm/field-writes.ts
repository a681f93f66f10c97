import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * What the field writes on a job (D11): time entries and material draws, and the reads of the
 * expanded job (with its change orders). Inside the caller's tenant transaction.
 */

/** Two entries of one technician overlap (the time_entries_no_overlap exclusion constraint). */
export class TimeEntryOverlapError extends Error {}

const isExclusionViolation = (error: unknown) =>
  typeof error === 'object' && error !== null && ((error as { code?: string }).code === '23P01' || /time_entries_no_overlap/.test((error as Error).message ?? ''));

export async function insertTimeEntry(
  em: EntityManager,
  entry: { jobId: string; technicianId: string; startedAt: Date; endedAt: Date; notes: string | null; createdBy: string },
): Promise<string> {
  try {
    const [row] = await em.execute<{ id: string }[]>(
      `insert into time_entries (organization_id, work_order_id, technician_id, started_at, ended_at, notes, created_by_user_id)
       values (app_current_organization(), ?, ?, ?, ?, ?, ?) returning id`,
      [entry.jobId, entry.technicianId, entry.startedAt.toISOString(), entry.endedAt.toISOString(), entry.notes, entry.createdBy],
    );
    return row!.id;
  } catch (error) {
    if (isExclusionViolation(error)) throw new TimeEntryOverlapError('overlap');
    throw error;
  }
}

export interface TimeEntryRow {
  id: string;
  technician_id: string;
  started_at: Date;
  ended_at: Date;
  hours: string;
  notes: string | null;
  created_at: Date;
}

export function jobTimeEntries(em: EntityManager, jobId: string): Promise<TimeEntryRow[]> {
  return em.execute<TimeEntryRow[]>(
    `select id, technician_id, started_at, ended_at, round(extract(epoch from (ended_at - started_at)) / 3600.0, 4)::text as hours, notes, created_at
       from time_entries where work_order_id = ? order by started_at, id`,
    [jobId],
  );
}

/** A SKU of the tenant's current rate-card revision that is active; undefined otherwise. */
export async function activeSku(em: EntityManager, code: string): Promise<{ code: string; unit: string } | undefined> {
  const [row] = await em.execute<{ code: string; unit: string }[]>(
    `select s.code, s.unit from rate_card_skus s
      where s.code = ? and s.active and s.revision_id = (select id from rate_card_revisions order by revision desc limit 1)`,
    [code],
  );
  return row;
}

export async function insertMaterialDraw(
  em: EntityManager,
  draw: { jobId: string; sku: string; quantity: string; unit: string; vanId: string | null; drawnBy: string },
): Promise<string> {
  const [row] = await em.execute<{ id: string }[]>(
    `insert into material_draws (organization_id, work_order_id, sku_code, quantity, unit, van_id, drawn_by_user_id)
     values (app_current_organization(), ?, ?, ?::numeric, ?, ?, ?) returning id`,
    [draw.jobId, draw.sku, draw.quantity, draw.unit, draw.vanId, draw.drawnBy],
  );
  return row!.id;
}

export interface MaterialDrawRow {
  id: string;
  sku_code: string;
  quantity: string;
  unit: string;
  van_id: string | null;
  drawn_by_user_id: string;
  created_at: Date;
}

export function jobMaterialDraws(em: EntityManager, jobId: string): Promise<MaterialDrawRow[]> {
  return em.execute<MaterialDrawRow[]>(
    `select id, sku_code, quantity::text as quantity, unit, van_id, drawn_by_user_id, created_at from material_draws where work_order_id = ? order by created_at, id`,
    [jobId],
  );
}

export interface ChangeOrderRow {
  id: string;
  work_order_id: string;
  sequence: number;
  status: 'submitted' | 'approved' | 'rejected';
  reason: string;
  labour_hours: string;
  material_cost_cents: string;
  direct_cost_cents: string;
  sell_cents: string;
  previous_value_cents: string;
  applied_margin: string;
  floor_engaged: boolean;
  approved_by: { name: string; role: string; method: string } | null;
  rejected_by_name: string | null;
  rejected_by_role: string | null;
  rejection_reason: string | null;
  created_at: Date;
  decided_at: Date | null;
}

export const CHANGE_ORDER_SELECT = `
  select co.id, co.work_order_id, co.sequence, co.status, co.reason, co.labour_hours::text as labour_hours,
         co.material_cost_cents::text as material_cost_cents, co.direct_cost_cents::text as direct_cost_cents, co.sell_cents::text as sell_cents,
         co.previous_value_cents::text as previous_value_cents, co.applied_margin::text as applied_margin, co.floor_engaged, co.approved_by,
         case when co.status = 'rejected' then du.full_name end as rejected_by_name, case when co.status = 'rejected' then du.role end as rejected_by_role,
         co.rejection_reason, co.created_at, co.decided_at
    from change_orders co left join users du on du.id = co.decided_by_user_id`;

export function jobChangeOrders(em: EntityManager, jobId: string): Promise<ChangeOrderRow[]> {
  return em.execute<ChangeOrderRow[]>(`${CHANGE_ORDER_SELECT} where co.work_order_id = ? order by co.sequence`, [jobId]);
}
