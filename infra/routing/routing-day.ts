import type { EntityManager } from '@mikro-orm/postgresql';
import { organizationSettings } from '../../db/organizations';
import { jobScheduleRows } from '../../db/fsm/routing-data';
import { dayCrewRows, dayJobRows, jobEstimateRows, jobRoutePlace, stopProgressRows, technicianDayRows, emptyRoute, lockRouteDay, moveJobToCrew, recordSequence, routeLimit, routesOfDay, storeRoute, storeRouteDay, type StoredRoute } from '../../db/fsm/routes';
import { lockJobClock } from '../../db/fsm/jobs';
import { setScheduledDate } from '../../db/work-orders/work-orders';
import { conflict } from '../../domain/errors/errors';
import { crewDay } from '../../domain/routing/availability';
import { minutesOf } from '../../domain/routing/clock';
import { jobSchedule } from '../../domain/routing/job-schedule';
import { handRoute, progressedRoute, type DayInput, type PlannedRoute, type PlanResult } from '../../domain/routing/plan';
import { driftsBeyond, minutesOnDate, progressAnchor } from '../../domain/dispatch/eta-drift';
import { instantToLocal } from '../../domain/organizations/local-time';
import { greatCircleSource, TravelTimesUnavailable, type TravelTimeSource } from '../../domain/routing/travel/source';
import type { LatLon } from '../../domain/routing/travel/great-circle';
import type { OrganizationSettings } from '../../domain/organizations/settings';
import { osrmSource } from './osrm';
import { recordDispatchUpdates } from '../../db/fsm/dispatch-events';
import type { EventEnvelope } from '../../domain/events/catalogue';

/** Where travel times come from (D23): OSRM when ROUTING_OSRM_URL is set, else the great circle. */
export interface TravelConfig {
  osrmUrl?: string | undefined;
  osrmTimeoutMs: number;
}

/** No OSRM: great-circle times (a deployment without ROUTING_OSRM_URL). */
export const GREAT_CIRCLE_TRAVEL: TravelConfig = { osrmTimeoutMs: 0 };

export function travelSource(config: TravelConfig, settings: Pick<OrganizationSettings, 'road_factor' | 'average_speed_kmh'>): TravelTimeSource {
  if (config.osrmUrl) return osrmSource({ baseUrl: config.osrmUrl, timeoutMs: config.osrmTimeoutMs });
  return greatCircleSource({ roadFactor: settings.road_factor, averageSpeedKmh: settings.average_speed_kmh });
}

/** What the day's rows say, before travel times: the points to price and how to finish the day. */
export interface DayRows {
  settings: OrganizationSettings;
  points: LatLon[];
  build: (travel: number[][], source: TravelTimeSource['name']) => DayInput;
  stored: StoredRoute[];
}

/**
 * D23: reads a tenant's day in its transaction (the caller's `tx`): the jobs not finished on the
 * date with their schedules, every crew with its members' skills and hours, the stored routes,
 * the depot and the plan's route limit. A workspace without a depot cannot be routed (409).
 */
