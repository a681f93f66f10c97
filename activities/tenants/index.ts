import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { inviteFirstAdmin, provisionPriceBook, provisionWorkspace, type StepOutcome } from '../../db/tenants/provisioning';
import type { AuditActor } from '../../domain/audit/audit-entry';
import type { TenantProvisioningInput } from '../../infra/temporal/contracts';
import type { Mailer } from '../../infra/email/mailer';
import { mailInvitation, newLinkToken } from '../../infra/team/links';
import { issueFirstAdminInvitation } from '../../db/team/user-tokens';
import { tokenExpiry } from '../../domain/team/team-rules';

/** The audit log's actor of every provisioning step: the operator at the command line (D22). */
const OPERATOR: AuditActor = { type: 'operator', id: null, email: null };

/**
 * D22: the steps of `tenantProvisioning`, each in its own transaction and idempotent, so a retried
 * or resumed step finds what an earlier attempt made.
 */
export interface TenantActivityDependencies {
  em: EntityManager;
  /** D20: the first ADMIN's invitation goes through SMTP_URL, its link on PUBLIC_BASE_URL; without a mailer none is sent. */
  invitations?: { mailer: Mailer | undefined; publicBaseUrl: string } | undefined;
}

export function createTenantActivities(deps: TenantActivityDependencies) {
  return {
    async provisionWorkspace(input: Pick<TenantProvisioningInput, 'subdomain' | 'name' | 'plan'>): Promise<{ organizationId: string; outcome: StepOutcome }> {
      return deps.em.fork().transactional((tx) => provisionWorkspace(tx, { subdomain: input.subdomain, name: input.name, plan: input.plan, actor: OPERATOR }));
    },
    async provisionPriceBook(input: { organizationId: string; template: TenantProvisioningInput['template']}): Promise<StepOutcome> {
      return inTenant(deps.em, input.organizationId, (tx) => provisionPriceBook(tx, input.organizationId, input.template, OPERATOR));
    },
    /**
     * The first ADMIN, invited as D20 invites: a single-use link valid 72 hours, mailed before the
     * transaction commits, so a failed mail rolls the step back and Temporal's retry makes it
     * again (a mail sent by an attempt whose commit then failed names a token never stored).
     */
    async inviteFirstAdmin(input: { organizationId: string; email: string}): Promise<StepOutcome> {
      return inTenant(deps.em, input.organizationId, async (tx) => {
        const outcome = await inviteFirstAdmin(tx, { organizationId: input.organizationId, email: input.email, actor: OPERATOR });
        const mailer = deps.invitations?.mailer;
        if (outcome !== 'created' || !mailer) return outcome;
        const link = newLinkToken(input.organizationId);
        const expiresAt = tokenExpiry('invitation', new Date());
        const invited = await issueFirstAdminInvitation(tx, { email: input.email, tokenHash: link.hash, expiresAt });
        if (invited) {
          await mailInvitation(mailer, { to: invited.email, fullName: invited.full_name, workspaceName: invited.workspace_name, publicBaseUrl: deps.invitations!.publicBaseUrl, token: link.token, expiresAt });
        }
        return outcome;
      });
    },
  };
}
