import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { beyond, exactTimestamp, keyset, microseconds, TimeAndId } from '../cursor';
import { tablesOf } from '../tables';
import { containsPattern, customerText } from '../text-search';
import { recordEvents } from '../events/outbox';
import type { EventEnvelope } from '../../domain/events/catalogue';
import type { WorkOrderStatus } from '../../domain/work-orders/status-table';
import type { JobStatus } from '../../domain/jobs/job-status-table';
import { jobMoveEvents, planJobMove } from '../../domain/jobs/job-move';
import { localTimeToInstant } from '../../domain/organizations/local-time';
import { organizationSettings } from '../organizations';
import { storeCompletionInvoice } from './completion-invoices';

/**
 * Jobs (D11): the field view of the work orders, listed with the typed builder (db/tables.ts) and
 * moved with SQL, inside the caller's tenant transaction (db/tenant-scope.ts). Every job-changing transaction first takes
 * the tenant's sync clock (lockJobClock) so its changes get feed positions in commit order
 * (docs/field-sync.md).
 */

/**
 * Takes the tenant's sync clock row for the rest of the transaction. Called first by every
 * transaction that changes a job, before any job row is locked, so two writers always take the
 * locks in the same order (the work_orders trigger takes it too, as a safety net).
 */
export async function lockJobClock(em: EntityManager): Promise<void> {
  await em.execute(
    `insert into job_sync_clock as c (organization_id) values (app_current_organization())
     on conflict (organization_id) do update set last_sequence = c.last_sequence`,
  );
}

export interface JobRow {
  job_id: string;
  status: JobStatus;
  work_order_status: WorkOrderStatus;
  quote_id: string | null;
  quote_number: number | null;
  assigned_technician_id: string | null;
  site_id: string | null;
  site_name: string | null;
  site_region: string | null;
  crew_id: string | null;
  crew_foreman: string | null;
  crew_headcount: number | null;
  scheduled_start: Date | null;
  actual_start: Date | null;
  hours_logged: string;
  hours_estimated: string;
  open_change_orders: number;
  /** The quote's customer and the work order's site address: what a crew needs to find the job (no money). */
  customer_name: string | null;
  site_address: string | null;
  /** The job's own customer (a job without a quote is invoiced to it); the quote's customer is the quote's. */
  customer_id: string | null;
  /** Microsecond RFC 3339 (UTC): what the feed orders and filters on. */
  updated_at: string;
}

export const HOURS_LOGGED = `coalesce((select sum(extract(epoch from (t.ended_at - t.started_at))) from time_entries t where t.work_order_id = w.id), 0) / 3600.0`;
export const HOURS_ESTIMATED = `(coalesce((select sum((li->>'labour_hours')::numeric) from jsonb_array_elements(coalesce(q.frozen_calculation, q.calculation)->'line_items') li), 0)
  + coalesce((select sum(co.labour_hours) from change_orders co where co.work_order_id = w.id and co.status = 'approved'), 0))`;

/** D11's feed order: (updated_at to the microsecond, job id), oldest change first. */
export const JOB_FEED_KEYSET = keyset(TimeAndId, (row: JobRow) => [row.updated_at, row.job_id] as const);

/** D10: a technician sees the jobs of the crews they belong to; undefined for ADMIN and SALES. */
export interface JobVisibility {
  technicianId?: string | undefined;
}

const visibleTo = (visibility: JobVisibility, params: unknown[]): string => {
  if (!visibility.technicianId) return 'true';
  params.push(visibility.technicianId);
  return `w.crew_id in (select m.crew_id from crew_members m where m.user_id = ?)`;
};

/** The jobs the caller may see, each as a JobRow (the one read of a job, listed or alone). */
function visibleJobs(em: EntityManager, visibility: JobVisibility) {
  const query = tablesOf(em)
    .selectFrom('work_orders as w')
    .leftJoin('quotes as q', 'q.id', 'w.quote_id')
    .leftJoin('sites as s', 's.id', 'w.site_id')
    .leftJoin('customers as cu', 'cu.id', 'q.customer_id')
    .leftJoin('crews as c', 'c.id', 'w.crew_id')
    .leftJoin('users as fu', 'fu.id', 'c.foreman_user_id')
    .select((eb) => [
      'w.id as job_id',
      eb.ref('w.job_status').$castTo<JobStatus>().as('status'),
      eb.ref('w.status').$castTo<WorkOrderStatus>().as('work_order_status'),
      'w.quote_id',
      'q.quote_number',
      'w.assigned_technician_id',
      's.id as site_id',
      's.name as site_name',
      's.region as site_region',
      'c.id as crew_id',
      'fu.full_name as crew_foreman',
      sql<number | null>`(select count(*) from crew_members m where m.crew_id = c.id)::int`.as('crew_headcount'),
      sql<string | null>`to_char(w.scheduled_date, 'YYYY-MM-DD')`.as('scheduled_date'),
      'w.actual_start',
      sql<string>`round(${sql.raw(HOURS_LOGGED)}, 4)::text`.as('hours_logged'),
      sql<string>`round(${sql.raw(HOURS_ESTIMATED)}, 4)::text`.as('hours_estimated'),
      sql<number>`(select count(*) from change_orders co where co.work_order_id = w.id and co.status = 'submitted')::int`.as('open_change_orders'),
      'cu.name as customer_name',
      'w.site_address',
      'w.customer_id',
      microseconds(eb.ref('w.job_updated_at')).as('updated_at'),
    ]);
  const technicianId = visibility.technicianId;
  if (!technicianId) return query;
  return query.where('w.crew_id', 'in', (eb) => eb.selectFrom('crew_members as m').select('m.crew_id').where('m.user_id', '=', technicianId));
}