export async function readDay(tx: EntityManager, date: string, keep: readonly string[] = []): Promise<DayRows> {
  const settings = await organizationSettings(tx);
  if (!settings.depot) throw conflict('The workspace has no depot: set it with PATCH /api/v1/organization {"depot": {"lat", "lon"}} before planning routes.');
  const depot = settings.depot;
  const jobs = await dayJobRows(tx, date, keep);
  const schedules = new Map((await jobScheduleRows(tx, jobs.map((j) => j.job_id))).map((s) => [s.job_id, s]));
  const crews = await dayCrewRows(tx);
  const technicians = new Map((await technicianDayRows(tx)).map((t) => [t.user_id, t]));
  const stored = await routesOfDay(tx, date);
  const limit = await routeLimit(tx);
  const points: LatLon[] = [depot];
  const siteIndex = new Map<string, number>();
  for (const job of jobs) {
    if (job.site_id && job.lat !== null && job.lon !== null && !siteIndex.has(job.site_id)) {
      siteIndex.set(job.site_id, points.length);
      points.push({ lat: job.lat, lon: job.lon });
    }
  }
  const build = (travel: number[][], source: TravelTimeSource['name']): DayInput => ({
    date,
    depot: 0,
    travel,
    overtimeCap: settings.overtime_cap_minutes,
    routeLimit: limit,
    travelTimeSource: source,
    jobs: jobs.map((job) => {
      const stored = schedules.get(job.job_id)!;
      const schedule = jobSchedule({
        windowStart: stored.window_start,
        windowEnd: stored.window_end,
        durationMinutes: stored.duration_minutes,
        addedSkills: stored.added_skills,
        lines: stored.lines,
        hoursEstimated: job.hours_estimated,
        hoursLogged: job.hours_logged,
        headcount: job.headcount,
        workingDayStart: settings.working_day_start,
      });
      return {
        id: job.job_id,
        status: job.job_status,
        crewId: job.crew_id,
        location: job.site_id ? (siteIndex.get(job.site_id) ?? null) : null,
        windowStart: minutesOf(schedule.window_start),
        windowEnd: minutesOf(schedule.window_end),
        duration: schedule.duration_minutes,
        requiredSkills: schedule.required_skills,
      };
    }),
    crews: crews.map((crew) => {
      const members = crew.member_ids.map((id) => technicians.get(id) ?? { user_id: id, skills: [], weekly: null, time_off: [] });
      return {
        id: crew.id,
        name: crew.name,
        foremanId: crew.foreman_user_id,
        skills: [...new Set(members.flatMap((m) => m.skills))].sort(),
        day: crewDay(members.map((m) => ({ weekly: m.weekly, timeOff: m.time_off })), date),
        currentStops: stored.find((r) => r.crew_id === crew.id)?.stops.map((s) => s.jobId) ?? [],
      };
    }),
  });
  return { settings, points, build, stored };
}

/** Reads the day and prices its travel: the input of a plan or a hand sequence. */
export async function loadDay(tx: EntityManager, date: string, config: TravelConfig, keep: readonly string[] = []): Promise<DayInput> {
  const rows = await readDay(tx, date, keep);
  const source = travelSource(config, rows.settings);
  return rows.build(await source.minutes(rows.points), source.name);
}

export interface AppliedRoute {
  crewId: string;
  revision: number;
  changed: boolean;
}

/**
 * Applies routes in the caller's transaction: each job moves to the crew whose route holds it
 * (history recorded), each route is stored with its revision raised when it changed, a crew that
 * held stops and holds none now keeps an empty route (a change too), and the day's unassigned
 * jobs and exclusions are kept for GET /v1/fsm/routes. `emptyOthers`: a plan owns every route of
 * the day; a hand sequence only its crew's (and the routes its jobs leave).
 */
export async function applyRoutes(tx: EntityManager, input: ApplyInput): Promise<AppliedRoute[]> {
  return (await applyRoutesWithEvents(tx, input)).applied;
}

type ApplyInput = {
  date: string;
  userId: string;
  routes: PlannedRoute[];
  source: string;
  emptyOthers: boolean;
  day?: Pick<PlanResult, 'unassigned' | 'exclusions' | 'travelTimeSource'>;
  /** Jobs that leave the day's routes for no other (`redateJob`): taken off as a hand sequence takes a stop, their history records it. */
  leaving?: readonly string[];
};

