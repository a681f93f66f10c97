import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { inviteFirstAdmin, provisionPriceBook, provisionWorkspace, type StepOutcome } from '../../db/tenants/provisioning';
import type { AuditActor } from '../../domain/audit/audit-entry';
import type { TenantProvisioningInput } from '../../infra/temporal/contracts';

/** The audit log's actor of every provisioning step: the operator at the command line (D22). */
const OPERATOR: AuditActor = { type: 'operator', id: null, email: null };

/**
 * D22: the steps of `tenantProvisioning`, each in its own transaction and idempotent, so a retried
 * or resumed step finds what an earlier attempt made.
 */
export function createTenantActivities(deps: { em: EntityManager }) {
  return {
    async provisionWorkspace(input: Pick<TenantProvisioningInput, 'subdomain' | 'name' | 'plan'>): Promise<{ organizationId: string; outcome: StepOutcome }> {
      return deps.em.fork().transactional((tx) => provisionWorkspace(tx, { subdomain: input.subdomain, name: input.name, plan: input.plan, actor: OPERATOR }));
    },
    async provisionPriceBook(input: { organizationId: string; template: TenantProvisioningInput['template']}): Promise<StepOutcome> {
      return inTenant(deps.em, input.organizationId, (tx) => provisionPriceBook(tx, input.organizationId, input.template, OPERATOR));
    },
    async inviteFirstAdmin(input: { organizationId: string; email: string}): Promise<StepOutcome> {
      return inTenant(deps.em, input.organizationId, (tx) => inviteFirstAdmin(tx, { organizationId: input.organizationId, email: input.email, actor: OPERATOR }));
    },
  };
}
