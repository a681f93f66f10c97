import type { EntityManager } from '@mikro-orm/postgresql';
import canonicalize from 'canonicalize';
import { HOURS_ESTIMATED, HOURS_LOGGED, recordJobHistory } from './jobs';
import { PLAN_LIMITS, type Plan } from '../plans/plan-limits';
import type { PlannedRoute, PlanResult } from '../../domain/routing/plan';
import type { TimeOff, WeeklyHours } from '../../domain/routing/availability';
import type { DispatchState } from '../../domain/dispatch/dispatch-update';
import { SETTING_DEFAULTS } from '../../domain/organizations/settings';

/**
 * D23: a tenant's day for routing, read in its transaction, and the routes a plan or a hand
 * sequence stores. Each route's `revision` increases with every change of it.
 */

export interface DayJobRow {
  job_id: string;
  job_status: string;
  crew_id: string | null;
  site_id: string | null;
  lat: number | null;
  lon: number | null;
  hours_estimated: string;
  hours_logged: string;
  headcount: number | null;
}

/**
 * The day's jobs that are not finished (complete or cancelled), oldest first; `keep` also those of
 * these ids finished (a route's ETA recomputation reschedules from a completed stop's place).
 */
export function dayJobRows(em: EntityManager, date: string, keep: readonly string[] = []): Promise<DayJobRow[]> {
  return em.execute<DayJobRow[]>(
    `select w.id as job_id, w.job_status, w.crew_id, s.id as site_id, s.lat, s.lon,
            round(${HOURS_ESTIMATED}, 4)::text as hours_estimated, round(${HOURS_LOGGED}, 4)::text as hours_logged,
            (select count(*) from crew_members m where m.crew_id = w.crew_id)::int as headcount
       from work_orders w left join quotes q on q.id = w.quote_id left join sites s on s.id = w.site_id
      where w.scheduled_date = ?::date and (w.job_status not in ('complete', 'cancelled') or w.id in (select jsonb_array_elements_text(?::jsonb)::uuid))
      order by w.created_at, w.id`,
    [date, JSON.stringify(keep)],
  );
}

export interface StoredRoute {
  id: string;
  crew_id: string;
  revision: number;
  shift_start: string;
  shift_end: string;
  total_drive_minutes: number;
  overtime_minutes: number;
  stops: PlannedRoute['stops'];
  violations: PlannedRoute['violations'];
  travel_time_source: string;
  assignee_id: string;
  updated_at: Date;
  /** D23's coalescing: the shown attributes last told (null before the first event). */
  dispatch_told: DispatchState | null;
  /** Told within the workspace's coalescing window: a change now waits for the trailing event. */
  dispatch_told_recently: boolean;
  /** A trailing event is due (`dispatch_due`: now). */
  dispatch_pending: boolean;
  dispatch_due: boolean;
}

const ROUTES = `select r.id, r.crew_id, r.revision, r.shift_start, r.shift_end, r.total_drive_minutes, r.overtime_minutes, r.stops, r.violations,
                       r.travel_time_source, c.foreman_user_id as assignee_id, r.updated_at, r.dispatch_told,
                       (r.dispatch_told_at is not null and r.dispatch_told_at > clock_timestamp() - make_interval(secs => coalesce((select o.dispatch_coalesce_seconds from organizations o where o.id = r.organization_id), ${SETTING_DEFAULTS.dispatch_coalesce_seconds}))) as dispatch_told_recently,
                       r.dispatch_due_at is not null as dispatch_pending, (r.dispatch_due_at is not null and r.dispatch_due_at <= clock_timestamp()) as dispatch_due
                  from routes r join crews c on c.id = r.crew_id`;

/** The day's stored routes (empty ones included), by crew name; `crewIds` narrows to some crews. */
export function routesOfDay(em: EntityManager, date: string, crewIds?: readonly string[]): Promise<StoredRoute[]> {
  if (crewIds) {
    return em.execute<StoredRoute[]>(`${ROUTES} where r.route_date = ?::date and r.crew_id in (select (jsonb_array_elements_text(?::jsonb))::uuid) order by c.name, c.id`, [date, JSON.stringify(crewIds)]);
  }
  return em.execute<StoredRoute[]>(`${ROUTES} where r.route_date = ?::date order by c.name, c.id`, [date]);
}

export async function routeDay(em: EntityManager, date: string): Promise<{ unassigned: PlanResult['unassigned']; exclusions: PlanResult['exclusions']; travel_time_source: string } | undefined> {
  const [row] = await em.execute<{ unassigned: PlanResult['unassigned']; exclusions: PlanResult['exclusions']; travel_time_source: string }[]>(
    'select unassigned, exclusions, travel_time_source from route_days where route_date = ?::date',
    [date],
  );
  return row;
}

/** The tenant's plan's Routes (D15): how many crews may hold a route on one date. */
export async function routeLimit(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ plan: Plan }[]>('select plan from organizations where id = app_current_organization()');
  return PLAN_LIMITS[row?.plan ?? 'starter'].routes;
}


