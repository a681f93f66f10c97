import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { WORKFLOW_TYPES, pricebookPublicationWorkflowId, type PricebookPublicationWorkflow, type Timing } from './contracts';
import { OrganizationIdKey } from './search-attributes';

/**
 * D21: starts the durable timer that announces a future-dated price book revision. The API calls
 * it inside the publishing transaction, before the commit: a start that fails rolls the
 * publication back, and a timer whose publication then failed to commit finds no revision and
 * announces nothing.
 */
export class PricebookWorkflows {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; timing?: Timing },
  ) {}

  async schedule(ref: { organizationId: string; revisionId: string; effectiveFrom: string }): Promise<void> {
    try {
      await this.client.workflow.start<PricebookPublicationWorkflow>(WORKFLOW_TYPES.pricebookPublication, {
        taskQueue: this.options.taskQueue,
        workflowId: pricebookPublicationWorkflowId(ref),
        args: [{ ...ref, ...(this.options.timing ? { timing: this.options.timing } : {}) }],
        typedSearchAttributes: [{ key: OrganizationIdKey, value: ref.organizationId }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}
