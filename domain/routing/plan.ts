import type { RoutingCrew, RoutingJob, RoutingProblem, Solver } from './problem';
import { breakPoint, scheduleRoute, type RouteSchedule } from './route-schedule';
import { checkDay, checkPair, routingCrew, routingJob, type CheckContext, type CheckedCrew, type CheckedJob, type ExclusionCode, type ExclusionReason } from './constraints';
import { hhmm, localDateTime } from './clock';
import type { CrewDay } from './availability';
import type { TravelTimeSourceName } from './travel/source';

/**
 * D23's plan of one tenant's day, as pure code: the constraint checker decides which crew may
 * take which job (and why not), the solver sequences only the allowed pairs, and a job it leaves
 * out although allowed is reported with the constraint that bound when it is inserted into each
 * allowed crew's day. Times are local minutes of the day; answers are local `HH:mm`.
 */

export type PlanMode = 'optimize' | 'check';

export interface DayJob extends CheckedJob {
  status: string;
  crewId: string | null;
}

export interface DayCrew {
  id: string;
  name: string;
  foremanId: string;
  skills: readonly string[];
  day: CrewDay;
  /** The crew's stored route of the day, job ids in order (empty when none). */
  currentStops: readonly string[];
}

export interface DayInput {
  date: string;
  jobs: readonly DayJob[];
  crews: readonly DayCrew[];
  /** Minutes; index `depot` is the depot, each located job's `location` its site. */
  travel: number[][];
  depot: number;
  overtimeCap: number;
  routeLimit: number;
  travelTimeSource: TravelTimeSourceName;
}

export interface PlanOptions {
  mode: PlanMode;
  keepAssignments: boolean;
  solver: Solver;
  seed: number;
  timeBudgetMs: number;
  /** The solver's iteration cap (SolveOptions.maxIterations): the same day and seed then plan the same. */
  maxIterations?: number;
  now: () => number;
}

export interface PlannedStop {
  sequence: number;
  jobId: string;
  etaLocal: string;
  departLocal: string;
  windowStart: string;
  windowEnd: string;
  driveMinutesFromPrevious: number;
  status: 'planned';
}

export type ViolationCode = ExclusionCode | 'CAPACITY';

export interface PlannedRoute {
  crewId: string;
  assigneeId: string;
  shift: { start: string; end: string };
  totalDriveMinutes: number;
  overtimeMinutes: number;
  stops: PlannedStop[];
  violations: { jobId: string; code: ViolationCode; minutes: number }[];
}

export interface PlanReason extends ExclusionReason {
  crewId: string;
}

export interface PlanResult {
  date: string;
  mode: PlanMode;
  travelTimeSource: TravelTimeSourceName;
  solver: string | null;
  routes: PlannedRoute[];
  unassigned: { jobId: string; reasons: PlanReason[] }[];
  exclusions: { jobId: string; crewId: string; reasons: ExclusionReason[] }[];
}

/**
 * D15: the first `routeLimit` crews may hold a route: those that already hold one that day, then
 * by name. The rest are excluded with PLAN_ROUTE_LIMIT.
 */
