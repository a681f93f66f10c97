import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword } from '../passwords';
import { selectTenant } from '../tenant-scope';
import { insertRateCardRevision, type RateCardContent } from '../rate-cards/revisions';
import { insertMissingProducts, type ProductContent } from '../catalogue/products';
import { SANDBOX_RATE_CARD } from '../rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../catalogue/sandbox-products';
import { recordAuditEvent } from '../audit/audit-events';
import { DEFAULT_RATE_CARD_SETTINGS, type TenantTemplate } from '../../domain/organizations/templates';
import type { AuditActor } from '../../domain/audit/audit-entry';
import type { Plan } from '../plans/plan-limits';

/**
 * D22: the steps of provisioning a workspace, as the worker runs them (activities/tenants/).
 * Each is idempotent (it finds what a previous attempt made and says so), so a crash half-way is
 * resumed by running the steps again, and a second provisioning changes nothing.
 */

export type StepOutcome = 'created' | 'existed';

/** The template's first price-book revision and products (D2, D14). */
export const TEMPLATE_CONTENT: Record<TenantTemplate, { card: RateCardContent; products: readonly ProductContent[] }> = {
  sandbox: { card: SANDBOX_RATE_CARD, products: SANDBOX_PRODUCTS },
  empty: { card: { settings: DEFAULT_RATE_CARD_SETTINGS, skus: [], labourTiers: [] }, products: [] },
};

/** Makes the workspace (through the one security-definer door) unless its subdomain exists; audited when made. */
export async function provisionWorkspace(tx: EntityManager, input: { subdomain: string; name: string; plan: Plan; actor: AuditActor }): Promise<{ organizationId: string; outcome: StepOutcome }> {
  const [row] = await tx.execute<{ id: string; created: boolean }[]>('select id, created from provision_organization(?, ?, ?)', [input.subdomain, input.name, input.plan]);
  if (!row) throw new Error(`provision_organization answered nothing for ${input.subdomain}`);
  await selectTenant(tx, row.id);
  if (row.created) {
    await recordAuditEvent(tx, row.id, {
      actor: input.actor,
      action: 'organization.created',
      entityType: 'organization',
      entityId: row.id,
      changes: [
        { field: 'subdomain', before: null, after: input.subdomain },
        { field: 'name', before: null, after: input.name },
        { field: 'plan', before: null, after: input.plan },
      ],
      requestId: null,
    });
  }
  return { organizationId: row.id, outcome: row.created ? 'created' : 'existed' };
}

/**
 * The first price-book revision from the template, unless the workspace has one. Runs in the
 * tenant's transaction; one provisioning at a time per workspace (the lock), so two attempts of
 * the step cannot both find none.
 */
export async function provisionPriceBook(tx: EntityManager, organizationId: string, template: TenantTemplate, actor: AuditActor): Promise<StepOutcome> {
  await tx.execute(`select pg_advisory_xact_lock(hashtext('tenant-provisioning'), hashtext(?))`, [organizationId]);
  const [existing] = await tx.execute<{ n: number }[]>('select count(*)::int as n from rate_card_revisions');
  if ((existing?.n ?? 0) > 0) return 'existed';
  const content = TEMPLATE_CONTENT[template];
  const revisionId = await insertRateCardRevision(tx, organizationId, content.card);
  await insertMissingProducts(tx, organizationId, content.products);
  await recordAuditEvent(tx, organizationId, {
    actor,
    action: 'pricebook.published',
    entityType: 'pricebook',
    entityId: revisionId,
    changes: [
      { field: 'template', before: null, after: template },
      { field: 'skus', before: null, after: content.card.skus.length },
      { field: 'labour_tiers', before: null, after: content.card.labourTiers.length },
      { field: 'products', before: null, after: content.products.length },
    ],
    requestId: null,
  });
  return 'created';
}

/**
 * The workspace's first ADMIN, invited (D20) unless the workspace has an ADMIN (or a user with that email). Until the
 * team's invitations are in, the invited user is this one plain row: not active (it cannot sign
 * in) and with a password nobody knows; accepting the invitation sets both.
 */
export async function inviteFirstAdmin(tx: EntityManager, input: { organizationId: string; email: string; actor: AuditActor }): Promise<StepOutcome> {
  // Through the door of its migration (Migration20261127020100FirstAdminDoor): the worker reads no users.
  const [user] = await tx.execute<{ id: string; created: boolean }[]>('select id, created from provision_first_admin(?, ?)', [input.email, await hashPassword(randomBytes(32).toString('base64url'))]);
  if (!user) throw new Error('provision_first_admin answered nothing');
  if (!user.created) return 'existed';
  await recordAuditEvent(tx, input.organizationId, {
    actor: input.actor,
    action: 'user.invited',
    entityType: 'user',
    entityId: user.id,
    changes: [
      { field: 'email', before: null, after: input.email },
      { field: 'role', before: null, after: 'ADMIN' },
    ],
    requestId: null,
  });
  return 'created';
}
