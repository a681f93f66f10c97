import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { scheduleRoute } from '../../domain/routing/route-schedule';
import { ThreadedSolver, threadExecArgv } from '../../infra/routing/threaded-solver';
import { contractorDay } from '../../scripts/harness/contractor-day';

// D23: the built-in solver on a thread of its own, so a solve never holds the event loop of the
// worker process that also runs the I/O activities.
describe('the threaded built-in solver (D23)', () => {
  it('answers a contractor day with feasible routes while this thread keeps turning', async () => {
    const problem = contractorDay({ crews: 8, jobs: 48, seed: 12 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const solution = await new ThreadedSolver().solve(problem, { seed: 1, timeBudgetMs: 600, now: () => 0 });
    clearInterval(ticker);
    // A solver on this thread would let no tick through until it answered.
    expect(ticks).toBeGreaterThan(3);
    const crewIndex = new Map(problem.crews.map((crew, index) => [crew.id, index]));
    const jobIndex = new Map(problem.jobs.map((job, index) => [job.id, index]));
    const placed = solution.routes.flatMap((route) => route.jobIds);
    expect([...placed, ...solution.unassigned].sort()).toEqual(problem.jobs.map((job) => job.id).sort());
    for (const route of solution.routes) {
      const crew = crewIndex.get(route.crewId)!;
      const jobs = route.jobIds.map((id) => jobIndex.get(id)!);
      expect(scheduleRoute(problem, crew, jobs).violations).toEqual([]);
      for (const job of jobs) expect(problem.allowed[job]![crew]).toBe(true);
    }
  });

  it('solves at the lowest scheduling priority, the process\'s own threads keeping theirs (Linux)', async () => {
    const niceOf = (tid: string): number | null => {
      try {
        // Fields after "(comm) " start at the third, the state; nice is the nineteenth.
        return Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
      } catch {
        return null;
      }
    };
    const before = new Set(readdirSync('/proc/self/task'));
    const processNice = getPriority();
    const solving = new ThreadedSolver().solve(contractorDay({ crews: 4, jobs: 24, seed: 3 }), { seed: 1, timeBudgetMs: 1500, now: () => 0 });
    let solverNice: number | null = null;
    for (let i = 0; i < 70 && solverNice === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const lowered = readdirSync('/proc/self/task').filter((tid) => !before.has(tid) && niceOf(tid) === 19);
      if (lowered.length > 0) solverNice = 19;
    }
    await solving;
    expect(solverNice).toBe(19);
    expect(niceOf(String(process.pid))).toBe(processNice);
  });

  it('gives the thread the process\'s loaders but not its tracing preload', () => {
    expect(threadExecArgv(['--import', 'tsx', '--import', './infra/runtime/instrument.ts'], '.ts')).toEqual(['--import', 'tsx']);
    expect(threadExecArgv(['--import', './scripts/container/extensionless.mjs', '--import', './dist/infra/runtime/instrument.js'], '.js')).toEqual(['--import', './scripts/container/extensionless.mjs']);
    expect(threadExecArgv(['--experimental-vm-modules'], '.ts')).toEqual(['--experimental-vm-modules', '--import', 'tsx']);
  });
});
