import type { QuoteTax } from '../../domain/tax/quote-tax';

/**
 * The QuickBooks sales tax code that charges a quote's tax lines (D25), by the names a Canadian
 * company's codes carry once its tax agencies are set up: `GST` for the federal tax alone,
 * `HST <province>` for a harmonized rate, `GST/<provincial tax> <province>` for the group of the
 * two (`GST/QST QC`). Looked up by name in each company; QuickBooks then charges each rate of the
 * code on the line's amount, as `quoteTax` does, so the invoice's tax equals the quote's.
 */
export function taxCodeName(tax: QuoteTax): string {
  const province = tax.region.replace(/^CA-/, '');
  const [first, second] = tax.lines;
  if (!first) return 'Exempt';
  if (second) return `${first.code}/${second.code} ${province}`;
  return first.code === 'HST' ? `HST ${province}` : first.code;
}