export function crewsWithinLimit(crews: readonly DayCrew[], routeLimit: number): Set<string> {
  const order = [...crews].sort((a, b) => Number(b.currentStops.length > 0) - Number(a.currentStops.length > 0) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return new Set(order.slice(0, routeLimit).map((c) => c.id));
}

function checkedCrews(day: DayInput): CheckedCrew[] {
  const within = crewsWithinLimit(day.crews, day.routeLimit);
  return day.crews.map((c) => ({ id: c.id, skills: c.skills, day: c.day, beyondRouteLimit: !within.has(c.id) }));
}

function contextOf(day: DayInput): CheckContext {
  return { date: day.date, depot: day.depot, travel: day.travel, overtimeCap: day.overtimeCap, routeLimit: day.routeLimit };
}

/** The problem the solver and scheduleRoute see. A crew that cannot work or a job not located gets a stand-in no pair allows. */
export function routingProblem(day: DayInput, allowed: boolean[][]): RoutingProblem {
  const context = contextOf(day);
  const crews: RoutingCrew[] = checkedCrews(day).map(
    (crew) => routingCrew(crew, context) ?? routingCrew(crew, context, { OUTSIDE_SHIFT: true, ON_TIME_OFF: true })!,
  );
  const jobs: RoutingJob[] = day.jobs.map((job) => routingJob(job, context) ?? routingJob(job, context, { SITE_NOT_LOCATED: true })!);
  return { jobs, crews, travel: day.travel, allowed, objective: { perVehicle: 0, perTravel: 1, perOvertime: 2 } };
}

function plannedRoute(day: DayInput, problem: RoutingProblem, crewIndex: number, jobIndices: number[], extra: PlannedRoute['violations'] = []): PlannedRoute {
  const crew = day.crews[crewIndex]!;
  const schedule: RouteSchedule = scheduleRoute(problem, crewIndex, jobIndices);
  const routing = problem.crews[crewIndex]!;
  const jobOf = (index: number) => day.jobs[index]!;
  return {
    crewId: crew.id,
    assigneeId: crew.foremanId,
    shift: { start: hhmm(routing.shiftStart), end: hhmm(routing.shiftEnd) },
    totalDriveMinutes: Math.round(schedule.travel),
    overtimeMinutes: Math.round(schedule.overtime),
    stops: schedule.stops.map((stop, i) => ({
      sequence: i + 1,
      jobId: jobOf(stop.jobIndex).id,
      etaLocal: localDateTime(day.date, stop.arrival),
      departLocal: localDateTime(day.date, stop.departure),
      windowStart: hhmm(jobOf(stop.jobIndex).windowStart),
      windowEnd: hhmm(jobOf(stop.jobIndex).windowEnd),
      driveMinutesFromPrevious: Math.round(stop.travelFromPrevious),
      status: 'planned' as const,
    })),
    violations: [...extra, ...schedule.violations.map((v) => ({ jobId: jobOf(v.jobIndex).id, code: v.code, minutes: Math.ceil(v.amount) }))],
  };
}

/**
 * A job the solver left out although some crew may take it: inserted at the cheapest place
 * that keeps a day feasible (the solver missed it), or else reported, for each allowed crew,
 * with what binds at the place that breaks least (TIME_WINDOW_UNREACHABLE or OVERTIME_CAP in
 * the context of that crew's day; ON_TIME_OFF when the return runs into time off that ends the
 * crew's day early, which leaves it no overtime).
 */
function placeOrExplain(problem: RoutingProblem, routes: number[][], jobIndex: number, day: DayInput): PlanReason[] {
  let best: { crew: number; position: number; added: number } | null = null;
  const reasons: PlanReason[] = [];
  for (let crew = 0; crew < routes.length; crew++) {
    if (!problem.allowed[jobIndex]![crew]) continue;
    const route = routes[crew]!;
    const before = scheduleRoute(problem, crew, route).travel;
    let leastBreach: { amount: number; violations: RouteSchedule['violations']; schedule: RouteSchedule } | null = null;
    for (let position = 0; position <= route.length; position++) {
      const candidate = [...route.slice(0, position), jobIndex, ...route.slice(position)];
      const schedule = scheduleRoute(problem, crew, candidate);
      const breach = schedule.violations.reduce((sum, v) => sum + v.amount, 0);
      if (breach === 0) {
        const added = schedule.travel - before;
        if (!best || added < best.added) best = { crew, position, added };
      } else if (!leastBreach || breach < leastBreach.amount) leastBreach = { amount: breach, violations: schedule.violations, schedule };
    }
    if (leastBreach) {
      const crewModel = problem.crews[crew]!;
      for (const code of new Set(leastBreach.violations.map((v) => v.code))) {
        const amount = Math.ceil(leastBreach.violations.filter((v) => v.code === code).reduce((s, v) => s + v.amount, 0));
        if (code === 'TIME_WINDOW_UNREACHABLE') {
          // The window that binds may be the job's own or a planned stop's that it would push late.
          const job = day.jobs[jobIndex]!;
          const late = leastBreach.violations.filter((v) => v.code === code);
          const own = late.find((v) => v.jobIndex === jobIndex);
          const others = late.filter((v) => v.jobIndex !== jobIndex);
          const parts = [
            ...(own ? [`the earliest service start is ${Math.ceil(own.amount)} minutes after the window ${hhmm(job.windowStart)}-${hhmm(job.windowEnd)} closes`] : []),
            ...(others.length > 0 ? [`fitting it in makes ${others.length} planned ${others.length === 1 ? 'stop' : 'stops'} start ${Math.ceil(others.reduce((sum, v) => sum + v.amount, 0))} minutes in all after ${others.length === 1 ? 'its window closes' : 'their windows close'}`] : []),
          ];
          reasons.push({ crewId: day.crews[crew]!.id, code, detail: `In this crew's day (${route.length} stops) ${parts.join('; ')}.` });
        } else if (code === 'OVERTIME_CAP') {
          // Time off that ends the day early leaves no overtime after it (routingCrew): the limit
          // that bound is the time off's, and lifting the tenant's cap would change nothing.
          const dayCrew = day.crews[crew]!;
          const endedByTimeOff = dayCrew.day.shift !== null && crewModel.shiftEnd < dayCrew.day.shift.end;
          if (endedByTimeOff) {
            const off = dayCrew.day.timeOff.map((t) => `${hhmm(t.start)}-${hhmm(t.end)}${t.reason ? ` (${t.reason})` : ''}`).join(', ');
            reasons.push({ crewId: dayCrew.id, code: 'ON_TIME_OFF', detail: `In this crew's day (${route.length} stops) the crew would be back ${amount} minutes after ${hhmm(crewModel.shiftEnd)}, when its time off ${off} ends the day.` });
            // Judged as if the time off were lifted too: back past the shift's own end and the cap.
            const pastCap = Math.ceil(leastBreach.schedule.returnAt - (dayCrew.day.shift!.end + day.overtimeCap));
            if (pastCap > 0) {
              reasons.push({ crewId: dayCrew.id, code, detail: `In this crew's day (${route.length} stops) the crew would be back ${pastCap} minutes past ${hhmm(dayCrew.day.shift!.end)} plus the ${day.overtimeCap}-minute overtime cap.` });
            }
          } else {
            reasons.push({ crewId: dayCrew.id, code, detail: `In this crew's day (${route.length} stops) the crew would be back ${amount} minutes past ${hhmm(crewModel.shiftEnd)} plus the ${day.overtimeCap}-minute overtime cap.` });
          }
        }
      }
    }
  }
  if (best) {
    routes[best.crew]!.splice(best.position, 0, jobIndex);
    return [];
  }
  return reasons;
}

export async function planDay(day: DayInput, options: PlanOptions): Promise<PlanResult> {
  const context = contextOf(day);
  const crews = checkedCrews(day);
  const { allowed, exclusions } = checkDay(day.jobs, crews, context);
  const reasonsOf = (jobIndex: number): PlanReason[] =>
    exclusions.filter((e) => e.jobIndex === jobIndex).flatMap((e) => e.reasons.map((r) => ({ ...r, crewId: day.crews[e.crewIndex]!.id })));
  const exclusionList = exclusions.map((e) => ({ jobId: day.jobs[e.jobIndex]!.id, crewId: day.crews[e.crewIndex]!.id, reasons: e.reasons }));
  const base = { date: day.date, mode: options.mode, travelTimeSource: day.travelTimeSource, exclusions: exclusionList };

  if (options.mode === 'check') {
    // The routes as they are: each crew's stored sequence, then its other jobs of the day by window.
    const problem = routingProblem(day, allowed);
    const crewIndex = new Map(day.crews.map((c, i) => [c.id, i]));
    const routes: number[][] = day.crews.map((crew) => {
      const stored = crew.currentStops.map((id) => day.jobs.findIndex((j) => j.id === id)).filter((i) => i >= 0 && day.jobs[i]!.crewId === crew.id);
      const others = day.jobs.flatMap((j, i) => (j.crewId === crew.id && !stored.includes(i) ? [i] : [])).sort((a, b) => day.jobs[a]!.windowStart - day.jobs[b]!.windowStart);
      return [...stored, ...others];
    });
    return {
      ...base,
      solver: null,
      routes: routes.flatMap((route, i) => (route.length === 0 ? [] : [plannedRoute(day, problem, i, route, pairViolations(day, crews, context, i, route))])),
      unassigned: day.jobs.flatMap((job, i) => (job.crewId && crewIndex.has(job.crewId) ? [] : [{ jobId: job.id, reasons: reasonsOf(i) }])),
    };
  }

  const kept = allowed.map((row, j) => {
    const job = day.jobs[j]!;
    if (!options.keepAssignments || job.status !== 'dispatched' || !job.crewId) return row;
    // keep_assignments: a dispatched job stays with its crew (when that crew may take it at all).
    return row.map((ok, c) => ok && day.crews[c]!.id === job.crewId);
  });
  const problem = routingProblem(day, kept);
  const solution = await options.solver.solve(problem, { seed: options.seed, timeBudgetMs: options.timeBudgetMs, now: options.now, ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }) });
  const indexOfJob = new Map(day.jobs.map((j, i) => [j.id, i]));
  const routes: number[][] = day.crews.map((crew) => (solution.routes.find((r) => r.crewId === crew.id)?.jobIds ?? []).map((id) => indexOfJob.get(id)!));
  const unassigned: PlanResult['unassigned'] = [];
  for (let j = 0; j < day.jobs.length; j++) {
    if (routes.some((r) => r.includes(j))) continue;
    if (!kept[j]!.some(Boolean)) {
      unassigned.push({ jobId: day.jobs[j]!.id, reasons: reasonsOf(j) });
      continue;
    }
    const reasons = placeOrExplain(problem, routes, j, day);
    if (reasons.length > 0) unassigned.push({ jobId: day.jobs[j]!.id, reasons: [...reasonsOf(j), ...reasons] });
  }
  return {
    ...base,
    solver: options.solver.name,
    routes: routes.flatMap((route, i) => (route.length === 0 ? [] : [plannedRoute(day, problem, i, route)])),
    unassigned,
  };
}

