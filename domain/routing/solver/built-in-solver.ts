// The built-in solver (D23): pure TypeScript, no network, deterministic for a seed and a clock, or
// for a seed and an iteration cap (SolveOptions.maxIterations) whatever the clock.
//
// 1. Construction by regret-2 insertion (construction.ts).
// 2. Large-neighbourhood search by string removals and blink insertion (ruin-recreate.ts), under
//    simulated annealing: a worse answer is taken with a probability that falls as the time
//    budget runs out, so the search roams first and settles last.
// 3. Each new best answer is finished off by local search (2-opt* and relocate, local-search.ts).
// Answers compare on the number of jobs left out first (every job that fits is planned), then on
// the objective's cost. Every route returned is checked once more by scheduleRoute.
import type { RoutingProblem, RoutingSolution, SolveOptions, Solver } from '../problem';
import { scheduleRoute } from '../route-schedule';
import { regretInsertion } from './construction';
import { localSearch } from './local-search';
import { seededRandom } from './random';
import { DEFAULT_RUIN, recreate, ruin } from './ruin-recreate';
import { RouteState } from './state';
import { Workspace } from './workspace';

/** Start and end temperatures, as multiples of the construction's mean travel cost per job. */
const START_TEMPERATURE = 5;
const END_TEMPERATURE = 0.1;

export function better(a: RouteState, b: RouteState): boolean {
  if (a.unassigned.length !== b.unassigned.length) return a.unassigned.length < b.unassigned.length;
  return a.totalCost() < b.totalCost();
}

export function solveBuiltIn(problem: RoutingProblem, options: SolveOptions): RoutingSolution {
  const started = options.now();
  const ws = new Workspace(problem);
  const rng = seededRandom(options.seed);
  let current = new RouteState(ws);
  regretInsertion(current, Array.from({ length: ws.jobCount }, (_, job) => job));
  let best = current.clone();
  const assigned = ws.jobCount - current.unassigned.length;
  // The temperature follows the travel cost per job, not the vehicles' cost: a large perVehicle
  // (vehicles first) must not make every worse route acceptable.
  const travelCost = ws.perTravel * current.travel.reduce((sum, travel) => sum + travel, 0);
  const scale = assigned === 0 ? 0 : (travelCost > 0 ? travelCost : current.totalCost()) / assigned;
  const hot = Math.max(scale * START_TEMPERATURE, Number.MIN_VALUE);
  const cold = Math.max(scale * END_TEMPERATURE, Number.MIN_VALUE);
  // Emptying a whole route mostly diversifies; it becomes the main way to save a vehicle when
  // vehicles cost (vehicles first, then distance: Solomon's hierarchical objective).
  const ruinParameters = { ...DEFAULT_RUIN, routeRemovalRate: ws.perVehicle > 0 ? 0.1 : DEFAULT_RUIN.routeRemovalRate };
  // With nothing placed by the construction, no job fits any crew's day even alone: no search
  // can place one, so the time budget is not spent.
  if (assigned > 0) {
    const cap = options.maxIterations;
    for (let iteration = 0; ; iteration++) {
      const elapsed = options.now() - started;
      if (elapsed >= options.timeBudgetMs || (cap !== undefined && iteration >= cap)) break;
      // With a cap the schedule follows the iterations, not the clock: the answer depends on the
      // seed alone (the budget only guards a machine too slow to reach the cap).
      const progress = cap === undefined ? elapsed / options.timeBudgetMs : iteration / cap;
      const temperature = hot * Math.pow(cold / hot, progress);
      const candidate = current.clone();
      const removed = ruin(candidate, rng, ruinParameters);
      recreate(candidate, removed, rng, ruinParameters);
      if (candidate.unassigned.length < current.unassigned.length
        || (candidate.unassigned.length === current.unassigned.length && candidate.totalCost() < current.totalCost() - temperature * Math.log(rng.next()))) {
        current = candidate;
        if (better(current, best)) {
          localSearch(current);
          best = current.clone();
        }
      }
    }
  }
  return toSolution(problem, best);
}

/**
 * The answer in the interface's terms. Every route is scheduled once more by scheduleRoute; were
 * one ever found in violation (a solver bug), its offending jobs would be reported unassigned
 * rather than planned late.
 */
export function toSolution(problem: RoutingProblem, state: RouteState): RoutingSolution {
  const unassigned = state.unassigned.slice();
  const routes: RoutingSolution['routes'] = [];
  state.routes.forEach((planned, crew) => {
    let route = planned;
    for (;;) {
      const first = scheduleRoute(problem, crew, route).violations[0];
      if (!first) break;
      unassigned.push(first.jobIndex);
      route = route.filter((job) => job !== first.jobIndex);
    }
    if (route.length > 0) routes.push({ crewId: problem.crews[crew]!.id, jobIds: route.map((job) => problem.jobs[job]!.id) });
  });
  return { routes, unassigned: unassigned.sort((a, b) => a - b).map((job) => problem.jobs[job]!.id) };
}

export class BuiltInSolver implements Solver {
  readonly name = 'built-in';

  async solve(problem: RoutingProblem, options: SolveOptions): Promise<RoutingSolution> {
    return solveBuiltIn(problem, options);
  }
}
