import { patched, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Activities } from '../activities';
import type { TenantProvisioningWorkflow } from '../infra/temporal/contracts';
import type { SEARCH_ATTRIBUTES } from '../infra/temporal/search-attributes';
import { databaseProfile } from './activity-profiles';

const ORGANIZATION_ID: keyof typeof SEARCH_ATTRIBUTES = 'OrganizationId';
const OrganizationIdKey = defineSearchAttributeKey(ORGANIZATION_ID, SearchAttributeType.KEYWORD);
/** docs/workflow-versioning.md: runs that passed the workspace step before this did not record the id. */
const TENANT_ORGANIZATION_ID = 'tenant-organization-id';

/**
 * D22: a new workspace, its first price-book revision from the template, and its first ADMIN
 * invited (D20). Id `tenant-provisioning-<subdomain>`. Every step is idempotent and retried, so
 * a worker that dies half-way leaves a run that another worker resumes at the step it was on,
 * and a second run for the same subdomain finds every part made and says so.
 *
 * It starts with `OrganizationSubdomain` (the only name of the tenant known then) and, once the
 * workspace step answers its id, carries `OrganizationId` too, as every workflow of a tenant does.
 */
export const tenantProvisioning: TenantProvisioningWorkflow = async function tenantProvisioning(input) {
  const db = proxyActivities<Activities>(databaseProfile(input.timing ?? {}));
  const workspace = await db.provisionWorkspace({ subdomain: input.subdomain, name: input.name, plan: input.plan });
  if (patched(TENANT_ORGANIZATION_ID)) upsertSearchAttributes([{ key: OrganizationIdKey, value: workspace.organizationId }]);
  const priceBook = await db.provisionPriceBook({ organizationId: workspace.organizationId, template: input.template });
  const admin = await db.inviteFirstAdmin({ organizationId: workspace.organizationId, email: input.adminEmail });
  return { organizationId: workspace.organizationId, workspace: workspace.outcome, priceBook, admin };
};
