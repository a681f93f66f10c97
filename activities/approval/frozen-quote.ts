import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { frozenQuoteRow } from '../../db/quotes/quotes';
import { quoteTax, type QuoteTax } from '../../domain/tax/quote-tax';

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
  const lines = row.frozen_calculation.line_items.map((line, index) => ({
    description: `${line.reference ?? `Line ${index + 1}`}: ${line.quantity} × ${line.width_inches}" × ${line.drop_inches}" roller shade`,
    amountCents: line.price_cents,
  }));
  const subtotalCents = lines.reduce((sum, line) => sum + line.amountCents, 0);
  return {
    quoteId: row.id,
    quoteNumber: row.quote_number,
    status: row.status,
    customer: row.customer_id ? { id: row.customer_id, name: row.name!, email: row.email, paymentsCustomerId: row.payments_customer_id } : null,
    lines,
    subtotalCents,
    tax: quoteTax(row.tax_region, subtotalCents),
    approvedAt: new Date(row.approved_at).toISOString(),
  };
}
