import type { RoutingCrew, RoutingJob, RoutingProblem } from './problem';
import { scheduleRoute } from './route-schedule';
import { DEFAULT_WEEK, shiftAroundTimeOff, type CrewDay } from './availability';
import { hhmm, minutesOf } from './clock';

/**
 * D23's constraint checker: for every job and crew of a day, whether the crew could take the job
 * at all (alone in its day) and, when not, every reason with its values. Reasons come from here,
 * never from a solver. The codes are a closed list.
 *
 * How each constraint is judged, and what "lifting" it means (the property test lifts them):
 * - SITE_NOT_LOCATED: the job's site has no coordinates. Lifted: the site is at the depot.
 * - PLAN_ROUTE_LIMIT: the crew is beyond the plan's Routes (D15). Lifted: no limit.
 * - OUTSIDE_SHIFT: the crew has no hours that day (a member has none, or their hours do not
 *   meet). Lifted: D23's default day for that weekday (08:00-17:00, 30-minute break).
 * - ON_TIME_OFF: time off covers the crew's shift, or leaves only a stretch in which the job no
 *   longer fits. Lifted: no time off.
 * - SKILL_MISSING: the job requires skills no member has. Lifted: the crew has them.
 * - TIME_WINDOW_UNREACHABLE: leaving the depot at the shift's start, the crew arrives after the
 *   window closes. Lifted: the window is the whole day.
 * - OVERTIME_CAP: the crew would be back at the depot later than the shift's end plus the
 *   tenant's overtime cap. Lifted: no cap.
 * Each constraint that fails is reported, and the others are judged as if it were lifted, so that
 * lifting every reason named makes the pair feasible, and lifting one removes that one.
 */
export const EXCLUSION_CODES = ['SKILL_MISSING', 'OUTSIDE_SHIFT', 'ON_TIME_OFF', 'TIME_WINDOW_UNREACHABLE', 'OVERTIME_CAP', 'SITE_NOT_LOCATED', 'PLAN_ROUTE_LIMIT'] as const;
export type ExclusionCode = (typeof EXCLUSION_CODES)[number];

export interface ExclusionReason {
  code: ExclusionCode;
  detail: string;
}

/** A job of the day as the checker sees it: local minutes, its travel-matrix index (null: not located). */
export interface CheckedJob {
  id: string;
  location: number | null;
  windowStart: number;
  windowEnd: number;
  duration: number;
  requiredSkills: readonly string[];
}

/** A crew of the day: its skills (the union of its members'), its day, and whether the plan's route limit leaves it out. */
export interface CheckedCrew {
  id: string;
  skills: readonly string[];
  day: CrewDay;
  beyondRouteLimit: boolean;
}

export interface CheckContext {
  date: string;
  /** Matrix index of the depot. */
  depot: number;
  travel: number[][];
  overtimeCap: number;
  routeLimit: number;
}

/** What the property test may lift; the checker itself lifts the ones it reports. */
export type Lifted = Partial<Record<ExclusionCode, true>>;

/**
 * The crew as the solver sees it: the stretch of its shift left around time off, its break, and
 * the overtime cap (none when time off ends its day early: the cap extends a full day only).
 * Null when it cannot work that day.
 */
export function routingCrew(crew: CheckedCrew, context: CheckContext, lifted: Lifted = {}): RoutingCrew | null {
  const shift = crew.day.shift ?? (lifted.OUTSIDE_SHIFT ? defaultShift(context.date) : null);
  if (!shift) return null;
  const stretch = lifted.ON_TIME_OFF ? shift : shiftAroundTimeOff(shift, crew.day.timeOff);
  if (!stretch) return null;
  // Time off that ends the day early leaves no overtime after it: that limit is the time off's.
  const cap = stretch.end !== shift.end ? 0 : lifted.OVERTIME_CAP ? Number.POSITIVE_INFINITY : context.overtimeCap;
  return { id: crew.id, depot: context.depot, shiftStart: stretch.start, shiftEnd: stretch.end, breakTime: shift.breakMinutes, overtimeCap: cap, capacity: Number.POSITIVE_INFINITY };
}

function defaultShift(date: string): { start: number; end: number; breakMinutes: number } {
  const weekday = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][new Date(`${date}T00:00:00Z`).getUTCDay()];
  const hours = DEFAULT_WEEK.find((d) => d.day === weekday) ?? DEFAULT_WEEK[0]!;
  return { start: minutesOf(hours.start), end: minutesOf(hours.end), breakMinutes: hours.break_minutes };
}

/** The job as the solver sees it (a located job, or one lifted to the depot). */
export function routingJob(job: CheckedJob, context: CheckContext, lifted: Lifted = {}): RoutingJob | null {
  const location = job.location ?? (lifted.SITE_NOT_LOCATED ? context.depot : null);
  if (location === null) return null;
  return { id: job.id, location, windowStart: lifted.TIME_WINDOW_UNREACHABLE ? 0 : job.windowStart, windowEnd: lifted.TIME_WINDOW_UNREACHABLE ? Number.POSITIVE_INFINITY : job.windowEnd, serviceTime: job.duration, demand: 0 };
}

