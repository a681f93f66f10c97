// The body of a ThreadedSolver's worker thread (threaded-solver.ts): the built-in solver on this
// thread's own clock, finishing by the deadline the caller set.
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { RoutingProblem } from '../../domain/routing/problem';
import { solveBuiltIn } from '../../domain/routing/solver/built-in-solver';

interface ThreadInput {
  problem: RoutingProblem;
  seed: number;
  /** Epoch milliseconds by which the answer is due (performance.timeOrigin + performance.now()). */
  deadline: number;
  /** The caller's iteration cap, if any (the answer then depends on the seed, not the clock). */
  maxIterations?: number;
}

const { problem, seed, deadline, maxIterations } = workerData as ThreadInput;
const now = () => performance.timeOrigin + performance.now();
parentPort?.postMessage(solveBuiltIn(problem, { seed, timeBudgetMs: Math.max(0, deadline - now()), now, ...(maxIterations === undefined ? {} : { maxIterations }) }));
