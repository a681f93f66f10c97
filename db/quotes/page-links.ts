import type { EntityManager } from '@mikro-orm/postgresql';
import type { QuoteStatus } from '../../domain/quotes/quote-status';
import type { PricedLine } from '../../domain/quotes/customer-page';
import { quoteValidUntil } from '../../domain/quotes/validity';
import { organizationSettings } from '../organizations';

/**
 * D24: the links of the customer's quote page (`quote_page_tokens`), stored as SHA-256 hashes of
 * the token, and what the page reads of its quote. Every function but `pageLinkTenant` runs in a
 * tenant transaction (db/tenant-scope.ts) under row-level security.
 */

/**
 * The tenant of a link, through the one security-definer door (the page has no login): undefined
 * for a hash no link has. Called outside any tenant transaction.
 */
export async function pageLinkTenant(em: EntityManager, tokenHash: Buffer): Promise<string | undefined> {
  const [row] = await em.fork().execute<{ organization_id: string | null }[]>('select quote_page_token_tenant(?) as organization_id', [tokenHash]);
  return row?.organization_id ?? undefined;
}

/**
 * A new link for a SENT quote: every earlier link of the quote is voided in the same transaction
 * (a re-send replaces the link), and the new one expires with D3's validity (from the quote's
 * creation, by the tenant's validity period).
 */
export async function issuePageLink(tx: EntityManager, input: { quoteId: string; tokenHash: Buffer; sentByUserId: string }): Promise<{ id: string; expiresAt: Date }> {
  await tx.execute('update quote_page_tokens set voided_at = now() where quote_id = ? and voided_at is null', [input.quoteId]);
  const [quote] = await tx.execute<{ created_at: Date }[]>('select created_at from quotes where id = ?', [input.quoteId]);
  // D3's validity, the one rule (domain/quotes/validity.ts) on the tenant's setting.
  const expiresAt = quoteValidUntil(new Date(quote!.created_at), (await organizationSettings(tx)).quote_validity_days);
  const [row] = await tx.execute<{ id: string; expires_at: Date }[]>(
    `insert into quote_page_tokens (organization_id, quote_id, token_hash, sent_by_user_id, expires_at)
     values (app_current_organization(), ?, ?, ?, ?)
     returning id, expires_at`,
    [input.quoteId, input.tokenHash, input.sentByUserId, expiresAt],
  );
  return { id: row!.id, expiresAt: new Date(row!.expires_at) };
}

/** D24: a SENT quote sent again stays SENT; who sent it last is who a customer's acceptance approves as. */
export async function resendQuote(tx: EntityManager, quoteId: string, sentByUserId: string): Promise<boolean> {
  const moved = await tx.execute<{ id: string }[]>(
    `update quotes set sent_at = now(), sent_by_user_id = ?, updated_at = now() where id = ? and status = 'SENT' returning id`,
    [sentByUserId, quoteId],
  );
  return moved.length > 0;
}

/** What the page shows and decides on, read under the link's tenant, the quote row locked when `forUpdate`. */
export interface PageLinkRow {
  link_id: string;
  quote_id: string;
  expires_at: Date;
  voided_at: Date | null;
  status: QuoteStatus;
  quote_number: number;
  created_at: Date;
  tax_region: string | null;
  calculation: { line_items: PricedLine[] };
  sent_by_user_id: string | null;
  created_by_user_id: string | null;
  /** The name the workspace shows (its display name, else its registered name). */
  contractor_name: string;
  customer_name: string | null;
  customer_email: string | null;
  acceptance_name: string | null;
  acceptance_at: Date | null;
  customer_declined_at: Date | null;
  /** D24: the contractor as its quotes show it (workspace settings). */
  business_address: string | null;
  business_phone: string | null;
  /** Null: the default terms (domain/organizations/settings.ts). */
  quote_terms: string | null;
  has_logo: boolean;
  sent_at: Date | null;
  /** By line, the control side a `/v1/` quote recorded; null for a quote priced through `/api/`. */
  control_sides: ('left' | 'right' | null)[] | null;
}

