/**
 * The tax of a quote: an explicit thirteen-percent line computed by us (section 4.3 rule 3),
 * never the payments provider's tax calculation. Half-up to the cent on the subtotal, in integer
 * arithmetic (docs/pricing.md).
 */
export const SALES_TAX_PERCENT = 13;
export const SALES_TAX_LABEL = 'Tax (13%)';

export function salesTaxCents(subtotalCents: number): number {
  if (!Number.isSafeInteger(subtotalCents) || subtotalCents < 0) throw new Error(`subtotal must be a non-negative integer of cents, got ${subtotalCents}`);
  return Math.floor((subtotalCents * SALES_TAX_PERCENT + 50) / 100);
}
