import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import {
  APPROVAL_PROGRESS,
  CHANGE_ORDER_INVOICE_PROGRESS,
  approvalWorkflowId,
  changeOrderInvoiceWorkflowId,
  jobCompletionInvoiceWorkflowId,
  JOB_COMPLETION_INVOICE_PROGRESS,
  type ApprovalProgress,
  type ChangeOrderInvoiceOutcome,
  type ChangeOrderInvoiceProgress,
} from '../../infra/temporal/contracts';
import { waitUntil } from './wait-until';

/**
 * D19: an approval with a failed leg no longer ends; it waits for `retryLeg`. Tests wait for its
 * legs to settle instead: the run ended, or it is `awaiting_repair`. Answers what it reached.
 */
export async function approvalSettled(client: Client, quoteId: string, timeoutMs = 60_000): Promise<ApprovalProgress> {
  const handle = client.workflow.getHandle(approvalWorkflowId(quoteId));
  return waitUntil(
    `the approval of ${quoteId} to settle`,
    async (): Promise<ApprovalProgress | undefined> => {
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') {
        const result = (await handle.result()) as { legs: ApprovalProgress['legs'] };
        return { state: 'completed', legs: result.legs };
      }
      const progress = await handle.query<ApprovalProgress, []>(APPROVAL_PROGRESS).catch(() => undefined);
      return progress && progress.state !== 'running' ? progress : undefined;
    },
    { timeoutMs },
  );
}

/**
 * D19 for a change order's invoice or credit note: its workflow ends when the call SUCCEEDED, and
 * waits for `retryLeg` when it FAILED. Tests wait for either (the run may not have started yet when
 * the approving request answers: the outbox relay starts it). Answers what it reached.
 */
export function changeOrderInvoiceSettled(client: Client, changeOrderId: string, timeoutMs = 60_000): Promise<ChangeOrderInvoiceProgress> {
  return repairableCallSettled(client, changeOrderInvoiceWorkflowId(changeOrderId), CHANGE_ORDER_INVOICE_PROGRESS, `the invoice of change order ${changeOrderId}`, timeoutMs);
}

/** The same for a completed job's invoice (issue 30): its workflow starts from the job's `job.completed`. */
export function jobCompletionInvoiceSettled(client: Client, jobId: string, timeoutMs = 60_000): Promise<ChangeOrderInvoiceProgress> {
  return repairableCallSettled(client, jobCompletionInvoiceWorkflowId(jobId), JOB_COMPLETION_INVOICE_PROGRESS, `the completion invoice of job ${jobId}`, timeoutMs);
}

async function repairableCallSettled(client: Client, workflowId: string, query: string, what: string, timeoutMs: number): Promise<ChangeOrderInvoiceProgress> {
  const handle = client.workflow.getHandle(workflowId);
  return waitUntil(
    `${what} to settle`,
    async (): Promise<ChangeOrderInvoiceProgress | undefined> => {
      const status = await handle.describe().then(
        (d) => d.status.name,
        (error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return 'NOT_STARTED';
          throw error;
        },
      );
      if (status !== 'RUNNING' && status !== 'NOT_STARTED') return { state: 'completed', outcome: (await handle.result()) as ChangeOrderInvoiceOutcome };
      const progress = status === 'RUNNING' ? await handle.query<ChangeOrderInvoiceProgress, []>(query).catch(() => undefined) : undefined;
      return progress && progress.state !== 'running' ? progress : undefined;
    },
    { timeoutMs },
  );
}
