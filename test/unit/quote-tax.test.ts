import { describe, expect, it } from '@jest/globals';
import { quoteTax, taxLineLabel } from '../../domain/tax/quote-tax';
import { taxCodeName } from '../../activities/accounting/tax-code-name';

// D25: one tax for a quote, wherever it is shown or charged; D14's table by region.
describe('quoteTax (D25)', () => {
  it('a quote without a region is in Ontario: the thirteen-percent line of section 4.3, half-up to the cent', () => {
    for (const subtotal of [0, 1, 3, 4, 50, 99, 100, 754_10, 261_099, 1_000_003, 987_654_321]) {
      const tax = quoteTax(null, subtotal);
      // Section 4.3 in integer arithmetic, independently of the table.
      const thirteenPercent = Math.floor((subtotal * 13 + 50) / 100);
      expect(tax).toEqual({ region: 'CA-ON', lines: [{ code: 'HST', rate: '0.13', amount_cents: thirteenPercent }], total_cents: thirteenPercent });
      expect(quoteTax(undefined, subtotal)).toEqual(tax);
      expect(quoteTax('CA-ON', subtotal)).toEqual(tax);
    }
  });

  it('Alberta is the federal GST alone, 5 %', () => {
    expect(quoteTax('CA-AB', 261_099)).toEqual({ region: 'CA-AB', lines: [{ code: 'GST', rate: '0.05', amount_cents: 13_055 }], total_cents: 13_055 });
    // 0.5 cent and 1.5 cents round up.
    expect(quoteTax('CA-AB', 10).total_cents).toBe(1);
    expect(quoteTax('CA-AB', 30).total_cents).toBe(2);
  });

  it('Quebec is two lines, GST and QST, each on the subtotal and rounded on its own', () => {
    // 261099 × 0.05 = 13054.95 → 13055; 261099 × 0.09975 = 26044.62525 → 26045 (QST is not charged on GST).
    expect(quoteTax('CA-QC', 261_099)).toEqual({
      region: 'CA-QC',
      lines: [
        { code: 'GST', rate: '0.05', amount_cents: 13_055 },
        { code: 'QST', rate: '0.09975', amount_cents: 26_045 },
      ],
      total_cents: 39_100,
    });
    // Rounded on their own: 0.5 + 0.9975 cents is two cents, not 1.4975 → one.
    expect(quoteTax('CA-QC', 10).lines.map((line) => line.amount_cents)).toEqual([1, 1]);
  });

  it('refuses what is not a quote of the table: an unknown region, a negative or fractional subtotal', () => {
    expect(() => quoteTax('US-NY', 100)).toThrow(/US-NY/);
    expect(() => quoteTax('toString', 100)).toThrow(/toString/);
    expect(() => quoteTax('CA-ON', -1)).toThrow(/non-negative/);
    expect(() => quoteTax('CA-ON', 1.5)).toThrow(/integer/);
  });

  it('labels each line with its code and its exact rate', () => {
    expect(quoteTax('CA-QC', 100).lines.map(taxLineLabel)).toEqual(['GST (5%)', 'QST (9.975%)']);
    expect(quoteTax(null, 100).lines.map(taxLineLabel)).toEqual(['HST (13%)']);
  });
});

describe('the accounting leg\'s tax code of a quote\'s tax', () => {
  it('names the QuickBooks code that charges the same lines', () => {
    expect(['CA-ON', 'CA-NS', 'CA-AB', 'CA-YT', 'CA-QC', 'CA-BC', 'CA-MB', 'CA-SK'].map((region) => taxCodeName(quoteTax(region, 100)))).toEqual([
      'HST ON', 'HST NS', 'GST', 'GST', 'GST/QST QC', 'GST/PST BC', 'GST/PST MB', 'GST/PST SK',
    ]);
  });
});
