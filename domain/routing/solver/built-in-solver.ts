// The built-in solver (D23): pure TypeScript, no network, deterministic for a seed and a clock.
import type { RoutingProblem, RoutingSolution, SolveOptions, Solver } from '../problem';
import { scheduleRoute } from '../route-schedule';

/** Cost of one crew's sequence under the problem's objective; Infinity when infeasible. */
function routeCost(problem: RoutingProblem, crewIndex: number, jobIndices: number[]): number {
  if (jobIndices.length === 0) return 0;
  const schedule = scheduleRoute(problem, crewIndex, jobIndices);
  if (schedule.violations.length > 0) return Infinity;
  const { perVehicle, perTravel, perOvertime } = problem.objective;
  return perVehicle + perTravel * schedule.travel + perOvertime * schedule.overtime;
}

/** Construction by regret-2 insertion: the job that would lose most by waiting goes in first. */
export function regretConstruction(problem: RoutingProblem): { routes: number[][]; unassigned: number[] } {
  const routes: number[][] = problem.crews.map(() => []);
  const costs = routes.map(() => 0);
  let pending = problem.jobs.map((_, index) => index);
  const unassigned: number[] = [];
  while (pending.length > 0) {
    let chosen: { job: number; crew: number; position: number; regret: number; delta: number } | null = null;
    const stuck: number[] = [];
    for (const job of pending) {
      let best = Infinity;
      let second = Infinity;
      let bestCrew = -1;
      let bestPosition = -1;
      for (let crew = 0; crew < routes.length; crew++) {
        if (!problem.allowed[job]?.[crew]) continue;
        const route = routes[crew]!;
        let crewBest = Infinity;
        let crewPosition = -1;
        for (let position = 0; position <= route.length; position++) {
          const candidate = [...route.slice(0, position), job, ...route.slice(position)];
          const delta = routeCost(problem, crew, candidate) - costs[crew]!;
          if (delta < crewBest) {
            crewBest = delta;
            crewPosition = position;
          }
        }
        if (crewBest < best) {
          second = best;
          best = crewBest;
          bestCrew = crew;
          bestPosition = crewPosition;
        } else if (crewBest < second) second = crewBest;
      }
      if (bestCrew < 0) {
        stuck.push(job);
        continue;
      }
      const regret = second === Infinity ? Number.MAX_VALUE : second - best;
      if (!chosen || regret > chosen.regret || (regret === chosen.regret && best < chosen.delta)) {
        chosen = { job, crew: bestCrew, position: bestPosition, regret, delta: best };
      }
    }
    unassigned.push(...stuck);
    if (!chosen) break;
    routes[chosen.crew]!.splice(chosen.position, 0, chosen.job);
    costs[chosen.crew] = routeCost(problem, chosen.crew, routes[chosen.crew]!);
    const done = chosen.job;
    pending = pending.filter((job) => job !== done && !stuck.includes(job));
  }
  return { routes, unassigned };
}

export function toSolution(problem: RoutingProblem, routes: number[][], unassigned: number[]): RoutingSolution {
  return {
    routes: routes.flatMap((route, crew) => (route.length === 0 ? [] : [{ crewId: problem.crews[crew]!.id, jobIds: route.map((job) => problem.jobs[job]!.id) }])),
    unassigned: [...unassigned].sort((a, b) => a - b).map((job) => problem.jobs[job]!.id),
  };
}

export class BuiltInSolver implements Solver {
  readonly name = 'built-in';

  async solve(problem: RoutingProblem, _options: SolveOptions): Promise<RoutingSolution> {
    const { routes, unassigned } = regretConstruction(problem);
    return toSolution(problem, routes, unassigned);
  }
}
