import type { temporal } from '@temporalio/proto';
import { randomBytes } from 'node:crypto';
import { provisionTenant } from '../../infra/temporal/tenant-workflows';
import { tenantProvisioningWorkflowId } from '../../infra/temporal/contracts';
import { startTemporalHarness } from './temporal-harness';

type History = temporal.api.history.v1.IHistory;

/**
 * D22: the provisioning workflow's two paths, a workspace made from nothing and a second run that
 * finds every part made. Used by scripts/record-histories.ts.
 */
export async function recordTenantHistories(): Promise<Record<string, History>> {
  const harness = await startTemporalHarness();
  await harness.startWorker();
  try {
    const subdomain = `record-${randomBytes(4).toString('hex')}`;
    const input = { subdomain, name: 'Recorded Shades', adminEmail: `admin@${subdomain}.test`, plan: 'growth', template: 'sandbox' } as const;
    const handle = () => harness.client.workflow.getHandle(tenantProvisioningWorkflowId(subdomain));
    await provisionTenant(harness.client, harness.taskQueue, input);
    const created = await handle().fetchHistory();
    await provisionTenant(harness.client, harness.taskQueue, input);
    const existed = await handle().fetchHistory();
    return { 'tenant-provisioning-created': created, 'tenant-provisioning-existed': existed };
  } finally {
    await harness.close();
  }
}
