import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { DomainError } from '../../domain/errors/errors';
import { planDay, type DayInput, type PlanMode, type PlanResult } from '../../domain/routing/plan';
import type { Solver } from '../../domain/routing/problem';
import { TravelTimesUnavailable } from '../../domain/routing/travel/source';
import { routeSolver } from '../../infra/routing/solver';
import { applyRoutes, loadDay, type AppliedRoute, type TravelConfig } from '../../infra/routing/routing-day';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';

/** What the routing activities need: where travel times come from, and the solver (the threaded built-in one unless the worker says). */
export interface RoutingDependencies {
  travel: TravelConfig;
  solver?: Solver | undefined;
  /** The solver's time budget per plan, milliseconds. */
  solveBudgetMs?: number;
  /** A cap on the solver's iterations per plan (none by default: the time budget alone ends a solve). */
  solveIterations?: number;
}

/**
 * D23's activities, run on the routing task queue (workflows/route-plan.ts): load a day (I/O:
 * the database and the travel-time source), solve it (CPU: on its own queue, so solving never
 * starves the I/O activities of the main queue), apply it (one transaction). A travel source that
 * fails, a solver that fails (VROOM: down, silent past its timeout, or answering what is not a
 * solution), and a day that cannot be routed (no depot), fail the plan at once: someone waits on
 * the plan's answer, a retry would mostly answer the same after as long again, and nothing is applied.
 */
export function createRoutingActivities(deps: { em: EntityManager; routing: RoutingDependencies }) {
  // The built-in solver on a thread of its own unless the worker names another (VROOM, infra/routing/solver.ts).
  const solver = deps.routing.solver ?? routeSolver({});
  return {
    async loadRoutingDay(input: { organizationId: string; date: string }): Promise<DayInput> {
      try {
        return await inTenant(deps.em, input.organizationId, (tx) => loadDay(tx, input.date, deps.routing.travel));
      } catch (error) {
        if (error instanceof TravelTimesUnavailable) throw ApplicationFailure.create({ type: FAILURE_TYPES.travelTimesUnavailable, message: error.message, nonRetryable: true, details: [error.source] });
        if (error instanceof DomainError) throw ApplicationFailure.create({ type: FAILURE_TYPES.routingRefused, message: error.message, nonRetryable: true, details: [error.kind] });
        throw error;
      }
    },

    async solveRoutingDay(input: { day: DayInput; mode: PlanMode; keepAssignments: boolean; seed: number }): Promise<PlanResult> {
      try {
        return await planDay(input.day, { mode: input.mode, keepAssignments: input.keepAssignments, solver, seed: input.seed, timeBudgetMs: deps.routing.solveBudgetMs ?? 1000, ...(deps.routing.solveIterations === undefined ? {} : { maxIterations: deps.routing.solveIterations }), now: () => performance.now() });
      } catch (error) {
        // The solver's own failures (infra/routing/vroom-solver.ts names the server in each).
        if (error instanceof DomainError && (error.kind === 'provider_failed' || error.kind === 'provider_unavailable')) {
          throw ApplicationFailure.create({ type: FAILURE_TYPES.routeSolverFailed, message: error.message, nonRetryable: true, details: [error.kind] });
        }
        throw error;
      }
    },

    async applyRoutingPlan(input: { organizationId: string; userId: string; plan: PlanResult }): Promise<AppliedRoute[]> {
      const { plan } = input;
      return inTenant(deps.em, input.organizationId, (tx) =>
        applyRoutes(tx, { date: plan.date, userId: input.userId, routes: plan.routes, source: plan.travelTimeSource, emptyOthers: true, day: plan }),
      );
    },
  };
}
