/**
 * D14: Canadian sales tax by province and territory, as data. Each region charges either the
 * federal GST alone, the harmonized HST (federal and provincial parts in one tax), or the GST
 * with a provincial tax (PST, Manitoba's RST, Quebec's QST), each applied to the pre-tax
 * subtotal. Source and effective date: docs/canadian-sales-tax.md (change the two together).
 * The table is data only: `quoteTax` (domain/tax/quote-tax.ts) is the one function that applies it.
 */
export type TaxCode = 'GST' | 'HST' | 'PST' | 'QST';

export interface TaxComponent {
  code: TaxCode;
  /** An exact fraction, as a decimal string ("0.09975"). */
  rate: string;
}

export const CANADIAN_SALES_TAX: Readonly<Record<string, readonly TaxComponent[]>> = {
  'CA-AB': [{ code: 'GST', rate: '0.05' }],
  'CA-BC': [{ code: 'GST', rate: '0.05' }, { code: 'PST', rate: '0.07' }],
  'CA-MB': [{ code: 'GST', rate: '0.05' }, { code: 'PST', rate: '0.07' }],
  'CA-NB': [{ code: 'HST', rate: '0.15' }],
  'CA-NL': [{ code: 'HST', rate: '0.15' }],
  'CA-NS': [{ code: 'HST', rate: '0.14' }],
  'CA-NT': [{ code: 'GST', rate: '0.05' }],
  'CA-NU': [{ code: 'GST', rate: '0.05' }],
  'CA-ON': [{ code: 'HST', rate: '0.13' }],
  'CA-PE': [{ code: 'HST', rate: '0.15' }],
  'CA-QC': [{ code: 'GST', rate: '0.05' }, { code: 'QST', rate: '0.09975' }],
  'CA-SK': [{ code: 'GST', rate: '0.05' }, { code: 'PST', rate: '0.06' }],
  'CA-YT': [{ code: 'GST', rate: '0.05' }],
};

export const TAX_REGIONS = Object.keys(CANADIAN_SALES_TAX);
