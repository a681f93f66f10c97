import type { EntityManager } from '@mikro-orm/postgresql';
import { organizationSettings } from '../../db/organizations';
import { jobScheduleRows } from '../../db/fsm/routing-data';
import { dayCrewRows, dayJobRows, technicianDayRows, emptyRoute, lockRouteDay, moveJobToCrew, recordSequence, routeLimit, routesOfDay, storeRoute, storeRouteDay, type StoredRoute } from '../../db/fsm/routes';
import { lockJobClock } from '../../db/fsm/jobs';
import { conflict } from '../../domain/errors/errors';
import { crewDay } from '../../domain/routing/availability';
import { minutesOf } from '../../domain/routing/clock';
import { jobSchedule } from '../../domain/routing/job-schedule';
import type { DayInput, PlannedRoute, PlanResult } from '../../domain/routing/plan';
import { greatCircleSource, type TravelTimeSource } from '../../domain/routing/travel/source';
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
export async function readDay(tx: EntityManager, date: string): Promise<DayRows> {
  const settings = await organizationSettings(tx);
  if (!settings.depot) throw conflict('The workspace has no depot: set it with PATCH /api/v1/organization {"depot": {"lat", "lon"}} before planning routes.');
  const depot = settings.depot;
  const jobs = await dayJobRows(tx, date);
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
export async function loadDay(tx: EntityManager, date: string, config: TravelConfig): Promise<DayInput> {
  const rows = await readDay(tx, date);
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

type ApplyInput = { date: string; userId: string; routes: PlannedRoute[]; source: string; emptyOthers: boolean; day?: Pick<PlanResult, 'unassigned' | 'exclusions' | 'travelTimeSource'> };

/** `applyRoutes`, answering also the `dispatch.updated` events it recorded (D23), to dispatch after the commit. */
export async function applyRoutesWithEvents(tx: EntityManager, input: ApplyInput): Promise<{ applied: AppliedRoute[]; events: EventEnvelope[] }> {
  await lockJobClock(tx);
  await lockRouteDay(tx, input.date);
  const stored = await routesOfDay(tx, input.date);
  const jobs = new Map((await dayJobRows(tx, input.date)).map((j) => [j.job_id, j]));
  const previousPlace = new Map(stored.flatMap((r) => r.stops.map((s) => [s.jobId, { crewId: r.crew_id, sequence: s.sequence }] as const)));
  const applied: AppliedRoute[] = [];
  const placed = new Set(input.routes.flatMap((r) => r.stops.map((s) => s.jobId)));
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
