import { describe, expect, it } from '@jest/globals';
import { iso } from '../../domain/timestamps';

// The one rendering of a stored timestamp that REST, GraphQL and the connection store share.
describe('iso', () => {
  it('writes a Date and a timestamp text alike, in UTC', () => {
    const at = new Date(Date.UTC(2026, 10, 26, 9, 30, 0, 123));
    expect(iso(at)).toBe('2026-11-26T09:30:00.123Z');
    expect(iso('2026-11-26 10:30:00.123+01')).toBe('2026-11-26T09:30:00.123Z');
  });

  it('writes an absent timestamp as null', () => {
    expect(iso(null)).toBeNull();
    expect(iso(undefined)).toBeNull();
  });
});
