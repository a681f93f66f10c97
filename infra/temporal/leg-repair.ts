import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { JOB_COMPLETION_INVOICE_PROGRESS, RETRY_LEG, approvalWorkflowId, changeOrderInvoiceWorkflowId, jobCompletionInvoiceWorkflowId, type JobCompletionInvoiceProgress, type LegOutcome, type LegProvider, type RetryLegUpdate } from './contracts';

/** The workflow is not waiting for a repair (it ended, or never ran): nothing was called. */
export class RepairUnavailable extends Error {
  override readonly name = 'RepairUnavailable';
  constructor(
    message: string,
    /** The workflow's status when it was found and had ended (`completed`, `failed`, ...). */
    readonly endedAs?: string,
  ) {
    super(message);
  }
}

/**
 * D19's one path for repairing a failed provider call: the `retryLeg` update of the workflow that
 * made it, which runs the call again with the same idempotency keys and answers its outcome.
 * `what` names the workflow in messages ("approval workflow", "change order invoice workflow").
 */
async function retryOn(client: Client, workflowId: string, what: string, provider: LegProvider): Promise<LegOutcome> {
  const handle = client.workflow.getHandle(workflowId);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new RepairUnavailable(`no ${what} ${workflowId}`);
    throw error;
  }
  if (status !== 'RUNNING') throw new RepairUnavailable(`the ${what} ${workflowId} is ${status.toLowerCase()}, not waiting for a repair`, status.toLowerCase());
  try {
    return await handle.executeUpdate<LegOutcome, [{ provider: LegProvider }], RetryLegUpdate['name']>(RETRY_LEG, { args: [{ provider }] });
  } catch (error) {
    // Rejected by the validator (its repair window closed), or it ended meanwhile.
    if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) {
      throw new RepairUnavailable(`the ${what} ${workflowId} did not take the retry: ${error.cause instanceof Error ? error.cause.message : error.message}`);
    }
    throw error;
  }
}

/** A failed leg of a quote's approval. Used by `POST /quotes/{id}/invoice` (payments) and `npm run ops -- retry`. */
export function retryApprovalLeg(client: Client, input: { quoteId: string; provider: LegProvider }): Promise<LegOutcome> {
  return retryOn(client, approvalWorkflowId(input.quoteId), 'approval workflow', input.provider);
}

/** A change order's failed invoice or credit note (D12). Used by `npm run ops -- retry --change-order`. */
export function retryChangeOrderInvoice(client: Client, input: { changeOrderId: string }): Promise<LegOutcome> {
  return retryOn(client, changeOrderInvoiceWorkflowId(input.changeOrderId), 'change order invoice workflow', 'PAYMENTS');
}

/** A completed job's failed invoice (issue 30). Used by `npm run ops -- retry --job`. */
export function retryJobCompletionInvoice(client: Client, input: { jobId: string }): Promise<LegOutcome> {
  return retryOn(client, jobCompletionInvoiceWorkflowId(input.jobId), 'job completion invoice workflow', 'PAYMENTS');
}

/**
 * The outcome of the first payments call of a job's completion invoice workflow just started
 * (`npm run ops -- retry --job` of an invoice it priced, D11), read from its progress query; the
 * workflow then waits for repairs as any (D19). Throws RepairUnavailable when none came in `waitMs`.
 */
export async function firstJobCompletionInvoiceOutcome(client: Client, input: { jobId: string; waitMs?: number }): Promise<LegOutcome> {
  const handle = client.workflow.getHandle(jobCompletionInvoiceWorkflowId(input.jobId));
  const until = Date.now() + (input.waitMs ?? 120_000);
  while (Date.now() < until) {
    const progress = await handle.query<JobCompletionInvoiceProgress, []>(JOB_COMPLETION_INVOICE_PROGRESS);
    if (progress.outcome) return { provider: 'PAYMENTS', ...progress.outcome };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new RepairUnavailable(`the job completion invoice workflow ${jobCompletionInvoiceWorkflowId(input.jobId)} has not settled its call yet`);
}

/** Whether the workflow still runs (so a call that failed again still waits for a repair). */
export async function stillWaiting(client: Client, workflowId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
