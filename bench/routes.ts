/**
 * Routes benchmark (D23; a script, not a test). The built-in solver on Solomon's 56 100-customer
 * VRPTW instances (../shared/benchmarks/solomon-100, README there): one line per instance with
 * the vehicles and the scaled distance found against the best-known ones, the gap, the wall and
 * CPU seconds and whether the bench's own checker (scripts/harness/solomon.ts, which shares nothing
 * with the solver) finds the answer feasible; then the mean, median and worst gap and time against
 * the targets (mean gap <= 3 %, worst <= 10 %, <= 2 s per instance). Then a contractor's day, 20
 * crews and 120 jobs around Toronto, against its 1 s target. The process exits 1 when any target
 * is missed (or an answer is infeasible).
 *
 *   npm run bench:routes                       # every instance, then the contractor's day
 *   npm run bench:routes -- --solutions DIR    # also writes DIR/<NAME>.json {"routes": [[node, ...], ...]}
 *   npm run bench:routes -- --only R1          # the instances whose name starts with R1
 *   npm run bench:routes -- --budget-ms 1600 --seed 1
 *   npm run bench:routes -- --vehicles-first   # hierarchical objective: fewest vehicles, then distance
 *                                               # (prints vehicle counts; the gap targets are for distance)
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { BuiltInSolver } from '../domain/routing/solver';
import type { RoutingProblem, RoutingSolution } from '../domain/routing/problem';
import { scheduleRoute } from '../domain/routing/route-schedule';
import { projectRoot } from '../scripts/infra/paths';
import { checkSolomon, parseSolomon, solomonProblem } from '../scripts/harness/solomon';
import { contractorDay } from '../scripts/harness/contractor-day';

const { values } = parseArgs({
  options: {
    solutions: { type: 'string' },
    only: { type: 'string' },
    'budget-ms': { type: 'string', default: '1600' },
    'contractor-budget-ms': { type: 'string', default: '800' },
    seed: { type: 'string', default: '1' },
    'skip-solomon': { type: 'boolean', default: false },
    'vehicles-first': { type: 'boolean', default: false },
  },
});
const TARGETS = { meanGapPercent: 3, worstGapPercent: 10, secondsPerInstance: 2, contractorSeconds: 1 };
const budgetMs = Number(values['budget-ms']);
const seed = Number(values.seed);
const benchmarks = resolve(projectRoot, '..', 'shared', 'benchmarks', 'solomon-100');
const solver = new BuiltInSolver();
const clock = () => performance.now();

interface Timed {
  solution: RoutingSolution;
  seconds: number;
  cpuSeconds: number;
}

async function timedSolve(problem: RoutingProblem, timeBudgetMs: number): Promise<Timed> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const solution = await solver.solve(problem, { seed, timeBudgetMs, now: clock });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { solution, seconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

const pad = (value: string | number, width: number) => String(value).padStart(width);
const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const median = sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return { mean, median, worst: sorted[sorted.length - 1] ?? 0 };
};
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

async function solomon(): Promise<boolean> {
  const best = new Map(
    readFileSync(join(benchmarks, 'best-known.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(','))
      .map(([name, vehicles, distance]) => [name!, { vehicles: Number(vehicles), distance: Number(distance) }]),
  );
  const files = readdirSync(benchmarks)
    .filter((file) => file.endsWith('.vrptw'))
    .filter((file) => !values.only || file.startsWith(values.only))
    .sort();
  if (values.solutions) mkdirSync(values.solutions, { recursive: true });
  console.log(`Solomon 100-customer instances: ${files.length}, time budget ${budgetMs} ms each, seed ${seed}`);
  console.log(`${'instance'.padEnd(8)} ${pad('veh', 3)}/${'best'.padEnd(4)} ${pad('distance', 9)} ${pad('best', 9)} ${pad('gap %', 7)} ${pad('wall s', 7)} ${pad('cpu s', 6)} feasible`);
  const gaps: number[] = [];
  const walls: number[] = [];
  let vehicles = 0;
  let bestVehicles = 0;
  let failures = 0;
  for (const file of files) {
    const instance = parseSolomon(readFileSync(join(benchmarks, file), 'utf8'));
    const known = best.get(instance.name);
    if (!known) throw new Error(`best-known.csv has no ${instance.name}`);
    const problem = solomonProblem(instance);
    // A vehicle costs more than any instance's whole distance: fewest vehicles first.
    if (values['vehicles-first']) problem.objective.perVehicle = 100_000;
    const { solution, seconds, cpuSeconds } = await timedSolve(problem, budgetMs);
    const routes = solution.routes.map((route) => route.jobIds.map(Number));
    if (values.solutions) writeFileSync(join(values.solutions, `${instance.name}.json`), `${JSON.stringify({ routes })}\n`);
    const checked = checkSolomon(instance, routes);
    const feasible = checked.feasible && checked.vehicles <= known.vehicles;
    const gap = ((checked.scaledDistance - known.distance) / known.distance) * 100;
    if (feasible) gaps.push(gap);
    else failures++;
    vehicles += checked.vehicles;
    bestVehicles += known.vehicles;
    walls.push(seconds);
    console.log(
      `${instance.name.padEnd(8)} ${pad(checked.vehicles, 3)}/${String(known.vehicles).padEnd(4)} ${pad(checked.scaledDistance, 9)} ${pad(known.distance, 9)} ${pad(gap.toFixed(2), 7)} ${pad(seconds.toFixed(2), 7)} ${pad(cpuSeconds.toFixed(2), 6)} ${feasible ? 'yes' : `NO: ${checked.faults.slice(0, 3).join('; ')}`}`,
    );
  }
  const gap = stats(gaps);
  const wall = stats(walls);
  // With vehicles first, fewer vehicles drive farther: the distance targets are the default mode's.
  const vehiclesFirst = values['vehicles-first'] === true;
  const gapsOk = vehiclesFirst || (gap.mean <= TARGETS.meanGapPercent && gap.worst <= TARGETS.worstGapPercent);
  const ok = failures === 0 && gapsOk && wall.worst <= TARGETS.secondsPerInstance;
  console.log(`\nfeasible: ${files.length - failures}/${files.length} (${verdict(failures === 0)}); vehicles: ${vehicles} in all, against ${bestVehicles} in the best-known answers`);
  if (vehiclesFirst) console.log(`distance gap % with fewer vehicles (no target: the distance targets are for the default mode): mean ${gap.mean.toFixed(2)}, median ${gap.median.toFixed(2)}, worst ${gap.worst.toFixed(2)}`);
  else console.log(`gap %: mean ${gap.mean.toFixed(2)} (target <= ${TARGETS.meanGapPercent}: ${verdict(gap.mean <= TARGETS.meanGapPercent)}), median ${gap.median.toFixed(2)}, worst ${gap.worst.toFixed(2)} (target <= ${TARGETS.worstGapPercent}: ${verdict(gap.worst <= TARGETS.worstGapPercent)})`);
  console.log(`wall s per instance: mean ${wall.mean.toFixed(2)}, median ${wall.median.toFixed(2)}, worst ${wall.worst.toFixed(2)} (target <= ${TARGETS.secondsPerInstance}: ${verdict(wall.worst <= TARGETS.secondsPerInstance)})`);
  if (values.solutions) console.log(`answers written to ${values.solutions}/<NAME>.json`);
  return ok;
}

async function contractor(): Promise<boolean> {
  const problem = contractorDay({ crews: 20, jobs: 120, seed: 2026 });
  const { solution, seconds, cpuSeconds } = await timedSolve(problem, Number(values['contractor-budget-ms']));
  const crewIndex = new Map(problem.crews.map((crew, index) => [crew.id, index]));
  const jobIndex = new Map(problem.jobs.map((job, index) => [job.id, index]));
  const faults: string[] = [];
  let drive = 0;
  let overtime = 0;
  const placed = new Set<string>();
  for (const route of solution.routes) {
    const crew = crewIndex.get(route.crewId)!;
    const jobs = route.jobIds.map((id) => jobIndex.get(id)!);
    for (const job of jobs) {
      if (!problem.allowed[job]![crew]) faults.push(`${problem.jobs[job]!.id} went to ${route.crewId}, which may not take it`);
      placed.add(problem.jobs[job]!.id);
    }
    const schedule = scheduleRoute(problem, crew, jobs);
    for (const violation of schedule.violations) faults.push(`${route.crewId}: ${violation.code} at ${problem.jobs[violation.jobIndex]!.id}`);
    drive += schedule.travel;
    overtime += schedule.overtime;
  }
  if (placed.size + solution.unassigned.length !== problem.jobs.length) faults.push('jobs lost or doubled');
  const nobodys = problem.allowed.filter((row) => !row.some(Boolean)).length;
  const ok = faults.length === 0 && seconds <= TARGETS.contractorSeconds;
  console.log(`\nContractor's day (20 crews, 120 jobs around Toronto, great-circle minutes, 30-minute breaks, overtime cap 60):`);
  console.log(`  ${solution.routes.length} routes, ${solution.unassigned.length} unassigned (${nobodys} of them need both a motor fitter and high reach, which no crew has), ${drive} drive minutes, ${overtime} overtime minutes, ${seconds.toFixed(2)} s wall, ${cpuSeconds.toFixed(2)} s CPU, feasible: ${faults.length === 0 ? 'yes' : faults.slice(0, 3).join('; ')}`);
  console.log(`  target <= ${TARGETS.contractorSeconds} s: ${verdict(ok)}`);
  return ok;
}

const solomonOk = values['skip-solomon'] ? true : await solomon();
const contractorOk = await contractor();
process.exitCode = solomonOk && contractorOk ? 0 : 1;
