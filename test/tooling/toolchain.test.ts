import { describe, expect, it } from '@jest/globals';
import Decimal from 'decimal.js';

describe('toolchain', () => {
  it('runs on Node 24 as ES modules', () => {
    expect(Number(process.versions.node.split('.')[0])).toBe(24);
    expect(typeof import.meta.url).toBe('string');
    expect(new Decimal('0.1').plus('0.2').toString()).toBe('0.3');
  });
});
