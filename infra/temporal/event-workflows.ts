import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { EventEnvelope } from '../../domain/events/catalogue';
import {
  WORKFLOW_TYPES,
  approvalWorkflowId,
  changeOrderInvoiceWorkflowId,
  jobCompletionInvoiceWorkflowId,
  type ChangeOrderInvoiceWorkflow,
  type JobCompletionInvoiceWorkflow,
  type QuoteApprovalWorkflow,
  type Timing,
} from './contracts';
import { OrganizationIdKey, OrganizationSubdomainKey, QuoteIdKey, QuoteNumberKey } from './search-attributes';
import type { TenantSubdomains } from './tenant-subdomains';

/**
 * Starts the workflows an outbox event calls for. Workflow ids are business keys, so a second
 * start of the same event (the API's fast path and the relay both trying) lands on the same run.
 */
export class EventWorkflows {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; timing?: Timing; subdomains: TenantSubdomains },
  ) {}

  async startFor(envelope: EventEnvelope): Promise<void> {
    switch (envelope.event) {
      case 'quote.approved': {
        const data = envelope.data as { quote_id: string; quote_number: number };
        await ignoreAlreadyStarted(
          this.client.workflow.start<QuoteApprovalWorkflow>(WORKFLOW_TYPES.quoteApproval, {
            taskQueue: this.options.taskQueue,
            workflowId: approvalWorkflowId(data.quote_id),
            args: [{ organizationId: envelope.organization_id, quoteId: data.quote_id, timing: this.options.timing ?? {} }],
            typedSearchAttributes: [
              { key: OrganizationIdKey, value: envelope.organization_id },
              { key: OrganizationSubdomainKey, value: await this.options.subdomains.of(envelope.organization_id) },
              { key: QuoteIdKey, value: data.quote_id },
              { key: QuoteNumberKey, value: data.quote_number },
            ],
            // One approval fan-out per quote, ever: a finished run is never started again.
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          }),
        );
        return;
      }
      case 'change_order.approved': {
        // D12: on an approved quote, the change order's own invoice; never the quote's approval again.
        const data = envelope.data as { change_order_id: string; quote_id: string | null; invoice?: boolean };
        if (!data.invoice || !data.quote_id) return;
        // The event names the quote by id only (its payload is public): one read for its number and the tenant's subdomain.
        const { subdomain, quoteNumber } = await this.options.subdomains.withQuoteNumber(envelope.organization_id, data.quote_id);
        await ignoreAlreadyStarted(
          this.client.workflow.start<ChangeOrderInvoiceWorkflow>(WORKFLOW_TYPES.changeOrderInvoice, {
            taskQueue: this.options.taskQueue,
            workflowId: changeOrderInvoiceWorkflowId(data.change_order_id),
            args: [{ organizationId: envelope.organization_id, changeOrderId: data.change_order_id, timing: this.options.timing ?? {} }],
            typedSearchAttributes: [
              { key: OrganizationIdKey, value: envelope.organization_id },
              { key: OrganizationSubdomainKey, value: subdomain },
              { key: QuoteIdKey, value: data.quote_id },
              ...(quoteNumber === null ? [] : [{ key: QuoteNumberKey, value: quoteNumber }]),
            ],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          }),
        );
        return;
      }
      case 'job.completed':
      case 'job.customer_changed': {
        // Issue 30: a completed job with an approved quote, or with a customer and no quote, is
        // reconciled and invoiced by its own workflow, keyed by the job. D11: one completed
        // without a customer keeps its invoice waiting; the customer set later starts the same
        // workflow (a change on a job not complete finds no invoice and starts nothing).
        const data = envelope.data as { job_id: string };
        const job = await this.options.subdomains.withCompletionInvoice(envelope.organization_id, data.job_id);
        if (!job.invoiced) return;
        await startJobCompletionInvoice(this.client, {
          taskQueue: this.options.taskQueue,
          timing: this.options.timing ?? {},
          organizationId: envelope.organization_id,
          subdomain: job.subdomain,
          jobId: data.job_id,
          quoteId: job.quoteId,
          quoteNumber: job.quoteNumber,
        });
        return;
      }
      default:
        return;
    }
  }
}

/**
 * Starts the `job-completion-invoice-<job id>` workflow of a completed job whose invoice is ready
 * to bill (a second start lands on the same run): at completion or once its customer is set (the
 * events above), or once `npm run ops -- retry --job` has priced an invoice that waited for prices (D11).
 */
export async function startJobCompletionInvoice(
  client: Client,
  job: { taskQueue: string; timing: Timing; organizationId: string; subdomain: string; jobId: string; quoteId: string | null; quoteNumber: number | null },
): Promise<void> {
  await ignoreAlreadyStarted(
    client.workflow.start<JobCompletionInvoiceWorkflow>(WORKFLOW_TYPES.jobCompletionInvoice, {
      taskQueue: job.taskQueue,
      workflowId: jobCompletionInvoiceWorkflowId(job.jobId),
      args: [{ organizationId: job.organizationId, jobId: job.jobId, timing: job.timing }],
      typedSearchAttributes: [
        { key: OrganizationIdKey, value: job.organizationId },
        { key: OrganizationSubdomainKey, value: job.subdomain },
        ...(job.quoteId === null ? [] : [{ key: QuoteIdKey, value: job.quoteId }]),
        ...(job.quoteNumber === null ? [] : [{ key: QuoteNumberKey, value: job.quoteNumber }]),
      ],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    }),
  );
}

async function ignoreAlreadyStarted(start: Promise<unknown>): Promise<void> {
  try {
    await start;
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
