// ONE evaluation of a crew's sequence (D23), used by the solver, the constraint checker, hand
// sequences (their violations) and the ETA recomputation of dispatch.updated.
//
// The day: the crew leaves its depot at `shiftStart`, drives to each job in turn, waits when it
// arrives before the window opens, serves, and drives back to its depot.
//
// The break (`breakTime`) is taken once. Waiting at a job counts toward it first (a crew that waits
// for a window is resting). Whatever is left of it is taken right after the first stop whose
// departure is at or past the middle of the shift ((shiftStart + shiftEnd) / 2), delaying what
// follows. When the day's last stop ends before the middle of the shift, the rest of the break
// falls after the return and changes nothing. The solver's fast checks treat a break as pure
// delay, which is all it ever adds.
//
// A route is feasible when every job starts within its window (its start is no later than
// `windowEnd`), the load is at most `capacity`, and the return is no later than
// `shiftEnd + overtimeCap`. Late stops are still scheduled (start = arrival) so a hand sequence
// gets ETAs with its violations reported, not refused.
import type { RoutingProblem } from './problem';

export type RouteViolationCode = 'TIME_WINDOW_UNREACHABLE' | 'OVERTIME_CAP' | 'CAPACITY';

export interface RouteStop {
  jobIndex: number;
  arrival: number;
  start: number;
  departure: number;
  travelFromPrevious: number;
}

export interface RouteViolation {
  jobIndex: number;
  code: RouteViolationCode;
  /** How far over: time past the window's end or the overtime cap, load over capacity. */
  amount: number;
}

export interface RouteSchedule {
  stops: RouteStop[];
  returnAt: number;
  travel: number;
  overtime: number;
  load: number;
  violations: RouteViolation[];
}

/** The middle of the shift, past which the rest of the break is taken. */
export function breakPoint(shiftStart: number, shiftEnd: number): number {
  return shiftStart + (shiftEnd - shiftStart) / 2;
}

/**
 * Where and when the evaluated part of a day begins: by default the depot at the shift's start
 * with the whole break ahead. The ETA recomputation of `dispatch.updated` starts from the crew's
 * last started stop instead: its location, when it is left, and the break left (none once that
 * departure is past the middle of the shift, where the break would have been taken).
 */
export interface ScheduleStart {
  location: number;
  clock: number;
  breakLeft: number;
}

export function scheduleRoute(problem: RoutingProblem, crewIndex: number, jobIndices: number[], from?: ScheduleStart): RouteSchedule {
  const crew = problem.crews[crewIndex];
  if (!crew) throw new RangeError(`no crew at index ${crewIndex}`);
  const middle = breakPoint(crew.shiftStart, crew.shiftEnd);
  const stops: RouteStop[] = [];
  const violations: RouteViolation[] = [];
  let at = from?.location ?? crew.depot;
  let clock = from?.clock ?? crew.shiftStart;
  let breakLeft = from?.breakLeft ?? crew.breakTime;
  let travel = 0;
  let load = 0;
  let capacityReported = false;
  for (const jobIndex of jobIndices) {
    const job = problem.jobs[jobIndex];
    if (!job) throw new RangeError(`no job at index ${jobIndex}`);
    const leg = legTime(problem, at, job.location);
    const arrival = clock + leg;
    const start = arrival < job.windowStart ? job.windowStart : arrival;
    if (breakLeft > 0 && start > arrival) breakLeft -= Math.min(breakLeft, start - arrival);
    if (start > job.windowEnd) violations.push({ jobIndex, code: 'TIME_WINDOW_UNREACHABLE', amount: start - job.windowEnd });
    let departure = start + job.serviceTime;
    if (breakLeft > 0 && departure >= middle) {
      departure += breakLeft;
      breakLeft = 0;
    }
    load += job.demand;
    if (!capacityReported && load > crew.capacity) {
      violations.push({ jobIndex, code: 'CAPACITY', amount: load - crew.capacity });
      capacityReported = true;
    }
    travel += leg;
    stops.push({ jobIndex, arrival, start, departure, travelFromPrevious: leg });
    clock = departure;
    at = job.location;
  }
  // From a start point the crew is out already: it drives back even with no stop left.
  const out = stops.length > 0 || (from !== undefined && from.location !== crew.depot);
  const back = out ? legTime(problem, at, crew.depot) : 0;
  const returnAt = out ? clock + back : (from?.clock ?? crew.shiftStart);
  travel += back;
  const overtime = Math.max(0, returnAt - crew.shiftEnd);
  const lastStop = stops[stops.length - 1];
  if (lastStop && returnAt > crew.shiftEnd + crew.overtimeCap) {
    violations.push({ jobIndex: lastStop.jobIndex, code: 'OVERTIME_CAP', amount: returnAt - (crew.shiftEnd + crew.overtimeCap) });
  }
  return { stops, returnAt, travel, overtime, load, violations };
}

function legTime(problem: RoutingProblem, from: number, to: number): number {
  const time = problem.travel[from]?.[to];
  if (time === undefined) throw new RangeError(`no travel time from ${from} to ${to}`);
  return time;
}
