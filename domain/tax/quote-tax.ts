import Decimal from 'decimal.js';
import { CANADIAN_SALES_TAX, type TaxCode } from './canadian-sales-tax';

/**
 * D25: the one tax of a quote, wherever it is shown or charged (the quote's answer, its invoice,
 * its checkout page, its change orders and credit notes, the accounting leg and every event). A
 * quote is taxed by its region's lines of D14's table; a quote without a region (one made by
 * `POST /api/v1/quotes/calculate`) is in Ontario, whose single 13 % HST line is document 000
 * section 4.3's thirteen-percent line.
 */
export const DEFAULT_TAX_REGION = 'CA-ON';

export interface TaxLine {
  code: TaxCode;
  /** An exact fraction, as a decimal string ("0.09975"). */
  rate: string;
  amount_cents: number;
}

export interface QuoteTax {
  /** The region the lines are of (the default when the quote named none). */
  region: string;
  /** One line per tax (GST, HST, PST or QST), in the table's order. */
  lines: TaxLine[];
  total_cents: number;
}

const isTaxRegion = (region: string): boolean => Object.hasOwn(CANADIAN_SALES_TAX, region);

/**
 * The tax of a pre-tax subtotal in `region` (null or undefined: the default region): each tax
 * applied to the subtotal and rounded half-up to the cent on its own, as a receipt shows them
 * (docs/canadian-sales-tax.md). A region outside the table is a programming error: regions are
 * validated where they enter (D14's `taxRegion`), so it throws.
 */
export function quoteTax(region: string | null | undefined, subtotalCents: number): QuoteTax {
  if (!Number.isSafeInteger(subtotalCents) || subtotalCents < 0) throw new Error(`subtotal must be a non-negative integer of cents, got ${subtotalCents}`);
  const taxRegion = region ?? DEFAULT_TAX_REGION;
  if (!isTaxRegion(taxRegion)) throw new Error(`no sales tax is known for region ${taxRegion}`);
  const lines = CANADIAN_SALES_TAX[taxRegion]!.map(({ code, rate }) => ({
    code,
    rate,
    amount_cents: new Decimal(subtotalCents).times(rate).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber(),
  }));
  return { region: taxRegion, lines, total_cents: lines.reduce((sum, line) => sum + line.amount_cents, 0) };
}

/** A tax line's label on an invoice, a checkout page or a credit note: its code and its rate ("QST (9.975%)"). */
export const taxLineLabel = (line: { code: TaxCode; rate: string }): string => `${line.code} (${new Decimal(line.rate).times(100).toString()}%)`;

