import type { Client } from '@temporalio/client';
import { DELIVERIES_DUE, WORKFLOW_TYPES, endpointDeliveryWorkflowId, type EndpointDeliveryLimits, type EndpointDeliveryWorkflow, type Timing } from './contracts';
import { OrganizationIdKey, OrganizationSubdomainKey } from './search-attributes';
import type { TenantSubdomains } from './tenant-subdomains';

/**
 * Wakes (signal-with-start) the one delivery workflow of an endpoint, id
 * `webhook-endpoint-<endpointId>`, which carries every delivery of that endpoint.
 */
export class WebhookWorkflows {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; timing?: Timing; endpointLimits?: Partial<EndpointDeliveryLimits>; subdomains: TenantSubdomains },
  ) {}

  /** Starts the endpoint's workflow if none runs, and signals it that deliveries are due. */
  async wake(organizationId: string, endpoint: { endpointId: string; format: 'core' | 'field' | 'events' }): Promise<void> {
    await this.client.workflow.signalWithStart<EndpointDeliveryWorkflow, []>(WORKFLOW_TYPES.deliverEndpointWebhooks, {
      taskQueue: this.options.taskQueue,
      workflowId: endpointDeliveryWorkflowId(endpoint.endpointId),
      args: [{ organizationId, endpointId: endpoint.endpointId, format: endpoint.format, timing: this.options.timing ?? {}, ...(this.options.endpointLimits ? { limits: this.options.endpointLimits } : {}) }],
      signal: DELIVERIES_DUE,
      signalArgs: [],
      typedSearchAttributes: [
        { key: OrganizationIdKey, value: organizationId },
        // Read once per tenant and process (tenant-subdomains.ts): the dispatch path stays as fast.
        { key: OrganizationSubdomainKey, value: await this.options.subdomains.of(organizationId) },
      ],
    });
  }
}
