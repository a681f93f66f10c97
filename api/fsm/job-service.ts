import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import { inTenant } from '../../db/tenant-scope';
import { conflict, forbidden, invalidTransition, jobNotFound, notFound, providerFailed, validationFailed } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import { cursorPosition } from '../http/pagination';
import { encodeCursor } from '../../db/cursor';
import type { EventDispatcher } from '../../infra/events/dispatcher';
import type { EventEnvelope } from '../../domain/events/catalogue';
import { JOB_FEED_KEYSET, jobById, jobPage, lockJob, lockJobClock, moveJob, recordJobHistory, touchJobs, type JobRow, type JobVisibility } from '../../db/fsm/jobs';
import { decideJobTransition, TERMINAL_JOB_STATUSES } from '../../domain/jobs/job-status-table';
import { assignJobCrew, crewById, deactivatedMembers } from '../../db/fsm/crews';
import { userRoleAndActive } from '../../db/users';
import { JOB_HISTORY_KEYSET, jobHistoryPage } from '../../db/fsm/job-history';
import { insertMaterialDraw, insertTimeEntry, changeOrdersOfJobs, materialDrawsOfJobs, timeEntriesOfJobs, activeSku, TimeEntryOverlapError } from '../../db/fsm/field-writes';
import type { CompletionInvoice, Job, JobDetail, JobHistoryEntry, JobHistoryQuery, JobListQuery, MaterialDrawBody, MoveJobBody, PatchJobBody, TimeEntryBody } from './schemas';
import { toChangeOrder } from './change-order-view';
import { iso } from '../../domain/timestamps';
import { jobScheduleRows } from '../../db/fsm/routing-data';
import { organizationSettings } from '../../db/organizations';
import { jobSchedule } from '../../domain/routing/job-schedule';
import { GREAT_CIRCLE_TRAVEL, recomputeEtasWithEvents, rerouteAssignedJob, type TravelConfig } from '../../infra/routing/routing-day';
import { TravelTimesUnavailable } from '../../domain/routing/travel/source';
import { completionInvoiceOfJob } from '../../db/fsm/completion-invoices';
import { setJobCustomer } from '../../db/fsm/job-customer';
import { customersByIds } from '../../db/quotes/customer-directory';
import { quoteTax } from '../../domain/tax/quote-tax';
import { dollars } from '../../domain/money';
import type { AuditActor } from '../../domain/audit/audit-entry';

/** D11: clock skew allowed on a device's sign-off time. */
export const SIGN_OFF_SKEW_MS = 60_000;

/** D11: the Job shape of document 001 section 2 from its row. */
export function toJob(row: JobRow): Job {
  const logged = new Decimal(row.hours_logged);
  const estimated = new Decimal(row.hours_estimated);
  let percent: Decimal;
  if (row.status === 'complete') percent = new Decimal(1);
  else if (estimated.lte(0)) percent = new Decimal(0);
  else percent = Decimal.min(logged.div(estimated).toDecimalPlaces(4, Decimal.ROUND_DOWN), new Decimal('0.9999'));
  return {
    job_id: row.job_id,
    quote_ref: row.quote_number === null ? null : `Q-${row.quote_number}`,
    status: row.status,
    project_type: row.quote_id ? 'install' : 'service',
    site: row.site_id ? { site_id: row.site_id, name: row.site_name!, region: row.site_region! } : null,
    crew: row.crew_id ? { crew_id: row.crew_id, foreman: row.crew_foreman!, headcount: row.crew_headcount ?? 0 } : null,
    scheduled_start: iso(row.scheduled_start),
    actual_start: iso(row.actual_start),
    hours_logged: logged.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber(),
    hours_estimated: estimated.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber(),
    percent_complete: percent.toNumber(),
    open_change_orders: row.open_change_orders,
    updated_at: row.updated_at,
  };
}

