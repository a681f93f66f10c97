import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { frozenQuoteRow } from '../../db/quotes/quotes';
import type { QuoteTax } from '../../domain/tax/quote-tax';
import { customerFigures } from '../../domain/quotes/customer-page';

export interface FrozenQuote {
  quoteId: string;
  quoteNumber: number;
  status: string;
  customer: { id: string; name: string; email: string | null; paymentsCustomerId: string | null } | null;
  /** One entry per quote line, the integer price frozen at approval (D3). */
  lines: { description: string; amountCents: number }[];
  subtotalCents: number;
  /** D25: the tax of the quote's region on the subtotal, one line per tax. */
  tax: QuoteTax;
  approvedAt: string;
}

/** D3: invoices use the calculation frozen at approval, never a recalculation. */
export async function loadFrozenQuote(em: EntityManager, organizationId: string, quoteId: string): Promise<FrozenQuote | undefined> {
  return inTenant(em, organizationId, (tx) => frozenQuoteIn(tx, quoteId));
}

/** The same, inside a tenant transaction the caller holds (a leg reads it and counts its attempt in one). */
export async function frozenQuoteIn(tx: EntityManager, quoteId: string): Promise<FrozenQuote | undefined> {
  const row = await frozenQuoteRow(tx, quoteId);
  if (!row || !row.frozen_calculation || !row.approved_at) return undefined;
  // D24: the lines and tax the customer saw on the quote's page, from the calculation frozen at approval.
  const { lines, subtotalCents, tax } = customerFigures(row.frozen_calculation.line_items, row.tax_region);
  return {
    quoteId: row.id,
    quoteNumber: row.quote_number,
    status: row.status,
    customer: row.customer_id ? { id: row.customer_id, name: row.name!, email: row.email, paymentsCustomerId: row.payments_customer_id } : null,
    // The invoice's lines are what they always were: the description and the amount.
    lines: lines.map(({ description, amountCents }) => ({ description, amountCents })),
    subtotalCents,
    tax,
    approvedAt: new Date(row.approved_at).toISOString(),
  };
}
