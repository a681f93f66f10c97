import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { WORKFLOW_TYPES, invoiceWorkflowId, type LegOutcome, type QuoteInvoiceWorkflow, type Timing } from './contracts';
import { OrganizationIdKey, OrganizationSubdomainKey, ProviderKey, QuoteIdKey, QuoteNumberKey } from './search-attributes';
import type { TenantSubdomains } from './tenant-subdomains';
import { RepairUnavailable, retryApprovalLeg } from './leg-repair';

/**
 * `POST /quotes/{id}/invoice` runs the payments leg and waits for it. D19: while the quote's
 * approval waits for a repair, through its `retryLeg` update (the same path as `npm run ops --
 * retry`); otherwise (an approval that ended, or ran before D19) as its own workflow. One id per
 * quote: a request while a run is going joins it; a request after it ended starts a new run (the
 * leg's idempotency keys make a repeated run write nothing twice).
 */
export class InvoiceRunner {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; timing?: Timing; subdomains: TenantSubdomains },
  ) {}

  async run(input: { organizationId: string; quoteId: string; quoteNumber: number }): Promise<LegOutcome> {
    try {
      const outcome = await retryApprovalLeg(this.client, { quoteId: input.quoteId, provider: 'PAYMENTS' });
      // SKIPPED: payments was not configured at approval; the leg runs on its own below.
      if (outcome.status !== 'SKIPPED') return outcome;
    } catch (error) {
      if (!(error instanceof RepairUnavailable)) throw error;
    }
    return this.client.workflow.execute<QuoteInvoiceWorkflow>(WORKFLOW_TYPES.quoteInvoice, {
      taskQueue: this.options.taskQueue,
      workflowId: invoiceWorkflowId(input.quoteId),
      args: [{ organizationId: input.organizationId, quoteId: input.quoteId, timing: this.options.timing ?? {} }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      typedSearchAttributes: [
        { key: OrganizationIdKey, value: input.organizationId },
        { key: OrganizationSubdomainKey, value: await this.options.subdomains.of(input.organizationId) },
        { key: QuoteIdKey, value: input.quoteId },
        { key: QuoteNumberKey, value: input.quoteNumber },
        { key: ProviderKey, value: 'PAYMENTS' },
      ],
    });
  }
}