export const visibilityOf = (caller: Caller): JobVisibility => (caller.role === 'TECHNICIAN' ? { technicianId: caller.userId } : {});

/**
 * D11's move of one job inside the caller's tenant transaction `tx` (the REST PATCH and GraphQL's
 * moveJob both run it): the sync clock first, the job locked as the caller may see it, the table
 * judged, and the job, its histories and its events written. Returns the events, to dispatch after
 * the commit (none for a repeated status).
 */
export async function moveJobWithin(tx: EntityManager, caller: Caller, id: string, body: MoveJobBody, travel: TravelConfig = GREAT_CIRCLE_TRAVEL): Promise<EventEnvelope[]> {
  await lockJobClock(tx);
  const row = await lockJob(tx, id, visibilityOf(caller));
  if (!row) throw jobNotFound();
  if (body.completed_at !== undefined && body.status !== 'complete') throw validationFailed({ completed_at: 'Only with status complete.' });
  const decision = decideJobTransition(row.job_status, body.status, row.crew_id !== null);
  if (decision.kind === 'refused') throw invalidTransition(decision.reason);
  if (decision.kind === 'unchanged') return [];
  let signedOffAt: Date | null = null;
  if (body.completed_at !== undefined) {
    signedOffAt = new Date(body.completed_at);
    if (signedOffAt.getTime() > Date.now() + SIGN_OFF_SKEW_MS) throw validationFailed({ completed_at: 'Must not be in the future (60 seconds of clock skew are allowed).' });
    if (row.actual_start && signedOffAt < new Date(row.actual_start)) throw validationFailed({ completed_at: `Must not be before actual_start (${iso(row.actual_start)}).` });
  }
  const events = await moveJob(tx, caller.organizationId, { job: row, to: body.status, userId: caller.userId, notes: null, signedOffAt });
  // D23: the status moves the ETAs of the stops after it on the job's route.
  return [...events, ...(await recomputeEtasWithEvents(tx, { jobId: id, travel }))];
}

/**
 * D11: an ADMIN gives a job its customer, in the caller's tenant transaction `tx` (PATCH
 * /v1/fsm/jobs/{id} `customer_id`): the clock, then the row; a customer not of the tenant is 422
 * at `customer_id`; db/fsm/job-customer.ts judges, writes and audits. Returns the events.
 */
export async function setJobCustomerWithin(tx: EntityManager, caller: Caller, id: string, customerId: string | null, audit: { actor: AuditActor; requestId: string | null }): Promise<EventEnvelope[]> {
  if (caller.role !== 'ADMIN') throw forbidden('Only an ADMIN sets a job\'s customer.');
  await lockJobClock(tx);
  const row = await lockJob(tx, id, visibilityOf(caller));
  if (!row) throw jobNotFound();
  if (customerId !== null && (await customersByIds(tx, [customerId])).length === 0) throw validationFailed({ customer_id: 'No such customer in this workspace.' });
  return setJobCustomer(tx, caller.organizationId, { job: row, customerId, userId: caller.userId, audit });
}

/** D11: the job's money once complete: its completion invoice, in dollars (null when none was kept). */
async function completionInvoiceView(tx: EntityManager, jobId: string): Promise<CompletionInvoice | null> {
  const invoice = await completionInvoiceOfJob(tx, jobId);
  if (!invoice) return null;
  const tax = quoteTax(invoice.taxRegion, invoice.subtotalCents);
  return {
    status: invoice.status,
    kind: invoice.kind,
    customer_id: invoice.customerId,
    lines: invoice.lines.map((line) => ({ description: line.description, sku: line.sku, quantity: line.quantity, amount: dollars(line.amountCents) })),
    subtotal: dollars(invoice.subtotalCents),
    tax_lines: tax.lines.map((line) => ({ code: line.code, rate: Number(line.rate), amount: dollars(line.amount_cents) })),
    tax_total: dollars(tax.total_cents),
    total: dollars(invoice.subtotalCents + tax.total_cents),
    currency: 'CAD',
    invoice_id: invoice.invoiceId,
    missing_prices: invoice.awaitingPrice,
  };
}

