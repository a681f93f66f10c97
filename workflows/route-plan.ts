import { defineQuery, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RoutePlanStage, RoutePlanStageQuery, RoutePlanWorkflow } from '../infra/temporal/contracts';
import { databaseProfile, routingProfile } from './activity-profiles';

const stageQuery: RoutePlanStageQuery = defineQuery<RoutePlanStage, [], 'routePlanStage'>('routePlanStage');

/** A seed from the workflow id: the same day planned twice from the same data answers the same. */
function seedOf(id: string): number {
  let hash = 2166136261;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/**
 * D23: one tenant's day, `route-plan-<organizationId>-<date>` (one at a time per tenant and date:
 * a second request finds it running and answers its stage). The workflow runs on the main task
 * queue and its activities on the routing queue (`input.routingTaskQueue`), whose worker runs
 * activities only: load the day and its travel times, solve it, and unless a dry run or a check,
 * apply it in one transaction.
 */
export const routePlan: RoutePlanWorkflow = async function routePlan(input) {
  const queue = input.routingTaskQueue ?? workflowInfo().taskQueue;
  const routing = proxyActivities<Activities>(routingProfile({}, queue));
  const db = proxyActivities<Activities>({ ...databaseProfile({}), taskQueue: queue });
  let stage: RoutePlanStage = 'loading';
  setHandler(stageQuery, () => stage);
  const day = await routing.loadRoutingDay({ organizationId: input.organizationId, date: input.date });
  stage = 'solving';
  const plan = await routing.solveRoutingDay({ day, mode: input.mode, keepAssignments: input.keepAssignments, seed: seedOf(workflowInfo().workflowId) });
  if (input.dryRun || input.mode === 'check') {
    stage = 'done';
    return { plan, applied: null };
  }
  stage = 'applying';
  const applied = await db.applyRoutingPlan({ organizationId: input.organizationId, userId: input.userId, plan });
  stage = 'done';
  return { plan, applied };
};
