import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { WORKFLOW_TYPES, invoiceWorkflowId, type LegOutcome, type QuoteInvoiceWorkflow, type Timing } from './contracts';
import { OrganizationIdKey, ProviderKey, QuoteIdKey, QuoteNumberKey } from './search-attributes';

/**
 * `POST /quotes/{id}/invoice` runs the payments leg alone as its own workflow and waits for it.
 * One id per quote: a request while a run is going joins it; a request after it ended starts a
 * new run (the leg's idempotency keys make a repeated run write nothing twice).
 */
export class InvoiceRunner {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; timing?: Timing },
  ) {}

  async run(input: { organizationId: string; quoteId: string; quoteNumber: number }): Promise<LegOutcome> {
    return this.client.workflow.execute<QuoteInvoiceWorkflow>(WORKFLOW_TYPES.quoteInvoice, {
      taskQueue: this.options.taskQueue,
      workflowId: invoiceWorkflowId(input.quoteId),
      args: [{ organizationId: input.organizationId, quoteId: input.quoteId, timing: this.options.timing ?? {} }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      typedSearchAttributes: [
        { key: OrganizationIdKey, value: input.organizationId },
        { key: QuoteIdKey, value: input.quoteId },
        { key: QuoteNumberKey, value: input.quoteNumber },
        { key: ProviderKey, value: 'PAYMENTS' },
      ],
    });
  }
}
