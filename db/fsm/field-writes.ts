import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { tablesOf } from '../tables';

/**
 * What the field writes on a job (D11): time entries and material draws, and the list queries of
 * what hangs off a job (time entries, material draws, change orders), each for many jobs in one
 * statement (the job view reads one job's, GraphQL's loaders a batch's). Inside the caller's
 * tenant transaction.
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
  work_order_id: string;
  technician_id: string;
  started_at: Date;
  ended_at: Date;
  hours: string;
  notes: string | null;
  created_at: Date;
}

/**
 * The one list query of time entries: those of each job, oldest first (the first `limit` of each
 * when given, by a window), in one statement for every job.
 */
export function timeEntriesOfJobs(em: EntityManager, jobIds: readonly string[], limit?: number): Promise<TimeEntryRow[]> {
  if (jobIds.length === 0) return Promise.resolve([]);
  const db = tablesOf(em);
  return db
    .selectFrom(
      db
        .selectFrom('time_entries as t')
        .select([
          't.id',
          't.work_order_id',
          't.technician_id',
          't.started_at',
          't.ended_at',
          sql<string>`round(extract(epoch from (t.ended_at - t.started_at)) / 3600.0, 4)::text`.as('hours'),
          't.notes',
          't.created_at',
          sql<number>`row_number() over (partition by t.work_order_id order by t.started_at, t.id)`.as('nth'),
        ])
        .where('t.work_order_id', 'in', jobIds)
        .as('ranked'),
    )
    .select(['id', 'work_order_id', 'technician_id', 'started_at', 'ended_at', 'hours', 'notes', 'created_at'])
    .where('nth', '<=', limit ?? Number.MAX_SAFE_INTEGER)
    .orderBy('work_order_id')
    .orderBy('started_at')
    .orderBy('id')
    .execute();
}

/** A SKU of the tenant's current rate-card revision that is active; undefined otherwise. */
export async function activeSku(em: EntityManager, code: string): Promise<{ code: string; unit: string } | undefined> {
  const [row] = await em.execute<{ code: string; unit: string }[]>(
    `select s.code, s.unit from rate_card_skus s
      where s.code = ? and s.active and s.revision_id = rate_card_revision_at(now())`,
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
  work_order_id: string;
  sku_code: string;
  quantity: string;
  unit: string;
  van_id: string | null;
  drawn_by_user_id: string;
  created_at: Date;
}

/** The one list query of material draws: those of each job, oldest first (the first `limit` of each when given). */
export function materialDrawsOfJobs(em: EntityManager, jobIds: readonly string[], limit?: number): Promise<MaterialDrawRow[]> {
  if (jobIds.length === 0) return Promise.resolve([]);
  const db = tablesOf(em);
  return db
    .selectFrom(
      db
        .selectFrom('material_draws as d')
        .select((eb) => [
          'd.id',
          'd.work_order_id',
          'd.sku_code',
          sql<string>`${eb.ref('d.quantity')}::text`.as('quantity'),
          'd.unit',
          'd.van_id',
          'd.drawn_by_user_id',
          'd.created_at',
          sql<number>`row_number() over (partition by d.work_order_id order by d.created_at, d.id)`.as('nth'),
        ])
        .where('d.work_order_id', 'in', jobIds)
        .as('ranked'),
    )
    .select(['id', 'work_order_id', 'sku_code', 'quantity', 'unit', 'van_id', 'drawn_by_user_id', 'created_at'])
    .where('nth', '<=', limit ?? Number.MAX_SAFE_INTEGER)
    .orderBy('work_order_id')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
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

/** The one list query of change orders: those of each job in sequence (the first `limit` of each when given). */
export function changeOrdersOfJobs(em: EntityManager, jobIds: readonly string[], limit?: number): Promise<ChangeOrderRow[]> {
  if (jobIds.length === 0) return Promise.resolve([]);
  return em.execute<ChangeOrderRow[]>(
    `select * from (${CHANGE_ORDER_SELECT.replace(/\s+from change_orders co/, ', row_number() over (partition by co.work_order_id order by co.sequence) as nth\n    from change_orders co')}
       where co.work_order_id in (select (jsonb_array_elements_text(?::jsonb))::uuid)) ranked where nth <= ? order by work_order_id, sequence`,
    [JSON.stringify(jobIds), limit ?? Number.MAX_SAFE_INTEGER],
  );
}