/** Serialises plans and hand sequences of one tenant and date (a transaction-scoped advisory lock). */
export async function lockRouteDay(em: EntityManager, date: string): Promise<void> {
  await em.execute(`select pg_advisory_xact_lock(hashtextextended('route-day:' || app_current_organization()::text || ':' || ?, 0))`, [date]);
}

/** Whether a route shows exactly what is stored (canonical JSON: jsonb keeps its keys in its own order). */
const sameRoute = (stored: StoredRoute, route: PlannedRoute, source: string) =>
  canonicalize([stored.shift_start, stored.shift_end, stored.total_drive_minutes, stored.overtime_minutes, stored.stops, stored.violations, stored.travel_time_source]) ===
  canonicalize([route.shift.start, route.shift.end, route.totalDriveMinutes, route.overtimeMinutes, route.stops, route.violations, source]);

/**
 * Stores one crew's route of the day: inserted at revision 1, or its revision raised when
 * anything it shows changed (nothing changed: nothing written). Answers the stored revision and
 * whether it changed.
 */
export async function storeRoute(em: EntityManager, date: string, route: PlannedRoute, source: string, existing: StoredRoute | undefined): Promise<{ revision: number; changed: boolean }> {
  if (existing && sameRoute(existing, route, source)) return { revision: existing.revision, changed: false };
  const [row] = await em.execute<{ revision: number }[]>(
    `insert into routes (organization_id, route_date, crew_id, shift_start, shift_end, total_drive_minutes, overtime_minutes, stops, violations, travel_time_source)
     values (app_current_organization(), ?::date, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)
     on conflict (organization_id, route_date, crew_id) do update
       set revision = routes.revision + 1, shift_start = excluded.shift_start, shift_end = excluded.shift_end, total_drive_minutes = excluded.total_drive_minutes,
           overtime_minutes = excluded.overtime_minutes, stops = excluded.stops, violations = excluded.violations, travel_time_source = excluded.travel_time_source, updated_at = now()
     returning revision`,
    [date, route.crewId, route.shift.start, route.shift.end, route.totalDriveMinutes, route.overtimeMinutes, JSON.stringify(route.stops), JSON.stringify(route.violations), source],
  );
  return { revision: row!.revision, changed: true };
}

/** A crew's route emptied (its jobs went elsewhere): kept with no stops and a new revision. */
export async function emptyRoute(em: EntityManager, existing: StoredRoute): Promise<number> {
  if (existing.stops.length === 0) return existing.revision;
  const [row] = await em.execute<{ revision: number }[]>(
    `update routes set revision = revision + 1, stops = '[]', violations = '[]', total_drive_minutes = 0, overtime_minutes = 0, updated_at = now() where id = ? returning revision`,
    [existing.id],
  );
  return row!.revision;
}

export async function storeRouteDay(em: EntityManager, date: string, result: Pick<PlanResult, 'unassigned' | 'exclusions' | 'travelTimeSource'>): Promise<void> {
  await em.execute(
    `insert into route_days (organization_id, route_date, unassigned, exclusions, travel_time_source) values (app_current_organization(), ?::date, ?::jsonb, ?::jsonb, ?)
     on conflict (organization_id, route_date) do update set unassigned = excluded.unassigned, exclusions = excluded.exclusions, travel_time_source = excluded.travel_time_source, planned_at = now()`,
    [date, JSON.stringify(result.unassigned), JSON.stringify(result.exclusions), result.travelTimeSource],
  );
}

/** D11: a job moves to another crew (its work order's assignee follows the foreman), with its history. */
export async function moveJobToCrew(em: EntityManager, move: { jobId: string; fromCrewId: string | null; crewId: string; foremanId: string; userId: string; date: string; sequence: number }): Promise<void> {
  await em.execute('update work_orders set crew_id = ?, assigned_technician_id = ? where id = ?', [move.crewId, move.foremanId, move.jobId]);
  await recordJobHistory(em, { jobId: move.jobId, kind: 'crew', userId: move.userId, detail: { from_crew_id: move.fromCrewId, to_crew_id: move.crewId, foreman_user_id: move.foremanId, route_date: move.date } });
}

/** A job's place in a route changed (same crew): recorded in its history. */
export async function recordSequence(em: EntityManager, entry: { jobId: string; crewId: string; userId: string; date: string; from: number | null; to: number | null }): Promise<void> {
  await recordJobHistory(em, { jobId: entry.jobId, kind: 'route', userId: entry.userId, detail: { crew_id: entry.crewId, route_date: entry.date, from_sequence: entry.from, to_sequence: entry.to } });
}

export interface DayCrewRow {
  id: string;
  name: string;
  foreman_user_id: string;
  member_ids: string[];
}

/** Every crew with its members, without reading users (the worker may not). */
export function dayCrewRows(em: EntityManager): Promise<DayCrewRow[]> {
  return em.execute<DayCrewRow[]>(
    `select c.id, c.name, c.foreman_user_id,
            coalesce((select array_agg(m.user_id::text order by m.user_id) from crew_members m where m.crew_id = c.id), '{}') as member_ids
       from crews c order by c.name, c.id`,
  );
}

