import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { ROUTE_PLAN_STAGE, WORKFLOW_TYPES, routePlanWorkflowId, type RoutePlanInput, type RoutePlanResult, type RoutePlanStage, type RoutePlanStageQuery, type RoutePlanWorkflow } from './contracts';
import { FAILURE_TYPES } from './failure-types';
import { OrganizationIdKey, OrganizationSubdomainKey } from './search-attributes';
import type { TenantSubdomains } from './tenant-subdomains';
import { conflict, providerFailed } from '../../domain/errors/errors';

export type RoutePlanOutcome = { status: 'done'; result: RoutePlanResult } | { status: 'running'; stage: RoutePlanStage; workflowId: string };

/**
 * D23: `POST /v1/fsm/routes/{date}/plan` runs the plan as `route-plan-<organizationId>-<date>`
 * (the workflow on the main task queue, its activities on the routing queue) and waits for it. One at a time per tenant and date: a request while one
 * runs gets that run's stage, not a second run; one after it ended starts a new run. A travel
 * source or a solver (VROOM) that failed is a 502 problem naming it; a day that cannot be routed a 409.
 */
export class RoutePlans {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; routingTaskQueue: string; subdomains: TenantSubdomains },
  ) {}

  async run(input: RoutePlanInput): Promise<RoutePlanOutcome> {
    const workflowId = routePlanWorkflowId(input.organizationId, input.date);
    let handle;
    try {
      handle = await this.client.workflow.start<RoutePlanWorkflow>(WORKFLOW_TYPES.routePlan, {
        taskQueue: this.options.taskQueue,
        workflowId,
        args: [{ ...input, routingTaskQueue: this.options.routingTaskQueue }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        typedSearchAttributes: [
          { key: OrganizationIdKey, value: input.organizationId },
          { key: OrganizationSubdomainKey, value: await this.options.subdomains.of(input.organizationId) },
        ],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const running = this.client.workflow.getHandle<RoutePlanWorkflow>(workflowId);
      const stage = await running.query<RoutePlanStage, []>(ROUTE_PLAN_STAGE satisfies RoutePlanStageQuery['name']).catch(() => 'loading' as const);
      return { status: 'running', stage, workflowId };
    }
    try {
      return { status: 'done', result: await handle.result() };
    } catch (error) {
      const cause = error instanceof WorkflowFailedError ? rootApplicationFailure(error.cause) : undefined;
      if (cause?.type === FAILURE_TYPES.travelTimesUnavailable || cause?.type === FAILURE_TYPES.routeSolverFailed) throw providerFailed(`${cause.message} Nothing was applied.`);
      if (cause?.type === FAILURE_TYPES.routingRefused) throw conflict(cause.message);
      throw error;
    }
  }
}

function rootApplicationFailure(error: unknown): ApplicationFailure | undefined {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApplicationFailure) return current;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return undefined;
}
