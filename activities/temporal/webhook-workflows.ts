import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { WORKFLOW_TYPES, webhookWorkflowId, type Timing, type WebhookDeliveryWorkflow } from './contracts';
import { DeliveryStatusKey, OrganizationIdKey, QuoteIdKey } from './search-attributes';

/** Starts the delivery workflow of one delivery series (section 6.3); starting one twice is harmless. */
export class WebhookWorkflows {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; timing?: Timing },
  ) {}

  /** `event.quoteId`: the quote the event is about, when it is about one (issue 17: findable by QuoteId). */
  async start(
    organizationId: string,
    delivery: { id: string; event_id: string; endpoint_id: string; series: number; format?: 'core' | 'field' | 'events' },
    event: { quoteId?: string | undefined } = {},
  ): Promise<void> {
    try {
      await this.client.workflow.start<WebhookDeliveryWorkflow>(WORKFLOW_TYPES.deliverWebhook, {
        taskQueue: this.options.taskQueue,
        workflowId: webhookWorkflowId(delivery.event_id, delivery.endpoint_id, delivery.series),
        args: [{ organizationId, deliveryId: delivery.id, ...(delivery.format ? { format: delivery.format } : {}), timing: this.options.timing ?? {} }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: OrganizationIdKey, value: organizationId },
          { key: DeliveryStatusKey, value: 'pending' },
          ...(event.quoteId ? [{ key: QuoteIdKey, value: event.quoteId }] : []),
        ],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}