export interface TechnicianDayRow {
  user_id: string;
  skills: string[];
  weekly: WeeklyHours[] | null;
  time_off: TimeOff[];
}

/** Technicians' routing rows (one without a row has no skills and D23's default week). */
export function technicianDayRows(em: EntityManager): Promise<TechnicianDayRow[]> {
  return em.execute<TechnicianDayRow[]>('select user_id, skills, weekly, time_off from technician_routing');
}

/** A route's job as its ETA recomputation reads it (D23): its status and its time on the route's date, local `YYYY-MM-DDTHH:mm`. */
export interface StopProgressRow {
  job_id: string;
  job_status: string;
  scheduled_date: string;
  /** The first time entry's start on the date, else the job's actual start on the date. */
  started_local: string | null;
  last_ended_local: string | null;
}

/** The progress of these jobs on `date` in the workspace's zone `timeZone` (time entries starting or ending that day). */
export function stopProgressRows(em: EntityManager, jobIds: readonly string[], date: string, timeZone: string): Promise<StopProgressRow[]> {
  if (jobIds.length === 0) return Promise.resolve([]);
  return em.execute<StopProgressRow[]>(
    `with local as (
       select t.work_order_id, t.started_at at time zone ? as started, t.ended_at at time zone ? as ended from time_entries t
        where t.work_order_id in (select jsonb_array_elements_text(?::jsonb)::uuid)
     )
     select w.id as job_id, w.job_status, w.scheduled_date::text as scheduled_date,
            to_char(coalesce((select min(l.started) from local l where l.work_order_id = w.id and (l.started::date = ?::date or l.ended::date = ?::date)),
                             case when (w.actual_start at time zone ?)::date = ?::date then w.actual_start at time zone ? end), 'YYYY-MM-DD"T"HH24:MI') as started_local,
            to_char((select max(l.ended) from local l where l.work_order_id = w.id and (l.started::date = ?::date or l.ended::date = ?::date)), 'YYYY-MM-DD"T"HH24:MI') as last_ended_local
       from work_orders w where w.id in (select jsonb_array_elements_text(?::jsonb)::uuid)`,
    [timeZone, timeZone, JSON.stringify(jobIds), date, date, timeZone, date, timeZone, date, date, JSON.stringify(jobIds)],
  );
}

/** The date and crew of a job (where its route would be), or undefined. */
export async function jobRoutePlace(em: EntityManager, jobId: string): Promise<{ scheduled_date: string | null; crew_id: string | null } | undefined> {
  const [row] = await em.execute<{ scheduled_date: string | null; crew_id: string | null }[]>('select scheduled_date::text as scheduled_date, crew_id from work_orders where id = ?', [jobId]);
  return row;
}

/** These jobs' estimated hours and crew headcount (their default duration's inputs). */
export function jobEstimateRows(em: EntityManager, jobIds: readonly string[]): Promise<{ job_id: string; hours_estimated: string; headcount: number | null }[]> {
  return em.execute(
    `select w.id as job_id, round(${HOURS_ESTIMATED}, 4)::text as hours_estimated, (select count(*) from crew_members m where m.crew_id = w.crew_id)::int as headcount
       from work_orders w left join quotes q on q.id = w.quote_id where w.id in (select jsonb_array_elements_text(?::jsonb)::uuid)`,
    [JSON.stringify(jobIds)],
  );
}

/** D23: the state told of a route and when (now); no trailing event is due. */
export async function markDispatchTold(em: EntityManager, routeId: string, told: DispatchState): Promise<void> {
  await em.execute('update routes set dispatch_told = ?::jsonb, dispatch_told_at = clock_timestamp(), dispatch_due_at = null where id = ?', [JSON.stringify(told), routeId]);
}

/** D23: a change within the window waits for one trailing event, due a window after the last told (kept when already due). */
export async function markDispatchDue(em: EntityManager, routeId: string): Promise<void> {
  await em.execute(
    `update routes r set dispatch_due_at = coalesce(r.dispatch_due_at, r.dispatch_told_at + make_interval(secs => coalesce((select o.dispatch_coalesce_seconds from organizations o where o.id = r.organization_id), ${SETTING_DEFAULTS.dispatch_coalesce_seconds})))
      where r.id = ?`,
    [routeId],
  );
}

/** D23: the route is back at the state it told: nothing is due. */
export async function clearDispatchDue(em: EntityManager, routeId: string): Promise<void> {
  await em.execute('update routes set dispatch_due_at = null where id = ? and dispatch_due_at is not null', [routeId]);
}

/** Across tenants, for the outbox relay (its door, dispatch_due_days): the days with a route whose trailing event is due. */
export function dueDispatchDays(em: EntityManager, limit: number): Promise<{ organization_id: string; route_date: string }[]> {
  return em.fork().execute('select organization_id, route_date from dispatch_due_days(?)', [limit]);
}