/** D10-D11: the job interface. */
export class JobService {
  constructor(
    private readonly em: EntityManager,
    private readonly events?: EventDispatcher,
    /** Where a route's ETA recomputation reads travel times (D23): as the routes' own plans do. */
    private readonly travel: TravelConfig = GREAT_CIRCLE_TRAVEL,
  ) {}

  list(caller: Caller, query: JobListQuery): Promise<{ data: Job[]; next_cursor: string | null; has_more: boolean }> {
    const after = query.cursor ? cursorPosition(JOB_FEED_KEYSET, query.cursor) : undefined;
    const statuses = query.status === undefined ? undefined : Array.isArray(query.status) ? query.status : [query.status];
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const rows = await jobPage(tx, { ...visibilityOf(caller), statuses, crewId: query.crew_id, siteId: query.site_id, q: query.q, updatedSince: query.updated_since, after, limit: query.limit });
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      const hasMore = rows.length > query.limit;
      // A cursor even on the last page: a poller resumes from it and sees only later changes.
      return { data: page.map(toJob), next_cursor: last ? encodeCursor(JOB_FEED_KEYSET.of(last)) : (query.cursor ?? null), has_more: hasMore };
    });
  }

  /**
   * D11: a job's append-only history, oldest first, so dispatch stays reconstructable from the
   * interface (document 001 section 3): every status move with its notes, crew change, time
   * entry, material draw and change-order step, with who and when. Visible as the job is (D10).
   */
  history(caller: Caller, id: string, query: JobHistoryQuery): Promise<{ data: JobHistoryEntry[]; next_cursor: string | null; has_more: boolean }> {
    const after = query.cursor ? cursorPosition(JOB_HISTORY_KEYSET, query.cursor)[0] : undefined;
    return inTenant(this.em, caller.organizationId, async (tx) => {
      if (!(await jobById(tx, id, visibilityOf(caller)))) throw jobNotFound();
      const rows = await jobHistoryPage(tx, id, { ...(after ? { afterSequence: after } : {}), limit: query.limit });
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return {
        data: page.map((row) => ({
          kind: row.kind,
          from_status: row.from_status,
          to_status: row.to_status,
          detail: row.detail,
          changed_by: row.changed_by_user_id,
          changed_at: iso(row.changed_at)!,
        })),
        // As the jobs feed: a cursor even on the last page, to resume from and see only later entries.
        next_cursor: last ? encodeCursor(JOB_HISTORY_KEYSET.of(last)) : (query.cursor ?? null),
        has_more: rows.length > query.limit,
      };
    });
  }

  get(caller: Caller, id: string): Promise<JobDetail> {
    return inTenant(this.em, caller.organizationId, (tx) => this.detail(tx, caller, id));
  }

  private async detail(tx: EntityManager, caller: Caller, id: string): Promise<JobDetail> {
    const row = await jobById(tx, id, visibilityOf(caller));
    if (!row) throw jobNotFound();
    const [changeOrders, timeEntries, draws] = [await changeOrdersOfJobs(tx, [id]), await timeEntriesOfJobs(tx, [id]), await materialDrawsOfJobs(tx, [id])];
    const [stored] = await jobScheduleRows(tx, [id]);
    return {
      ...toJob(row),
      customer_id: row.customer_id,
      completion_invoice: await completionInvoiceView(tx, id),
      change_orders: changeOrders.map((co) => toChangeOrder(co, row.quote_number)),
      time_entries: timeEntries.map((t) => ({
        id: t.id,
        technician_id: t.technician_id,
        started_at: iso(t.started_at)!,
        ended_at: iso(t.ended_at)!,
        hours: new Decimal(t.hours).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber(),
        notes: t.notes,
        created_at: iso(t.created_at)!,
      })),
      material_draws: draws.map((d) => ({ id: d.id, sku: d.sku_code, quantity: d.quantity, unit: d.unit, van_id: d.van_id, drawn_by: d.drawn_by_user_id, created_at: iso(d.created_at)! })),
      schedule: jobSchedule({
        windowStart: stored!.window_start,
        windowEnd: stored!.window_end,
        durationMinutes: stored!.duration_minutes,
        addedSkills: stored!.added_skills,
        lines: stored!.lines,
        hoursEstimated: row.hours_estimated,
        hoursLogged: row.hours_logged,
        headcount: row.crew_headcount,
        workingDayStart: (await organizationSettings(tx)).working_day_start,
      }),
    };
  }

  /**
   * D11's table; a repeated status is 200 with nothing changed and no event. `customer_id`
   * (ADMIN) is set first, in the same transaction, so a job given its customer as it completes
   * is invoiced to it at once.
   */
  async patch(caller: Caller, id: string, body: PatchJobBody, audit: { actor: AuditActor; requestId: string | null }): Promise<JobDetail> {
    if (body.status === undefined && body.completed_at !== undefined) throw validationFailed({ completed_at: 'Only with status complete.' });
    const { job, events } = await inTenant(this.em, caller.organizationId, async (tx) => {
      const events: EventEnvelope[] = [];
      if (body.customer_id !== undefined) events.push(...(await setJobCustomerWithin(tx, caller, id, body.customer_id, audit)));
      if (body.status !== undefined) {
        events.push(...(await moveJobWithin(tx, caller, id, { status: body.status, ...(body.completed_at === undefined ? {} : { completed_at: body.completed_at }) }, this.travel)));
      }
      return { job: await this.detail(tx, caller, id), events };
    });
    await this.dispatch(events);
    return job;
  }

  /** D11: ADMIN assigns a crew; the work order's assignee follows its foreman; D23: the routes of its date follow. */
  async assignCrew(caller: Caller, id: string, crewId: string): Promise<JobDetail> {
    const { job, events } = await inTenant(this.em, caller.organizationId, async (tx) => {
      const events = await assignCrewWithin(tx, caller, id, crewId, this.travel);
      return { job: await this.detail(tx, caller, id), events };
    });
    await this.dispatch(events);
    return job;
  }

  /** D11: a crew technician logs their own time, ADMIN anyone's; no overlap per technician, at most 16 hours. */
  async addTimeEntry(caller: Caller, id: string, body: TimeEntryBody): Promise<JobDetail> {
    if (caller.role === 'TECHNICIAN' && body.technician_id && body.technician_id !== caller.userId) throw forbidden('A technician logs only their own time.');
    const started = new Date(body.started_at);
    const ended = new Date(body.ended_at);
    const technicianId = body.technician_id ?? caller.userId;
    const { job, events } = await inTenant(this.em, caller.organizationId, async (tx) => {
      await lockJobClock(tx);
      const row = await lockJob(tx, id, visibilityOf(caller));
      if (!row) throw jobNotFound();
      if (TERMINAL_JOB_STATUSES.includes(row.job_status)) throw conflict(`The job is ${row.job_status}: no more time is logged on it.`);
      if (ended <= started) throw validationFailed({ ended_at: 'Must be after started_at.' });
      if (ended.getTime() - started.getTime() > 16 * 3600_000) throw validationFailed({ ended_at: 'An entry is at most 16 hours.' });
      if (caller.role === 'ADMIN' && !body.technician_id) throw validationFailed({ technician_id: 'Required for ADMIN: whose time it is.' });
      const tech = await userRoleAndActive(tx, technicianId);
      if (!tech || tech.role !== 'TECHNICIAN' || !tech.active) throw validationFailed({ technician_id: 'Must be an active technician of this workspace.' });
      try {
        const entry = await insertTimeEntry(tx, { jobId: id, technicianId, startedAt: started, endedAt: ended, notes: body.notes ?? null, createdBy: caller.userId });
        await recordJobHistory(tx, { jobId: id, kind: 'time_entry', userId: caller.userId, detail: { time_entry_id: entry, technician_id: technicianId, started_at: started.toISOString(), ended_at: ended.toISOString() } });
      } catch (error) {
        if (error instanceof TimeEntryOverlapError) throw conflict('The entry overlaps another time entry of the same technician.');
        throw error;
      }
      await touchJobs(tx, { jobId: id });
      // D23: time logged moves the ETAs of the stops after the job on its route.
      const events = await recomputeEtasWithEvents(tx, { jobId: id, travel: this.travel });
      return { job: await this.detail(tx, caller, id), events };
    });
    await this.dispatch(events);
    return job;
  }

  /** D11: a catalogue SKU (active in the current rate card), a positive decimal quantity in its unit. */
  addMaterialDraw(caller: Caller, id: string, body: MaterialDrawBody): Promise<JobDetail> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      await lockJobClock(tx);
      const row = await lockJob(tx, id, visibilityOf(caller));
      if (!row) throw jobNotFound();
      if (TERMINAL_JOB_STATUSES.includes(row.job_status)) throw conflict(`The job is ${row.job_status}: no more material is drawn for it.`);
      const sku = await activeSku(tx, body.sku);
      if (!sku) throw validationFailed({ sku: 'Not an active SKU of the current rate card.' });
      const draw = await insertMaterialDraw(tx, { jobId: id, sku: body.sku, quantity: body.quantity, unit: sku.unit, vanId: body.van_id ?? null, drawnBy: caller.userId });
      await recordJobHistory(tx, { jobId: id, kind: 'material_draw', userId: caller.userId, detail: { material_draw_id: draw, sku: body.sku, quantity: body.quantity } });
      await touchJobs(tx, { jobId: id });
      return this.detail(tx, caller, id);
    });
  }

  private async dispatch(events: EventEnvelope[]): Promise<void> {
    // After the commit (the outbox relay covers a failure here).
    await this.events?.tryDispatchAll(events);
  }
}

