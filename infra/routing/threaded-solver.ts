// The built-in solver on a worker thread of its own (D23), so that a plan being solved never
// holds up the event loop of the process that runs it: the worker process polls the I/O task
// queues beside the routing one, and a solve is pure CPU for its whole time budget. One thread
// per solve; the thread's own clock keeps the caller's deadline, its start-up included.
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RoutingProblem, RoutingSolution, SolveOptions, Solver } from '../../domain/routing/problem';

/**
 * The process's Node arguments for the thread: its loaders, tsx added where our TypeScript runs
 * without it (Jest), and without the tracing preload (infra/runtime/instrument.*), which
 * belongs to the process and not to a thread that does no I/O.
 */
export function threadExecArgv(execArgv: readonly string[], extension: string): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (arg === '--import' && /instrument\.[cm]?[jt]s$/.test(execArgv[i + 1] ?? '')) {
      i++;
      continue;
    }
    if (arg.startsWith('--import=') && /instrument\.[cm]?[jt]s$/.test(arg)) continue;
    kept.push(arg);
  }
  if (extension === '.ts' && !kept.some((arg) => arg.includes('tsx'))) kept.push('--import', 'tsx');
  return kept;
}

/** How long past its deadline a thread may run before it is stopped and the solve fails. */
const GRACE_MS = 10_000;

export class ThreadedSolver implements Solver {
  readonly name = 'built-in';

  /** `options.now` stays on this thread: the solving thread keeps time with its own clock. */
  solve(problem: RoutingProblem, options: SolveOptions): Promise<RoutingSolution> {
    const deadline = performance.timeOrigin + performance.now() + options.timeBudgetMs;
    // tsx runs our TypeScript in development and tests; the image runs compiled JavaScript.
    // A thread inherits the process's loaders (tsx, or the image's extensionless resolver);
    // Jest's own transform does not reach it, so there tsx is added.
    const extension = extname(fileURLToPath(import.meta.url));
    const worker = new Worker(new URL(`./solver-thread${extension}`, import.meta.url), {
      workerData: { problem, seed: options.seed, deadline, maxIterations: options.maxIterations },
      execArgv: threadExecArgv(process.execArgv, extension),
    });
    return new Promise<RoutingSolution>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(watchdog);
        outcome();
      };
      const watchdog = setTimeout(() => {
        finish(() => reject(new Error(`the route solver's thread ran ${GRACE_MS} ms past its time budget and was stopped`)));
        void worker.terminate();
      }, options.timeBudgetMs + GRACE_MS);
      worker.once('message', (solution: RoutingSolution) => finish(() => resolve(solution)));
      worker.once('error', (error) => finish(() => reject(error)));
      worker.once('exit', (code) => finish(() => reject(new Error(`the route solver's thread exited with code ${code} before answering`))));
    });
  }
}
