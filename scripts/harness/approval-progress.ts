import type { Client } from '@temporalio/client';
import { APPROVAL_PROGRESS, approvalWorkflowId, type ApprovalProgress } from '../../infra/temporal/contracts';

/**
 * D19: an approval with a failed leg no longer ends; it waits for `retryLeg`. Tests wait for its
 * legs to settle instead: the run ended, or it is `awaiting_repair`. Answers what it reached.
 */
export async function approvalSettled(client: Client, quoteId: string, timeoutMs = 60_000): Promise<ApprovalProgress> {
  const handle = client.workflow.getHandle(approvalWorkflowId(quoteId));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') {
      const result = (await handle.result()) as { legs: ApprovalProgress['legs'] };
      return { state: 'completed', legs: result.legs };
    }
    const progress = await handle.query<ApprovalProgress, []>(APPROVAL_PROGRESS).catch(() => undefined);
    if (progress && progress.state !== 'running') return progress;
    if (Date.now() > deadline) throw new Error(`approval of ${quoteId} did not settle within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
