// The body of a ThreadedSolver's worker thread (threaded-solver.ts): the built-in solver on this
// thread's own clock, finishing by the deadline the caller set.
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
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

/**
 * This thread alone at the lowest scheduling priority: on a machine with few cores a solve that
 * takes a whole core for its budget would otherwise slow the process's event loop and the
 * database and Temporal server beside it, and with them the I/O activities (webhook deliveries).
 * Linux takes a thread id where setpriority takes a process id; elsewhere, or if refused, the
 * solve runs at the process's priority.
 */
function lowerThisThreadsPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed: nothing else to do.
  }
}

lowerThisThreadsPriority();
const { problem, seed, deadline, maxIterations } = workerData as ThreadInput;
const now = () => performance.timeOrigin + performance.now();
parentPort?.postMessage(solveBuiltIn(problem, { seed, timeBudgetMs: Math.max(0, deadline - now()), now, ...(maxIterations === undefined ? {} : { maxIterations }) }));
