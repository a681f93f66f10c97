import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { currentOrganization, organizationSettings, setTechnicalContact, technicalContact, updateOrganizationSettings } from '../../db/organizations';
import { recordAuditEvent } from '../../db/audit/audit-events';
import { fieldChanges, type AuditActor } from '../../domain/audit/audit-entry';
import { auditableSettings } from '../../domain/organizations/settings';
import { notFound } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import type { Organization, UpdateOrganizationBody } from './schemas';

/** D13, D22: the caller's workspace, its technical contact and its settings. */
export class OrganizationService {
  constructor(private readonly em: EntityManager) {}

  get(caller: Caller): Promise<Organization> {
    return inTenant(this.em, caller.organizationId, (tx) => this.read(tx));
  }

  /** Changes what the body names and records the field-level change (D22) in the same transaction. */
  update(caller: Caller, body: UpdateOrganizationBody, audit: { actor: AuditActor; requestId: string }): Promise<Organization> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const before = await auditView(tx);
      const { technical_contact_email: contact, ...settings } = body;
      if (contact !== undefined) await setTechnicalContact(tx, contact);
      await updateOrganizationSettings(tx, settings);
      const changes = fieldChanges(before, await auditView(tx));
      if (changes.length > 0) {
        await recordAuditEvent(tx, caller.organizationId, { actor: audit.actor, action: 'organization.updated', entityType: 'organization', entityId: caller.organizationId, changes, requestId: audit.requestId });
      }
      return this.read(tx);
    });
  }

  private async read(tx: EntityManager): Promise<Organization> {
    const organization = await currentOrganization(tx);
    const contact = await technicalContact(tx);
    if (!organization || !contact) throw notFound('Workspace not found.');
    const settings = await organizationSettings(tx);
    return { ...organization, technical_contact_email: contact.email, technical_contact_is_default: contact.is_default, ...settings };
  }
}

/**
 * What an ADMIN changes, flat, as the audit log records it (D22). An entry's `before` is what
 * the API showed before the change: the contact's email as `GET /api/v1/organization` answers it
 * (the first ADMIN's while none is set), and whether that was the default, so that setting the
 * default's own address, or clearing back to it, is recorded too.
 */
async function auditView(tx: EntityManager): Promise<Record<string, unknown>> {
  const contact = await technicalContact(tx);
  return {
    technical_contact_email: contact?.email ?? null,
    technical_contact_is_default: contact?.is_default ?? true,
    ...auditableSettings(await organizationSettings(tx)),
  };
}
