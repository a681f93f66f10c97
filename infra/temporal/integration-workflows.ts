import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Logger } from 'pino';
import {
  CONNECTION_CHANGED,
  WORKFLOW_TYPES,
  integrationRefreshWorkflowId,
  type ConnectionChange,
  type RefreshedProvider,
  type Timing,
  type TokenRefreshInput,
  type TokenRefreshWorkflow,
} from './contracts';
import { OrganizationIdKey, OrganizationSubdomainKey, ProviderKey } from './search-attributes';
import type { TenantSubdomains } from './tenant-subdomains';
import type { ProviderSyncSchedules } from './provider-sync-schedules';

export interface ConnectionKey {
  organizationId: string;
  provider: RefreshedProvider;
}

/**
 * Starts and wakes the token refresh workflow of a connection (one per tenant and provider, by
 * business key). Used by the API after a consent or a disconnect, and by the worker's start-up
 * reconciliation for connections whose workflow never started.
 */
export class IntegrationWorkflows {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; subdomains: TenantSubdomains; timing?: Timing; roundsPerRun?: number; logger?: Logger; syncSchedules?: ProviderSyncSchedules },
  ) {}

  /**
   * Connected: signal the running workflow, or start one (a finished run's id may be reused).
   * Disconnected: signal it, so it looks, finds DISCONNECTED and ends; nothing to do if none runs.
   */
  async connectionChanged(ref: ConnectionKey, reason: ConnectionChange['reason']): Promise<void> {
    await this.refreshWorkflowChanged(ref, reason);
    // D18: the provider sync schedule follows the connection: made or resumed, or paused.
    if (reason === 'connected') await this.options.syncSchedules?.ensure(ref, 'connected');
    else await this.options.syncSchedules?.pause(ref, 'disconnected');
  }

  private async refreshWorkflowChanged(ref: ConnectionKey, reason: ConnectionChange['reason']): Promise<void> {
    const workflowId = integrationRefreshWorkflowId(ref);
    if (reason === 'disconnected') {
      try {
        await this.client.workflow.getHandle<TokenRefreshWorkflow>(workflowId).signal<[ConnectionChange]>(CONNECTION_CHANGED, { reason });
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
      return;
    }
    const input: TokenRefreshInput = {
      organizationId: ref.organizationId,
      provider: ref.provider,
      ...(this.options.timing ? { timing: this.options.timing } : {}),
      ...(this.options.roundsPerRun ? { roundsPerRun: this.options.roundsPerRun } : {}),
    };
    await this.client.workflow.signalWithStart<TokenRefreshWorkflow, [ConnectionChange]>(WORKFLOW_TYPES.integrationTokenRefresh, {
      taskQueue: this.options.taskQueue,
      workflowId,
      args: [input],
      signal: CONNECTION_CHANGED,
      signalArgs: [{ reason }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: [
        { key: OrganizationIdKey, value: ref.organizationId },
        { key: OrganizationSubdomainKey, value: await this.options.subdomains.of(ref.organizationId) },
        { key: ProviderKey, value: ref.provider },
      ],
    });
  }

  /** Worker start-up: every usable connection has its workflow (starting one that runs is a no-op signal). */
  async ensureAll(targets: ConnectionKey[]): Promise<number> {
    let ensured = 0;
    for (const target of targets) {
      try {
        await this.connectionChanged(target, 'connected');
        ensured++;
      } catch (error) {
        this.options.logger?.warn({ err: error, organization_id: target.organizationId, provider: target.provider }, 'could not ensure the token refresh workflow');
      }
    }
    return ensured;
  }
}
