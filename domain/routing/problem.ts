// The routing interface (D23) shared by the built-in solver, the VROOM client, the constraint
// checker and the plan workflow. Pure types: times are plain numbers in one unit chosen by the
// caller (minutes for a contractor's day, the instance's own unit for Solomon's benchmark), and
// places are indices into the travel matrix, so the solver never knows where the numbers came from.

export interface RoutingJob {
  id: string;
  /** Index into `RoutingProblem.travel`. */
  location: number;
  /** Earliest start of service; arriving earlier means waiting. */
  windowStart: number;
  /** Latest start of service. */
  windowEnd: number;
  serviceTime: number;
  /** Load the job takes from the vehicle; 0 for contractors. */
  demand: number;
}

export interface RoutingCrew {
  id: string;
  /** Matrix index where the crew starts and ends its day. */
  depot: number;
  shiftStart: number;
  shiftEnd: number;
  /** Unpaid break taken once a day; the rule of when is `scheduleRoute`'s alone. */
  breakTime: number;
  /** How far past `shiftEnd` the return to the depot may be; 0 for Solomon. */
  overtimeCap: number;
  /** `Infinity` for contractors. */
  capacity: number;
}

export interface RoutingObjective {
  /** Cost of each crew that holds a route. */
  perVehicle: number;
  /** Cost per unit of travel time. */
  perTravel: number;
  /** Cost per unit of time back past `shiftEnd`. */
  perOvertime: number;
}

export interface RoutingProblem {
  jobs: RoutingJob[];
  crews: RoutingCrew[];
  /** travel[a][b]: travel time from matrix index a to b. */
  travel: number[][];
  /** allowed[jobIndex][crewIndex]: the constraint checker's verdict (skills, time off, limits...). */
  allowed: boolean[][];
  objective: RoutingObjective;
}

export interface RoutingSolution {
  routes: { crewId: string; jobIds: string[] }[];
  unassigned: string[];
}

export interface SolveOptions {
  /** Same seed, same problem, same clock readings: same answer. */
  seed: number;
  timeBudgetMs: number;
  /**
   * A cap on the search's iterations. When given, the search's schedule counts iterations rather
   * than milliseconds, so the same problem, seed and cap give the same answer whatever the clock
   * reads, as long as the cap is reached within `timeBudgetMs` (which still stops a slow machine).
   */
  maxIterations?: number;
  /** A clock in milliseconds passed in: domain/ reads none. */
  now: () => number;
}

export interface Solver {
  readonly name: string;
  solve(problem: RoutingProblem, options: SolveOptions): Promise<RoutingSolution>;
}
