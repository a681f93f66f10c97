// Which route solver a plan uses (D23): VROOM's server when its URL is set, else the built-in one
// on a thread of its own (threaded-solver.ts). Never both: when VROOM is set and fails, the plan
// fails with VROOM's error.
import type { Solver } from '../../domain/routing/problem';
import type { Settings } from '../runtime/settings';
import { ThreadedSolver } from './threaded-solver';
import { VroomSolver } from './vroom-solver';

export function routeSolver(settings: { vroomUrl?: string | undefined; vroomTimeoutMs?: number }): Solver {
  if (!settings.vroomUrl) return new ThreadedSolver();
  return new VroomSolver({ url: settings.vroomUrl, secondsPerUnit: 60, ...(settings.vroomTimeoutMs === undefined ? {} : { timeoutMs: settings.vroomTimeoutMs }) });
}

/** `routeSolver` from the deployment's settings (ROUTING_VROOM_URL, ROUTING_VROOM_TIMEOUT_MS). */
export function routeSolverFromSettings(settings: Pick<Settings, 'ROUTING_VROOM_URL' | 'ROUTING_VROOM_TIMEOUT_MS'>): Solver {
  return routeSolver({ vroomUrl: settings.ROUTING_VROOM_URL, vroomTimeoutMs: settings.ROUTING_VROOM_TIMEOUT_MS });
}