export async function pageLinkByHash(tx: EntityManager, tokenHash: Buffer, options: { lock?: boolean } = {}): Promise<PageLinkRow | undefined> {
  const [row] = await tx.execute<PageLinkRow[]>(
    `select t.id as link_id, t.quote_id, t.expires_at, t.voided_at, q.status, q.quote_number, q.created_at, q.tax_region, q.calculation,
            q.sent_by_user_id, q.created_by_user_id, coalesce(o.display_name, o.name) as contractor_name, c.name as customer_name, c.email as customer_email,
            q.acceptance_name, q.acceptance_at, q.customer_declined_at, o.business_address, o.business_phone, o.quote_terms, q.sent_at,
            exists (select 1 from organization_logos l where l.organization_id = q.organization_id) as has_logo,
            (select jsonb_agg(line->'configuration'->'controlSide' order by n)
               from quote_revisions r, jsonb_array_elements(r.quote->'lines') with ordinality as x(line, n)
              where r.quote_id = q.id and r.revision = q.revision) as control_sides
       from quote_page_tokens t
       join quotes q on q.id = t.quote_id
       join organizations o on o.id = q.organization_id
       left join customers c on c.id = q.customer_id
      where t.token_hash = ?${options.lock ? ' for update of t' : ''}`,
    [tokenHash],
  );
  return row;
}

/** What the customer's acceptance records on the quote (D24), in the approval's own update. */
export interface Acceptance {
  name: string;
  address: string;
  userAgent: string | null;
}

/**
 * The SQL assignments and parameters that record an acceptance within `approveQuote`'s update:
 * accepted at the approval's own instant (the transaction's `now()`, as `approved_at`).
 */
export function acceptanceAssignments(acceptance: Acceptance): { sql: string; params: unknown[] } {
  return {
    sql: ', acceptance_name = ?, acceptance_at = now(), acceptance_address = ?, acceptance_user_agent = ?',
    params: [acceptance.name, acceptance.address, acceptance.userAgent],
  };
}

/** D24: a customer's decline, in D3's reject update, at its instant (`rejected_at`'s `now()`). */
export function declineAssignments(reason: string | null): { sql: string; params: unknown[] } {
  return { sql: ', customer_declined_at = now(), customer_decline_reason = ?', params: [reason] };
}

/** Who hears of a customer's decision (D24): the quote's creator when active, else the tenant's active ADMINs. */
export async function officeRecipients(tx: EntityManager, quoteId: string): Promise<string[]> {
  const rows = await tx.execute<{ email: string }[]>(
    `select u.email from quotes q join users u on u.id = q.created_by_user_id and u.active where q.id = ?
     union all
     select u.email from users u where u.role = 'ADMIN' and u.active
        and not exists (select 1 from quotes q join users c on c.id = q.created_by_user_id and c.active where q.id = ?)
     order by 1`,
    [quoteId, quoteId],
  );
  return rows.map((r) => r.email);
}

/** What sending a quote reads (under a row lock, so two sends of one quote take turns). */
export interface QuoteForSending {
  status: QuoteStatus;
  quote_number: number;
  tax_region: string | null;
  calculation: { line_items: PricedLine[] };
  contractor_name: string;
  customer_name: string | null;
  customer_email: string | null;
}

export async function quoteForSending(tx: EntityManager, quoteId: string): Promise<QuoteForSending | undefined> {
  const [row] = await tx.execute<QuoteForSending[]>(
    `select q.status, q.quote_number, q.tax_region, q.calculation, o.name as contractor_name, c.name as customer_name, c.email as customer_email
       from quotes q join organizations o on o.id = q.organization_id left join customers c on c.id = q.customer_id
      where q.id = ? for update of q`,
    [quoteId],
  );
  return row;
}

/** What the customer's invoice email needs (D24), read by the worker after the payments leg. */
export interface CustomerInvoiceFacts {
  quote_number: number;
  acceptance_at: Date | null;
  contractor_name: string;
  customer_name: string | null;
  customer_email: string | null;
}

export async function customerInvoiceFacts(tx: EntityManager, quoteId: string): Promise<CustomerInvoiceFacts | undefined> {
  const [row] = await tx.execute<CustomerInvoiceFacts[]>(
    `select q.quote_number, q.acceptance_at, o.name as contractor_name, c.name as customer_name, c.email as customer_email
       from quotes q join organizations o on o.id = q.organization_id left join customers c on c.id = q.customer_id
      where q.id = ?`,
    [quoteId],
  );
  return row;
}