export interface JobFilter extends JobVisibility {
  statuses?: readonly JobStatus[] | undefined;
  crewId?: string | undefined;
  siteId?: string | undefined;
  /** The jobs scheduled on this calendar day (`YYYY-MM-DD`). */
  scheduledOn?: string | undefined;
  /** Text in the site's name or the customer's name (db/text-search.ts). */
  q?: string | undefined;
  /** Strict: only changes after this instant. */
  updatedSince?: string | undefined;
  /** After this position of JOB_FEED_KEYSET. */
  after?: readonly [string, string] | undefined;
  limit: number;
}

/** The one list query of jobs: a page of the feed (`limit` + 1 rows), oldest change first, then job id (D11). */
export async function jobPage(em: EntityManager, filter: JobFilter): Promise<JobRow[]> {
  let query = visibleJobs(em, filter);
  if (filter.statuses?.length) query = query.where('w.job_status', 'in', filter.statuses);
  if (filter.crewId) query = query.where('w.crew_id', '=', filter.crewId);
  if (filter.siteId) query = query.where('w.site_id', '=', filter.siteId);
  if (filter.scheduledOn) query = query.where('w.scheduled_date', '=', filter.scheduledOn);
  if (filter.q !== undefined) {
    const pattern = containsPattern(filter.q);
    query = query.where((eb) =>
      eb.or([eb('s.name', 'ilike', pattern), eb('q.customer_id', 'in', eb.selectFrom('customers as cu').select('cu.id').where((sub) => sub(customerText(sub.ref('cu.name'), sub.ref('cu.email')), 'ilike', pattern)))]),
    );
  }
  if (filter.updatedSince) query = query.where('w.job_updated_at', '>', exactTimestamp(filter.updatedSince));
  if (filter.after) {
    const [updatedAt, id] = filter.after;
    query = query.where((eb) => beyond([eb.ref('w.job_updated_at'), eb.ref('w.id')], 'asc', [updatedAt, id]));
  }
  return withScheduledStart(em, await query.orderBy('w.job_updated_at').orderBy('w.id').limit(filter.limit + 1).execute());
}

/** One job as the caller may see it; undefined when unknown to the tenant or not the caller's (D10). */
export async function jobById(em: EntityManager, id: string, visibility: JobVisibility): Promise<JobRow | undefined> {
  const row = await visibleJobs(em, visibility).where('w.id', '=', id).executeTakeFirst();
  return row ? (await withScheduledStart(em, [row]))[0] : undefined;
}

/**
 * D11: `scheduled_start` is the scheduled date at the tenant's working-day start in its time
 * zone (both tenant settings; domain/organizations/local-time.ts converts).
 */
async function withScheduledStart(em: EntityManager, rows: (Omit<JobRow, 'scheduled_start'> & { scheduled_date: string | null })[]): Promise<JobRow[]> {
  if (!rows.some((row) => row.scheduled_date !== null)) return rows.map(({ scheduled_date: _date, ...row }) => ({ ...row, scheduled_start: null }));
  const { working_day_start, time_zone } = await organizationSettings(em);
  return rows.map(({ scheduled_date, ...row }) => ({ ...row, scheduled_start: scheduled_date === null ? null : localTimeToInstant(scheduled_date, working_day_start, time_zone) }));
}

export interface LockedJob {
  id: string;
  job_status: JobStatus;
  status: WorkOrderStatus;
  crew_id: string | null;
  quote_id: string | null;
  assigned_technician_id: string | null;
  actual_start: Date | null;
  /** The job's own customer (a job without a quote is invoiced to it, D11). */
  customer_id: string | null;
}

/** The job's work order row, locked until the transaction ends; undefined when not visible (D10). */
export async function lockJob(em: EntityManager, id: string, visibility: JobVisibility): Promise<LockedJob | undefined> {
  const params: unknown[] = [];
  const visible = visibleTo(visibility, params);
  const [row] = await em.execute<LockedJob[]>(
    `select w.id, w.job_status, w.status, w.crew_id, w.quote_id, w.assigned_technician_id, w.actual_start, w.customer_id from work_orders w where w.id = ? and ${visible} for update`,
    [id, ...params],
  );
  return row;
}