/** `applyRoutes`, answering also the `dispatch.updated` events it recorded (D23), to dispatch after the commit. */
export async function applyRoutesWithEvents(tx: EntityManager, input: ApplyInput): Promise<{ applied: AppliedRoute[]; events: EventEnvelope[] }> {
  await lockJobClock(tx);
  await lockRouteDay(tx, input.date);
  const stored = await routesOfDay(tx, input.date);
  const jobs = new Map((await dayJobRows(tx, input.date)).map((j) => [j.job_id, j]));
  const previousPlace = new Map(stored.flatMap((r) => r.stops.map((s) => [s.jobId, { crewId: r.crew_id, sequence: s.sequence }] as const)));
  const applied: AppliedRoute[] = [];
  const placed = new Set([...input.routes.flatMap((r) => r.stops.map((s) => s.jobId)), ...(input.leaving ?? [])]);
  for (const jobId of input.leaving ?? []) {
    const before = previousPlace.get(jobId);
    if (before) await recordSequence(tx, { jobId, crewId: before.crewId, userId: input.userId, date: input.date, from: before.sequence, to: null });
  }
  for (const route of input.routes) {
    for (const stop of route.stops) {
      const job = jobs.get(stop.jobId);
      if (!job) continue;
      if (job.crew_id !== route.crewId) {
        await moveJobToCrew(tx, { jobId: stop.jobId, fromCrewId: job.crew_id, crewId: route.crewId, foremanId: route.assigneeId, userId: input.userId, date: input.date, sequence: stop.sequence });
      }
      const before = previousPlace.get(stop.jobId);
      if (!before || before.crewId !== route.crewId || before.sequence !== stop.sequence) {
        await recordSequence(tx, { jobId: stop.jobId, crewId: route.crewId, userId: input.userId, date: input.date, from: before?.crewId === route.crewId ? before.sequence : null, to: stop.sequence });
      }
    }
    const result = await storeRoute(tx, input.date, route, input.source, stored.find((r) => r.crew_id === route.crewId));
    applied.push({ crewId: route.crewId, ...result });
  }
  for (const old of stored) {
    if (input.routes.some((r) => r.crewId === old.crew_id)) continue;
    const kept = old.stops.filter((s) => !placed.has(s.jobId));
    if (!input.emptyOthers && kept.length === old.stops.length) continue;
    if (input.emptyOthers || kept.length === 0) {
      const revision = await emptyRoute(tx, old);
      applied.push({ crewId: old.crew_id, revision, changed: revision !== old.revision });
    } else {
      // A hand sequence took some of this crew's stops: the rest keep their order, renumbered (ETAs are the next check's).
      const route: PlannedRoute = {
        crewId: old.crew_id,
        assigneeId: old.assignee_id,
        shift: { start: old.shift_start, end: old.shift_end },
        totalDriveMinutes: old.total_drive_minutes,
        overtimeMinutes: old.overtime_minutes,
        stops: kept.map((s, i) => ({ ...s, sequence: i + 1 })),
        violations: old.violations.filter((v) => !placed.has(v.jobId)),
      };
      applied.push({ crewId: old.crew_id, ...(await storeRoute(tx, input.date, route, old.travel_time_source, old)) });
    }
  }
  if (input.day) await storeRouteDay(tx, input.date, input.day);
  // D23: every route that changed tells it, in this transaction (both routes of a moved job).
  const events = await recordDispatchUpdates(tx, input.date, stored, await routesOfDay(tx, input.date));
  return { applied, events };
}

/**
 * The routes of a job's scheduled date, read under the day's lock so that no plan or hand sequence
 * changes them until the caller's transaction ends; nothing for a job without a date.
 */
async function lockDayOfJob(tx: EntityManager, jobId: string): Promise<{ date: string; stored: StoredRoute[] } | undefined> {
  const place = await jobRoutePlace(tx, jobId);
  if (!place?.scheduled_date) return undefined;
  const date = place.scheduled_date;
  await lockRouteDay(tx, date);
  return { date, stored: await routesOfDay(tx, date) };
}

/**
 * D23's ETA drift, in the caller's transaction after a job's status changed or time was logged on
 * it: the route holding the job on its date is recomputed from the crew's last started stop
 * (domain/dispatch/eta-drift.ts, domain/routing/plan.ts `progressedRoute`); when a stop's ETA moved
 * by more than the workspace's `eta_drift_threshold_minutes` from the ETA last stored (and told),
 * the route is stored and `dispatch.updated` is recorded. A smaller move is neither stored nor
 * told, so the moves add up until one is told. Answers the recorded events, to dispatch after the
 * commit. A job on no route, or a day that cannot be priced now (travel times unavailable), changes nothing.
 */
export async function recomputeEtasWithEvents(tx: EntityManager, input: { jobId: string; travel: TravelConfig; now?: Date }): Promise<EventEnvelope[]> {
  const locked = await lockDayOfJob(tx, input.jobId);
  if (!locked) return [];
  const { date, stored } = locked;
  const route = stored.find((r) => r.stops.some((s) => s.jobId === input.jobId));
  if (!route) return [];
  const settings = await organizationSettings(tx);
  const jobIds = route.stops.map((s) => s.jobId);
  const progress = new Map(
    (await stopProgressRows(tx, jobIds, date, settings.time_zone)).map((row) => [
      row.job_id,
      {
        status: row.job_status,
        startedAt: row.started_local === null ? null : minutesOnDate(date, row.started_local),
        lastEndedAt: row.last_ended_local === null ? null : minutesOnDate(date, row.last_ended_local),
      },
    ]),
  );
  let day: DayInput;
  try {
    day = await loadDay(tx, date, input.travel, jobIds);
  } catch (error) {
    if (error instanceof TravelTimesUnavailable) return [];
    throw error;
  }
  // The whole duration of a started job: D23's default counts only the hours not yet logged.
  const rows = await readDayDurations(tx, jobIds, settings.working_day_start);
  const local = instantToLocal(input.now ?? new Date(), settings.time_zone);
  const now = local.slice(0, 10) === date ? minutesOnDate(date, local.slice(0, 16)) : null;
  const anchor = progressAnchor(date, route.stops, progress, (jobId) => rows.get(jobId) ?? 0, now);
  if (!anchor) return [];
  const recomputed = progressedRoute(day, { crewId: route.crew_id, assigneeId: route.assignee_id, stops: route.stops, violations: route.violations }, anchor);
  if (!driftsBeyond(route.stops, recomputed.stops, settings.eta_drift_threshold_minutes)) return [];
  await storeRoute(tx, date, recomputed as PlannedRoute, route.travel_time_source, route);
  return recordDispatchUpdates(tx, date, stored, await routesOfDay(tx, date));
}

