import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { currentOrganization, setTechnicalContact, technicalContact } from '../../db/organizations';
import { notFound } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import type { Organization, UpdateOrganizationBody } from './schemas';

/** D13: the caller's workspace and its technical contact. */
export class OrganizationService {
  constructor(private readonly em: EntityManager) {}

  get(caller: Caller): Promise<Organization> {
    return inTenant(this.em, caller.organizationId, (tx) => this.read(tx));
  }

  update(caller: Caller, body: UpdateOrganizationBody): Promise<Organization> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      await setTechnicalContact(tx, body.technical_contact_email);
      return this.read(tx);
    });
  }

  private async read(tx: EntityManager): Promise<Organization> {
    const organization = await currentOrganization(tx);
    const contact = await technicalContact(tx);
    if (!organization || !contact) throw notFound('Workspace not found.');
    return { ...organization, technical_contact_email: contact.email, technical_contact_is_default: contact.is_default };
  }
}