/** A hand sequence's pair reasons (skills, shift, time off, location, limit) as violations; times come from scheduleRoute. */
function pairViolations(day: DayInput, crews: CheckedCrew[], context: CheckContext, crewIndex: number, route: number[]): PlannedRoute['violations'] {
  return route.flatMap((j) =>
    checkPair(day.jobs[j]!, crews[crewIndex]!, context, { TIME_WINDOW_UNREACHABLE: true, OVERTIME_CAP: true }).map((r) => ({ jobId: day.jobs[j]!.id, code: r.code, minutes: 0 })),
  );
}

/** D23's hand sequence: the crew's stops as given, with ETAs and every violation, reported rather than refused. */
export function handRoute(day: DayInput, crewId: string, jobIds: readonly string[]): PlannedRoute {
  const context = contextOf(day);
  const crews = checkedCrews(day);
  const { allowed } = checkDay(day.jobs, crews, context);
  const problem = routingProblem(day, allowed);
  const crewIndex = day.crews.findIndex((c) => c.id === crewId);
  const route = jobIds.map((id) => day.jobs.findIndex((j) => j.id === id));
  return plannedRoute(day, problem, crewIndex, route, pairViolations(day, crews, context, crewIndex, route));
}

/**
 * D23's ETA recomputation of a stored route: its stops up to the last started one (`anchor`) as
 * they are, the stops after it rescheduled by scheduleRoute from that stop's place when the crew
 * leaves it (the break counted as taken once that is past the middle of the shift). Statuses stay.
 * The drive and overtime minutes are the whole day's again; the later stops' time violations are
 * the new schedule's, every other violation stays.
 */