/**
 * D11: the job's crew, in the caller's tenant transaction `tx` (PUT /v1/fsm/jobs/{id}/crew and
 * GraphQL's assignCrew): the clock, then the row; a final job keeps its crew (409), every member
 * of the crew must be an active technician.
 */
export async function assignCrewWithin(tx: EntityManager, caller: Caller, id: string, crewId: string, travel: TravelConfig = GREAT_CIRCLE_TRAVEL): Promise<EventEnvelope[]> {
  await lockJobClock(tx);
  const row = await lockJob(tx, id, {});
  if (!row) throw jobNotFound();
  if (TERMINAL_JOB_STATUSES.includes(row.job_status)) throw conflict(`The job is ${row.job_status}: its crew no longer changes.`);
  const crew = await crewById(tx, crewId, true);
  if (!crew) throw notFound('crew_id: no such crew in this workspace.');
  const inactive = await deactivatedMembers(tx, crewId);
  if (inactive.length > 0) throw conflict(`The crew has members who are not active technicians (${inactive.join(', ')}); change the crew first.`);
  if (row.crew_id !== crewId) {
    await assignJobCrew(tx, id, crew);
    await recordJobHistory(tx, { jobId: id, kind: 'crew', userId: caller.userId, detail: { from_crew_id: row.crew_id, to_crew_id: crewId, foreman_user_id: crew.foreman_user_id } });
  }
  // D23: the routes of the job's date follow it, by the hand sequence's code (both routes told).
  try {
    return await rerouteAssignedJob(tx, { jobId: id, crewId, userId: caller.userId, travel });
  } catch (error) {
    if (error instanceof TravelTimesUnavailable) throw providerFailed(`${error.message} Nothing was applied.`);
    throw error;
  }
}
