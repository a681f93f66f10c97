import { describe, expect, it } from '@jest/globals';
import type { RoutingProblem, RoutingSolution } from '../../domain/routing/problem';
import { scheduleRoute } from '../../domain/routing/route-schedule';
import { BuiltInSolver } from '../../domain/routing/solver';
import { contractorDay } from '../../scripts/harness/contractor-day';
import { ThreadedSolver } from '../../infra/routing/threaded-solver';
import { performance } from 'node:perf_hooks';

// D23: the built-in solver. A clock that moves one millisecond per reading makes a run's length a
// number of iterations, so the same seed must give the same answer.
const steppingClock = () => {
  let now = 0;
  return () => (now += 1);
};
const solver = new BuiltInSolver();
const solve = (problem: RoutingProblem, seed = 7, timeBudgetMs = 400) => solver.solve(problem, { seed, timeBudgetMs, now: steppingClock() });

function feasibleAndComplete(problem: RoutingProblem, solution: RoutingSolution): void {
  const crewIndex = new Map(problem.crews.map((crew, index) => [crew.id, index]));
  const jobIndex = new Map(problem.jobs.map((job, index) => [job.id, index]));
  const seen = [...solution.unassigned];
  for (const route of solution.routes) {
    const crew = crewIndex.get(route.crewId)!;
    const jobs = route.jobIds.map((id) => jobIndex.get(id)!);
    expect(scheduleRoute(problem, crew, jobs).violations).toEqual([]);
    for (const job of jobs) expect(problem.allowed[job]![crew]).toBe(true);
    seen.push(...route.jobIds);
  }
  expect(seen.sort()).toEqual(problem.jobs.map((job) => job.id).sort());
}

function cost(problem: RoutingProblem, solution: RoutingSolution): number {
  const crewIndex = new Map(problem.crews.map((crew, index) => [crew.id, index]));
  const jobIndex = new Map(problem.jobs.map((job, index) => [job.id, index]));
  return solution.routes.reduce((sum, route) => {
    const schedule = scheduleRoute(problem, crewIndex.get(route.crewId)!, route.jobIds.map((id) => jobIndex.get(id)!));
    return sum + problem.objective.perVehicle + problem.objective.perTravel * schedule.travel + problem.objective.perOvertime * schedule.overtime;
  }, 0);
}

/** Every way of splitting the jobs into two ordered routes, the cheapest feasible one's cost. */
function bruteForceOptimum(problem: RoutingProblem): number {
  const count = problem.jobs.length;
  let best = Infinity;
  const permute = (rest: number[], prefix: number[]) => {
    if (rest.length === 0) {
      for (let cut = 0; cut <= count; cut++) {
        const routes = [prefix.slice(0, cut), prefix.slice(cut)];
        let total = 0;
        for (const [crew, route] of routes.entries()) {
          if (route.length === 0) continue;
          if (route.some((job) => !problem.allowed[job]![crew])) total = Infinity;
          const schedule = scheduleRoute(problem, crew, route);
          if (schedule.violations.length > 0) total = Infinity;
          total += problem.objective.perVehicle + problem.objective.perTravel * schedule.travel + problem.objective.perOvertime * schedule.overtime;
        }
        best = Math.min(best, total);
      }
      return;
    }
    rest.forEach((job, index) => permute([...rest.slice(0, index), ...rest.slice(index + 1)], [...prefix, job]));
  };
  permute(Array.from({ length: count }, (_, job) => job), []);
  return best;
}

/** Seven jobs on a plane with windows and demands, two vehicles: small enough to enumerate. */
function tinyInstance(): RoutingProblem {
  const points = [[0, 0], [3, 4], [6, 1], [-2, 5], [-5, -3], [2, -6], [7, 7], [-6, 2]] as const;
  const travel = points.map(([ax, ay]) => points.map(([bx, by]) => Math.hypot(ax - bx, ay - by)));
  const windows = [[0, 30], [10, 25], [0, 60], [20, 40], [0, 20], [15, 45], [0, 80]] as const;
  return {
    jobs: windows.map(([windowStart, windowEnd], index) => ({ id: `j${index + 1}`, location: index + 1, windowStart, windowEnd, serviceTime: 2, demand: 1 + (index % 3) })),
    crews: [0, 1].map((crew) => ({ id: `v${crew + 1}`, depot: 0, shiftStart: 0, shiftEnd: 100, breakTime: 0, overtimeCap: 0, capacity: 8 })),
    travel,
    allowed: windows.map(() => [true, true]),
    objective: { perVehicle: 0, perTravel: 1, perOvertime: 0 },
  };
}