export function progressedRoute<S extends PlannedStop | (Omit<PlannedStop, 'status'> & { status: string })>(
  day: DayInput,
  route: { crewId: string; assigneeId: string; stops: readonly S[]; violations: PlannedRoute['violations'] },
  anchor: { index: number; departure: number },
): Omit<PlannedRoute, 'stops'> & { stops: S[] } {
  const { allowed } = checkDay(day.jobs, checkedCrews(day), contextOf(day));
  const problem = routingProblem(day, allowed);
  const crewIndex = day.crews.findIndex((c) => c.id === route.crewId);
  if (crewIndex < 0) throw new RangeError(`no crew ${route.crewId} on ${day.date}`);
  const indexOf = (jobId: string) => {
    const index = day.jobs.findIndex((j) => j.id === jobId);
    if (index < 0) throw new RangeError(`job ${jobId} of the route is not in the day`);
    return index;
  };
  const kept = route.stops.slice(0, anchor.index + 1);
  const later = route.stops.slice(anchor.index + 1);
  const crew = problem.crews[crewIndex]!;
  // The kept stops' legs, unrounded, so an unchanged day keeps its drive minutes to the minute.
  const before = scheduleRoute(problem, crewIndex, kept.map((s) => indexOf(s.jobId)));
  const keptTravel = before.stops.reduce((sum, s) => sum + s.travelFromPrevious, 0);
  const from = {
    location: problem.jobs[indexOf(kept[kept.length - 1]!.jobId)]!.location,
    clock: anchor.departure,
    breakLeft: anchor.departure >= breakPoint(crew.shiftStart, crew.shiftEnd) ? 0 : crew.breakTime,
  };
  const schedule = scheduleRoute(problem, crewIndex, later.map((s) => indexOf(s.jobId)), from);
  const rescheduled = new Set(later.map((s) => s.jobId));
  const timeCodes: readonly string[] = ['TIME_WINDOW_UNREACHABLE', 'OVERTIME_CAP'];
  return {
    crewId: route.crewId,
    assigneeId: route.assigneeId,
    shift: { start: hhmm(crew.shiftStart), end: hhmm(crew.shiftEnd) },
    totalDriveMinutes: Math.round(keptTravel + schedule.travel),
    overtimeMinutes: Math.round(schedule.overtime),
    stops: [
      ...kept,
      ...schedule.stops.map((stop, i) => ({
        ...later[i]!,
        etaLocal: localDateTime(day.date, stop.arrival),
        departLocal: localDateTime(day.date, stop.departure),
        driveMinutesFromPrevious: Math.round(stop.travelFromPrevious),
      })),
    ],
    violations: [
      ...route.violations.filter((v) => !(timeCodes.includes(v.code) && (rescheduled.has(v.jobId) || v.code === 'OVERTIME_CAP'))),
      ...schedule.violations.filter((v) => v.code !== 'CAPACITY').map((v) => ({ jobId: day.jobs[v.jobIndex]!.id, code: v.code, minutes: Math.ceil(v.amount) })),
    ],
  };
}
