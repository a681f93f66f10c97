import type { EntityManager } from '@mikro-orm/postgresql';
import { subdomainAndCompletionInvoice, subdomainAndQuoteNumber } from '../../db/organizations';
import { inTenant } from '../../db/tenant-scope';

/**
 * The subdomain of a tenant, for the `OrganizationSubdomain` search attribute every workflow of a
 * tenant carries (an operator says "sandbox", not its uuid). A subdomain never changes, so each is
 * read once per process and kept: the webhook dispatch path pays one read per tenant, not one per wake.
 */
export interface TenantSubdomains {
  of(organizationId: string): Promise<string>;
  /** The subdomain and the number of one quote of the tenant, in one read (a change order's event names only the quote's id). */
  withQuoteNumber(organizationId: string, quoteId: string): Promise<{ subdomain: string; quoteNumber: number | null }>;
  /** Issue 30: whether a completed job is to be invoiced, with its quote, and the subdomain, in one read. */
  withCompletionInvoice(organizationId: string, jobId: string): Promise<{ subdomain: string; invoiced: boolean; quoteId: string | null; quoteNumber: number | null }>;
}

/** Read from `organizations` (row-level security: inside the tenant's own transaction). */
export function tenantSubdomainsFrom(em: EntityManager): TenantSubdomains {
  const known = new Map<string, Promise<string>>();
  const remember = (organizationId: string, subdomain: string) => {
    if (!known.has(organizationId)) known.set(organizationId, Promise.resolve(subdomain));
    return subdomain;
  };
  const read = async (organizationId: string, quoteId: string | null) => {
    const row = await inTenant(em, organizationId, (tx) => subdomainAndQuoteNumber(tx, quoteId));
    if (!row) throw new Error(`no organization ${organizationId}`);
    return { subdomain: remember(organizationId, row.subdomain), quoteNumber: row.quote_number };
  };
  return {
    of(organizationId) {
      let subdomain = known.get(organizationId);
      if (!subdomain) {
        subdomain = read(organizationId, null).then((r) => r.subdomain);
        known.set(organizationId, subdomain);
        // A failed read (database down) is not remembered: the next start reads again.
        subdomain.catch(() => known.delete(organizationId));
      }
      return subdomain;
    },
    withQuoteNumber: (organizationId, quoteId) => read(organizationId, quoteId),
    async withCompletionInvoice(organizationId, jobId) {
      const row = await inTenant(em, organizationId, (tx) => subdomainAndCompletionInvoice(tx, jobId));
      if (!row) throw new Error(`no organization ${organizationId}`);
      return { subdomain: remember(organizationId, row.subdomain), invoiced: row.invoiced, quoteId: row.quote_id, quoteNumber: row.quote_number };
    },
  };
}

/** Where the caller already holds the subdomain (the ops command's query joins organizations). */
export function knownSubdomains(subdomains: ReadonlyMap<string, string>): TenantSubdomains {
  const of = async (organizationId: string) => {
    const subdomain = subdomains.get(organizationId);
    if (!subdomain) throw new Error(`subdomain of organization ${organizationId} not known`);
    return subdomain;
  };
  return {
    of,
    withQuoteNumber: async () => {
      throw new Error('knownSubdomains does not read quotes');
    },
    withCompletionInvoice: async () => {
      throw new Error('knownSubdomains does not read jobs');
    },
  };
}
