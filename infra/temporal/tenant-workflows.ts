import { ScheduleNotFoundError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { DELIVERIES_DUE, WORKFLOW_TYPES, endpointDeliveryWorkflowId, providerSyncScheduleId, tenantProvisioningWorkflowId, type LegProvider, type TenantProvisioningInput, type TenantProvisioningResult, type TenantProvisioningWorkflow } from './contracts';
import { OrganizationSubdomainKey } from './search-attributes';

/**
 * D22: runs the provisioning of a workspace to its end and answers what each step did. A run
 * already going for the subdomain (a second `ops tenant create` while the first runs, or a run a
 * crashed worker left) is joined rather than doubled; a finished run's id is reused, and the new
 * run finds every part made.
 */
export async function provisionTenant(client: Client, taskQueue: string, input: TenantProvisioningInput): Promise<TenantProvisioningResult & { joined: boolean }> {
  const workflowId = tenantProvisioningWorkflowId(input.subdomain);
  try {
    const handle = await client.workflow.start<TenantProvisioningWorkflow>(WORKFLOW_TYPES.tenantProvisioning, {
      workflowId,
      taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: [{ key: OrganizationSubdomainKey, value: input.subdomain }],
    });
    return { ...(await handle.result()), joined: false };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return { ...(await client.workflow.getHandle<TenantProvisioningWorkflow>(workflowId).result()), joined: true };
  }
}

const SYNCED_PROVIDERS: readonly LegProvider[] = ['PAYMENTS', 'ACCOUNTING', 'CRM'];
/** The note a schedule paused by a suspension carries: resuming the tenant un-pauses exactly those. */
export const SUSPENDED_NOTE = 'tenant suspended (D22)';

/**
 * D22: a suspended tenant's schedules (D18's provider sync, one per provider) pause; resuming the
 * tenant un-pauses those its suspension paused, and leaves alone those paused for another reason
 * (a connection no longer usable). Answers the schedule ids it changed.
 */
export async function pauseTenantSchedules(client: Client, organizationId: string): Promise<string[]> {
  const paused: string[] = [];
  for (const provider of SYNCED_PROVIDERS) {
    const handle = client.schedule.getHandle(providerSyncScheduleId({ organizationId, provider }));
    try {
      const described = await handle.describe();
      if (described.state.paused) continue;
      await handle.pause(SUSPENDED_NOTE);
      paused.push(handle.scheduleId);
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  }
  return paused;
}

export async function resumeTenantSchedules(client: Client, organizationId: string): Promise<string[]> {
  const resumed: string[] = [];
  for (const provider of SYNCED_PROVIDERS) {
    const handle = client.schedule.getHandle(providerSyncScheduleId({ organizationId, provider }));
    try {
      const described = await handle.describe();
      if (!described.state.paused || described.state.note !== SUSPENDED_NOTE) continue;
      await handle.unpause('tenant resumed (D22)');
      resumed.push(handle.scheduleId);
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  }
  return resumed;
}

/**
 * D22: wakes the delivery workflow of each endpoint (its deliveries were held while the tenant was
 * suspended). An endpoint with no running workflow has nothing held: the next event starts one.
 * Answers how many were woken.
 */
export async function wakeEndpointDeliveries(client: Client, endpointIds: readonly string[]): Promise<number> {
  let woken = 0;
  for (const endpointId of endpointIds) {
    try {
      await client.workflow.getHandle(endpointDeliveryWorkflowId(endpointId)).signal(DELIVERIES_DUE);
      woken += 1;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  return woken;
}