describe('the built-in solver (D23)', () => {
  it('solves a tiny instance to the optimum found by enumerating every answer', async () => {
    const problem = tinyInstance();
    const optimum = bruteForceOptimum(problem);
    expect(optimum).toBeLessThan(Infinity);
    const solution = await solve(problem);
    feasibleAndComplete(problem, solution);
    expect(solution.unassigned).toEqual([]);
    expect(cost(problem, solution)).toBeCloseTo(optimum, 9);
  });

  it('takes vehicles first when a vehicle costs more than any distance (the hierarchical objective)', async () => {
    const problem = tinyInstance();
    problem.crews = [0, 1, 2].map((crew) => ({ id: `v${crew + 1}`, depot: 0, shiftStart: 0, shiftEnd: 100, breakTime: 0, overtimeCap: 0, capacity: 20 }));
    problem.allowed = problem.jobs.map(() => [true, true, true]);
    problem.objective = { perVehicle: 1000, perTravel: 1, perOvertime: 0 };
    const vehiclesFirst = await solve(problem);
    feasibleAndComplete(problem, vehiclesFirst);
    // Enumerating two routes covers every answer with one or two vehicles; three are never needed.
    const twoCrews = { ...problem, crews: problem.crews.slice(0, 2), allowed: problem.jobs.map(() => [true, true]) };
    const optimum = bruteForceOptimum(twoCrews);
    expect(cost(problem, vehiclesFirst)).toBeCloseTo(optimum, 9);
    expect(vehiclesFirst.routes).toHaveLength(Math.floor(optimum / 1000));
  });

  it('gives the same answer for the same seed and clock, on a contractor day with breaks and overtime', async () => {
    const problem = contractorDay({ crews: 6, jobs: 36, seed: 11 });
    const first = await solve(problem, 3, 150);
    const second = await solve(problem, 3, 150);
    expect(second).toEqual(first);
    feasibleAndComplete(problem, first);
  });

  it('gives the same answer for the same seed and iteration cap whatever the clock reads: the real one twice, one that steps, and on a thread', async () => {
    const problem = contractorDay({ crews: 6, jobs: 36, seed: 11 });
    // A budget far longer than the cap needs: the cap alone ends these runs.
    const capped = (now: () => number) => solver.solve(problem, { seed: 3, timeBudgetMs: 120_000, maxIterations: 400, now });
    const first = await capped(() => performance.now());
    const second = await capped(() => performance.now());
    expect(second).toEqual(first);
    // A clock that jumps by a different amount at every reading cannot change a capped run either.
    let jumpy = 0;
    expect(await capped(() => (jumpy += 1 + (jumpy % 7)))).toEqual(first);
    // The solver's thread keeps its own real clock; the cap travels with the problem.
    expect(await new ThreadedSolver().solve(problem, { seed: 3, timeBudgetMs: 120_000, maxIterations: 400, now: () => performance.now() })).toEqual(first);
    feasibleAndComplete(problem, first);
    // Another seed searches otherwise; the answer is still feasible.
    feasibleAndComplete(problem, await solver.solve(problem, { seed: 4, timeBudgetMs: 120_000, maxIterations: 400, now: () => performance.now() }));
  }, 60_000);

  it('never gives a job to a crew the constraint checker excluded', async () => {
    const problem = contractorDay({ crews: 5, jobs: 30, seed: 5 });
    // Crew 0 is refused every odd job; job 0 is refused by every crew and must come back unassigned.
    problem.allowed = problem.allowed.map((row, job) => row.map((allowed, crew) => allowed && !(crew === 0 && job % 2 === 1) && job !== 0));
    const solution = await solve(problem, 9, 150);
    feasibleAndComplete(problem, solution);
    expect(solution.unassigned).toContain('job-1');
  });

  it('plans nothing for an empty day and leaves every job out when there is no crew', async () => {
    const empty = contractorDay({ crews: 3, jobs: 0, seed: 1 });
    expect(await solve(empty)).toEqual({ routes: [], unassigned: [] });
    const noCrews = contractorDay({ crews: 0, jobs: 4, seed: 1 });
    expect(await solve(noCrews)).toEqual({ routes: [], unassigned: ['job-1', 'job-2', 'job-3', 'job-4'] });
  });
});
