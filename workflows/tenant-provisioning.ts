import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { TenantProvisioningWorkflow } from '../infra/temporal/contracts';
import { databaseProfile } from './activity-profiles';

/**
 * D22: a new workspace, its first price-book revision from the template, and its first ADMIN
 * invited (D20). Id `tenant-provisioning-<subdomain>`. Every step is idempotent and retried, so
 * a worker that dies half-way leaves a run that another worker resumes at the step it was on,
 * and a second run for the same subdomain finds every part made and says so.
 */
export const tenantProvisioning: TenantProvisioningWorkflow = async function tenantProvisioning(input) {
  const db = proxyActivities<Activities>(databaseProfile(input.timing ?? {}));
  const workspace = await db.provisionWorkspace({ subdomain: input.subdomain, name: input.name, plan: input.plan });
  const priceBook = await db.provisionPriceBook({ organizationId: workspace.organizationId, template: input.template });
  const admin = await db.inviteFirstAdmin({ organizationId: workspace.organizationId, email: input.adminEmail });
  return { organizationId: workspace.organizationId, workspace: workspace.outcome, priceBook, admin };
};
