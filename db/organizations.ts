import type { EntityManager } from '@mikro-orm/postgresql';

/** Every tenant's id, through the security-definer `tenant_ids()` (for jobs that visit each tenant in turn). */
export async function allTenantIds(em: EntityManager): Promise<string[]> {
  const tenants = await em.execute<{ tenant_ids: string }[]>('select tenant_ids()');
  return tenants.map((row) => row.tenant_ids);
}

export interface TechnicalContact {
  /** Null only for a workspace with no ADMIN and no contact set. */
  email: string | null;
  /** True when no contact is set and this is the first ADMIN's email (D13). */
  is_default: boolean;
}

/**
 * The tenant's technical contact (D13), through the security-definer door that both processes
 * may call: the setting, else the first ADMIN's email. Runs inside the tenant's transaction.
 */
export async function technicalContact(em: EntityManager): Promise<TechnicalContact | undefined> {
  const [row] = await em.execute<TechnicalContact[]>('select email, is_default from organization_technical_contact()');
  return row;
}

export interface OrganizationRow {
  id: string;
  name: string;
  subdomain: string;
}

/** The tenant's own row (row-level security shows no other). */
export async function currentOrganization(em: EntityManager): Promise<OrganizationRow | undefined> {
  const [row] = await em.execute<OrganizationRow[]>('select id, name, subdomain from organizations where id = app_current_organization()');
  return row;
}

/** Sets the technical contact; null returns to the default (the first ADMIN's email). */
export async function setTechnicalContact(em: EntityManager, email: string | null): Promise<void> {
  await em.execute('update organizations set technical_contact_email = ? where id = app_current_organization()', [email]);
}

/** The subdomain of the tenant of this transaction, and the number of one of its quotes (null when none). */
export async function subdomainAndQuoteNumber(em: EntityManager, quoteId: string | null): Promise<{ subdomain: string; quote_number: number | null } | undefined> {
  const [row] = await em.execute<{ subdomain: string; quote_number: number | null }[]>(
    `select o.subdomain, (select q.quote_number from quotes q where q.id = ?) as quote_number
       from organizations o where o.id = app_current_organization()`,
    [quoteId],
  );
  return row;
}
