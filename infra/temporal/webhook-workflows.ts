import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { DELIVERIES_DUE, WORKFLOW_TYPES, endpointDeliveryWorkflowId, webhookWorkflowId, type EndpointDeliveryLimits, type EndpointDeliveryWorkflow, type Timing, type WebhookDeliveryWorkflow } from './contracts';
import { DeliveryStatusKey, OrganizationIdKey, QuoteIdKey } from './search-attributes';

/**
 * Wakes (signal-with-start) the one delivery workflow of an endpoint, id
 * `webhook-endpoint-<endpointId>`. Before it, each delivery series had its own workflow
 * (`start`, kept for rows pending from then).
 */
export class WebhookWorkflows {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; timing?: Timing; endpointLimits?: Partial<EndpointDeliveryLimits> },
  ) {}

  /** Starts the endpoint's workflow if none runs, and signals it that deliveries are due. */
  async wake(organizationId: string, endpoint: { endpointId: string; format: 'core' | 'field' | 'events' }): Promise<void> {
    await this.client.workflow.signalWithStart<EndpointDeliveryWorkflow, []>(WORKFLOW_TYPES.deliverEndpointWebhooks, {
      taskQueue: this.options.taskQueue,
      workflowId: endpointDeliveryWorkflowId(endpoint.endpointId),
      args: [{ organizationId, endpointId: endpoint.endpointId, format: endpoint.format, timing: this.options.timing ?? {}, ...(this.options.endpointLimits ? { limits: this.options.endpointLimits } : {}) }],
      signal: DELIVERIES_DUE,
      signalArgs: [],
      typedSearchAttributes: [{ key: OrganizationIdKey, value: organizationId }],
    });
  }

  /** `event.quoteId`: the quote the event is about, when it is about one (findable by QuoteId). */
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