/** The job alone in the crew's day, through the one evaluation of a sequence. */
function alone(job: RoutingJob, crew: RoutingCrew, travel: number[][]) {
  const problem: RoutingProblem = { jobs: [job], crews: [crew], travel, allowed: [[true]], objective: { perVehicle: 0, perTravel: 1, perOvertime: 0 } };
  return scheduleRoute(problem, 0, [0]);
}

/** Every reason the crew cannot take the job; empty when it can. */
export function checkPair(job: CheckedJob, crew: CheckedCrew, context: CheckContext, lifted: Lifted = {}): ExclusionReason[] {
  const reasons: ExclusionReason[] = [];
  const lift: Lifted = { ...lifted };
  if (job.location === null && !lift.SITE_NOT_LOCATED) {
    reasons.push({ code: 'SITE_NOT_LOCATED', detail: 'The job\'s site has no lat/lon: PATCH /v1/fsm/sites/{id} to locate it.' });
    lift.SITE_NOT_LOCATED = true;
  }
  if (crew.beyondRouteLimit && !lift.PLAN_ROUTE_LIMIT) {
    reasons.push({ code: 'PLAN_ROUTE_LIMIT', detail: `The plan holds ${context.routeLimit} routes a day and this crew is beyond them.` });
    lift.PLAN_ROUTE_LIMIT = true;
  }
  if (!crew.day.shift && !lift.OUTSIDE_SHIFT) {
    reasons.push({ code: 'OUTSIDE_SHIFT', detail: `The crew has no hours on ${context.date} (its members' hours do not meet that day).` });
    lift.OUTSIDE_SHIFT = true;
  }
  const missing = job.requiredSkills.filter((skill) => !crew.skills.includes(skill));
  if (missing.length > 0 && !lift.SKILL_MISSING) {
    reasons.push({ code: 'SKILL_MISSING', detail: `Requires [${job.requiredSkills.join(', ')}]; the crew has [${[...crew.skills].sort().join(', ')}]; missing [${missing.join(', ')}].` });
    lift.SKILL_MISSING = true;
  }
  // The times: judged on the full shift first (time off lifted), then on what time off leaves.
  const full = routingCrew(crew, context, { ...lift, ON_TIME_OFF: true })!;
  const routed = routingJob(job, context, lift)!;
  const schedule = alone(routed, full, context.travel);
  const stop = schedule.stops[0]!;
  const late = schedule.violations.some((v) => v.code === 'TIME_WINDOW_UNREACHABLE') && !lift.TIME_WINDOW_UNREACHABLE;
  const over = schedule.violations.some((v) => v.code === 'OVERTIME_CAP') && !lift.OVERTIME_CAP;
  if (late) {
    reasons.push({ code: 'TIME_WINDOW_UNREACHABLE', detail: `Earliest arrival ${hhmm(stop.arrival)} (leaving the depot at ${hhmm(full.shiftStart)}); the window is ${hhmm(job.windowStart)}-${hhmm(job.windowEnd)}.` });
    lift.TIME_WINDOW_UNREACHABLE = true;
  }
  if (over) {
    reasons.push({ code: 'OVERTIME_CAP', detail: `Back at the depot at ${hhmm(schedule.returnAt)}; the shift ends ${hhmm(full.shiftEnd)} and the overtime cap is ${context.overtimeCap} minutes.` });
    lift.OVERTIME_CAP = true;
  }
  // Time off is named only when it is what blocks: judged with the reasons above lifted.
  if (!lift.ON_TIME_OFF && crew.day.timeOff.length > 0) {
    const stretch = routingCrew(crew, context, lift);
    if (!stretch || alone(routingJob(job, context, lift)!, stretch, context.travel).violations.length > 0) {
      const off = crew.day.timeOff.map((t) => `${hhmm(t.start)}-${hhmm(t.end)}${t.reason ? ` (${t.reason})` : ''}`).join(', ');
      reasons.push({ code: 'ON_TIME_OFF', detail: stretch ? `Time off ${off} leaves ${hhmm(stretch.shiftStart)}-${hhmm(stretch.shiftEnd)}, in which the job does not fit.` : `Time off ${off} covers the shift.` });
    }
  }
  return reasons;
}

export interface PairVerdict {
  jobIndex: number;
  crewIndex: number;
  reasons: ExclusionReason[];
}

/** The checker over a whole day: `allowed[job][crew]` for the solver, and every excluded pair with its reasons. */
export function checkDay(jobs: readonly CheckedJob[], crews: readonly CheckedCrew[], context: CheckContext): { allowed: boolean[][]; exclusions: PairVerdict[] } {
  const exclusions: PairVerdict[] = [];
  const allowed = jobs.map((job, jobIndex) =>
    crews.map((crew, crewIndex) => {
      const reasons = checkPair(job, crew, context);
      if (reasons.length > 0) exclusions.push({ jobIndex, crewIndex, reasons });
      return reasons.length === 0;
    }),
  );
  return { allowed, exclusions };
}
