import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { createHash } from 'node:crypto';
import {
  currentOrganization,
  deleteOrganizationLogo,
  organizationLogoFacts,
  organizationSettings,
  putOrganizationLogo,
  setTechnicalContact,
  technicalContact,
  updateOrganizationSettings,
} from '../../db/organizations';
import { recordAuditEvent } from '../../db/audit/audit-events';
import { fieldChanges, type AuditActor } from '../../domain/audit/audit-entry';
import { auditableSettings } from '../../domain/organizations/settings';
import { DomainError, notFound, validationFailed } from '../../domain/errors/errors';
import { LOGO_MAX_PIXELS, LOGO_TYPES, logoComplaint, logoDimensions, type LogoType } from '../../domain/organizations/logo';
import { checkEmbeddable } from '../quote-page/pdf';
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

  /**
   * D24: the workspace's logo, shown on its quotes' page and PDF. PNG or JPEG as its Content-Type
   * says and its bytes confirm, at most 256 KB (the body reader's 413) and LOGO_MAX_PIXELS a side,
   * embedded in a test document before it is kept. Audited (D22) by its type, size and SHA-256.
   */
  async putLogo(caller: Caller, contentType: string | undefined, body: unknown, audit: { actor: AuditActor; requestId: string }): Promise<Organization> {
    const declared = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!Buffer.isBuffer(body) || !(LOGO_TYPES as readonly string[]).includes(declared)) {
      throw new DomainError('unsupported_encoding', 'Send the logo as the request body with Content-Type: image/png or image/jpeg.');
    }
    const complaint = logoComplaint(declared, body);
    if (complaint) throw validationFailed({ logo: complaint });
    const size = logoDimensions(body);
    if (!size || size.width === 0 || size.height === 0) throw validationFailed({ logo: 'The image’s header cannot be read.' });
    if (size.width > LOGO_MAX_PIXELS || size.height > LOGO_MAX_PIXELS) throw validationFailed({ logo: `The image is larger than ${LOGO_MAX_PIXELS} pixels on a side.` });
    try {
      await checkEmbeddable(body, LOGO_MAX_PIXELS);
    } catch {
      throw validationFailed({ logo: 'The image cannot be read (a damaged or unsupported PNG or JPEG).' });
    }
    const sha256 = createHash('sha256').update(body).digest('hex');
    return this.changeLogo(caller, audit, (tx) => putOrganizationLogo(tx, { contentType: declared as LogoType, bytes: body, sha256, ...size }));
  }

  /** Removes the logo (quotes then show none); idempotent, audited when there was one. */
  deleteLogo(caller: Caller, audit: { actor: AuditActor; requestId: string }): Promise<Organization> {
    return this.changeLogo(caller, audit, (tx) => deleteOrganizationLogo(tx));
  }

  private changeLogo(caller: Caller, audit: { actor: AuditActor; requestId: string }, change: (tx: EntityManager) => Promise<void>): Promise<Organization> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const before = await logoAuditView(tx);
      await change(tx);
      const changes = fieldChanges(before, await logoAuditView(tx));
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
    const logo = await organizationLogoFacts(tx);
    return {
      ...organization,
      technical_contact_email: contact.email,
      technical_contact_is_default: contact.is_default,
      ...settings,
      logo: logo ? { content_type: logo.content_type, size_bytes: logo.size_bytes, width: logo.width, height: logo.height, sha256: logo.sha256, updated_at: new Date(logo.updated_at).toISOString() } : null,
    };
  }
}

/** The logo as the audit log records it: what it is, never its bytes. */
async function logoAuditView(tx: EntityManager): Promise<Record<string, unknown>> {
  const logo = await organizationLogoFacts(tx);
  return { 'logo.content_type': logo?.content_type ?? null, 'logo.size_bytes': logo?.size_bytes ?? null, 'logo.sha256': logo?.sha256 ?? null };
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
