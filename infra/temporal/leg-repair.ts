import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { RETRY_LEG, approvalWorkflowId, type LegOutcome, type LegProvider, type RetryLegUpdate } from './contracts';

/** The approval is not waiting for a repair (it ended, or never ran): nothing was called. */
export class RepairUnavailable extends Error {
  override readonly name = 'RepairUnavailable';
}

/**
 * D19's one path for repairing a failed leg: the `retryLeg` update of the quote's approval
 * workflow, which runs the leg again with the same idempotency keys and answers its outcome.
 * Used by `POST /quotes/{id}/invoice` (payments) and `npm run ops -- retry`.
 */
export async function retryApprovalLeg(client: Client, input: { quoteId: string; provider: LegProvider }): Promise<LegOutcome> {
  const handle = client.workflow.getHandle(approvalWorkflowId(input.quoteId));
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new RepairUnavailable(`no approval workflow ${handle.workflowId}`);
    throw error;
  }
  if (status !== 'RUNNING') throw new RepairUnavailable(`the approval workflow ${handle.workflowId} is ${status.toLowerCase()}, not waiting for a repair`);
  try {
    return await handle.executeUpdate<LegOutcome, [{ provider: LegProvider }], RetryLegUpdate['name']>(RETRY_LEG, { args: [{ provider: input.provider }] });
  } catch (error) {
    // Rejected by the validator (a run from before D19, or one whose repair window closed), or it ended meanwhile.
    if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) {
      throw new RepairUnavailable(`the approval workflow ${handle.workflowId} did not take the retry: ${error.cause instanceof Error ? error.cause.message : error.message}`);
    }
    throw error;
  }
}
