import { describe, expect, it } from '@jest/globals';
import { decimalDollars, dollars } from '../../domain/money';

describe('money from integer cents, never through floats', () => {
  it.each([
    [0, '0.00', 0],
    [5, '0.05', 0.05],
    [1250, '12.50', 12.5],
    [-1250, '-12.50', -12.5],
    ['123456789', '1234567.89', 1234567.89],
    [-7n, '-0.07', -0.07],
  ])('%p cents are %s dollars', (cents, text, number) => {
    expect(decimalDollars(cents)).toBe(text);
    expect(dollars(cents)).toBe(number);
  });
});