/** Each job's whole duration in minutes: the office's, else D23's default with nothing logged yet. */
async function readDayDurations(tx: EntityManager, jobIds: readonly string[], workingDayStart: string): Promise<Map<string, number>> {
  const schedules = await jobScheduleRows(tx, jobIds);
  const estimates = new Map((await jobEstimateRows(tx, jobIds)).map((row) => [row.job_id, row]));
  return new Map(
    schedules.map((stored) => {
      const job = estimates.get(stored.job_id);
      const schedule = jobSchedule({
        windowStart: stored.window_start,
        windowEnd: stored.window_end,
        durationMinutes: stored.duration_minutes,
        addedSkills: stored.added_skills,
        lines: stored.lines,
        hoursEstimated: job?.hours_estimated ?? '0',
        hoursLogged: '0',
        headcount: job?.headcount ?? null,
        workingDayStart,
      });
      return [stored.job_id, schedule.duration_minutes];
    }),
  );
}

/**
 * D23: a job given to another crew by hand (PUT /v1/fsm/jobs/{id}/crew, GraphQL assignCrew) moves
 * on the routes of its date through the hand sequence's code: appended to the new crew's route,
 * taken off the route that held it, both told (`reassignment`). Nothing when neither crew has a
 * route that day (the day was not routed) or the job is already on the new crew's route. Answers
 * the recorded events, to dispatch after the commit.
 */
export async function rerouteAssignedJob(tx: EntityManager, input: { jobId: string; crewId: string; userId: string; travel: TravelConfig }): Promise<EventEnvelope[]> {
  const locked = await lockDayOfJob(tx, input.jobId);
  if (!locked) return [];
  const { date, stored } = locked;
  const holder = stored.find((r) => r.stops.some((s) => s.jobId === input.jobId));
  const target = stored.find((r) => r.crew_id === input.crewId);
  if (holder?.crew_id === input.crewId || (!holder && !target?.stops.length)) return [];
  const day = await loadDay(tx, date, input.travel);
  const open = new Set(day.jobs.map((j) => j.id));
  if (!open.has(input.jobId)) return [];
  const stops = [...(target?.stops.map((s) => s.jobId).filter((id) => open.has(id)) ?? []), input.jobId];
  const route = handRoute(day, input.crewId, stops);
  return (await applyRoutesWithEvents(tx, { date, userId: input.userId, routes: [route], source: day.travelTimeSource, emptyOthers: false })).events;
}

/**
 * D23: the one way a job's scheduled date changes (PATCH /api/v1/work-orders/{id} and GraphQL
 * scheduleWorkOrder, through editWorkOrderWithin): the date is written, and the job leaves the
 * route of its old date by the hand sequence's code (`applyRoutesWithEvents`): the stops after it
 * move up, its history records the stop it left (`route`, `to_sequence` null), and that route is
 * told (`reassignment`, with the prior stops). It joins no route on its new date: a route is a plan's
 * or a hand sequence's, so there it is unassigned until one places it (docs/routes.md). In the
 * caller's transaction, after the job's row lock; answers the recorded events, to dispatch after the commit.
 */
export async function redateJob(tx: EntityManager, input: { jobId: string; date: string | null; userId: string }): Promise<EventEnvelope[]> {
  const from = (await jobRoutePlace(tx, input.jobId))?.scheduled_date ?? null;
  if (from === input.date) return [];
  await setScheduledDate(tx, input.jobId, input.date);
  if (from === null) return [];
  const { events } = await applyRoutesWithEvents(tx, { date: from, userId: input.userId, routes: [], source: '', emptyOthers: false, leaving: [input.jobId] });
  return events;
}