/** What a history entry records (the table's check constraint holds the same list). */
export const JOB_HISTORY_KINDS = ['created', 'status', 'crew', 'time_entry', 'material_draw', 'change_order', 'route', 'customer'] as const;
export type JobHistoryKind = (typeof JOB_HISTORY_KINDS)[number];

/** D11: the append-only history of a job: what changed, who and when. */
export async function recordJobHistory(
  em: EntityManager,
  entry: { jobId: string; kind: JobHistoryKind; userId: string; from?: string | null; to?: string | null; detail?: Record<string, unknown> },
): Promise<Date> {
  const [row] = await em.execute<{ changed_at: Date }[]>(
    `insert into job_history (organization_id, work_order_id, kind, from_status, to_status, detail, changed_by_user_id)
     values (app_current_organization(), ?, ?, ?, ?, ?::jsonb, ?) returning changed_at`,
    [entry.jobId, entry.kind, entry.from ?? null, entry.to ?? null, JSON.stringify(entry.detail ?? {}), entry.userId],
  );
  return new Date(row!.changed_at);
}

/**
 * Bumps a job's place in the feed for a change of something it shows but its own row does not
 * hold (a time entry, a change order, its crew's members): the work_orders trigger assigns it.
 */
export async function touchJobs(em: EntityManager, where: { jobId?: string; crewId?: string }): Promise<void> {
  if (where.jobId) await em.execute('update work_orders set job_updated_at = job_updated_at where id = ?', [where.jobId]);
  if (where.crewId) await em.execute('update work_orders set job_updated_at = job_updated_at where crew_id = ?', [where.crewId]);
}

/**
 * Moves a locked job to `to` (already judged by D11's table or, from /api/, by section 3.2's) and
 * writes, in the caller's transaction, what domain/jobs/job-move.ts decides the move records: the
 * job history, the work-order history when the projection changes, and the events of D11.
 * Returns the events, for dispatch after commit.
 */
export async function moveJob(
  em: EntityManager,
  organizationId: string,
  move: { job: LockedJob; to: JobStatus; userId: string; notes: string | null; signedOffAt?: Date | null },
): Promise<EventEnvelope[]> {
  const { job, to } = move;
  // D11: every interface completes a job here, and nothing about its money refuses it: a job
  // without a quote or a customer completes, its invoice waiting for a customer (completion-invoices.ts).
  const plan = planJobMove(job.job_status, to);
  await em.execute(`update work_orders set job_status = ?, signed_off_at = coalesce(?, signed_off_at) where id = ?`, [to, move.signedOffAt ?? null, job.id]);
  const changedAt = await recordJobHistory(em, { jobId: job.id, kind: 'status', userId: move.userId, from: job.job_status, to, detail: move.notes ? { notes: move.notes } : {} });
  const hours = plan.completes ? await jobHours(em, job.id) : null;
  const workOrderChangedAt = plan.workOrder ? await recordWorkOrderMove(em, job.id, plan.workOrder, move.userId, move.notes) : null;
  // Issue 30: completing reconciles the job's work; its `job.completed` starts the invoice workflow
  // (or, for an invoice waiting for a customer, `job.customer_changed` does once one is set).
  if (plan.completes) await storeCompletionInvoice(em, job.id);
  return recordEvents(em, organizationId, jobMoveEvents(plan, { job, to, userId: move.userId, changedAt, signedOffAt: move.signedOffAt ?? null, hours, workOrderChangedAt }));
}

/** The job's logged and estimated hours, two decimals. */
async function jobHours(em: EntityManager, jobId: string): Promise<{ logged: string; estimated: string }> {
  const [hours] = await em.execute<{ logged: string; estimated: string }[]>(
    `select round(${HOURS_LOGGED}, 2)::text as logged, round(${HOURS_ESTIMATED}, 2)::text as estimated
       from work_orders w left join quotes q on q.id = w.quote_id where w.id = ?`,
    [jobId],
  );
  return hours!;
}

/** The work-order history entry of a projected move; returns its time. */
async function recordWorkOrderMove(em: EntityManager, jobId: string, move: { from: WorkOrderStatus; to: WorkOrderStatus }, userId: string, notes: string | null): Promise<Date> {
  const [entry] = await em.execute<{ changed_at: Date }[]>(
    `insert into work_order_history (organization_id, work_order_id, from_status, to_status, changed_by_user_id, notes)
     values (app_current_organization(), ?, ?, ?, ?, ?) returning changed_at`,
    [jobId, move.from, move.to, userId, notes],
  );
  return new Date(entry!.changed_at);
}
