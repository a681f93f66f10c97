import { describe, expect, it } from '@jest/globals';
import { QUOTE_TRANSITIONS, canTransition, type QuoteAction } from '../../domain/quotes/quote-status';
import { QUOTE_STATUSES } from '../../domain/quotes/quote-status';

// Sections 3.1 and D3, written out by hand as the expected matrix: action -> states it moves from.
const EXPECTED: Record<QuoteAction, Record<(typeof QUOTE_STATUSES)[number], string | null>> = {
  send: { DRAFT: 'SENT', SENT: null, APPROVED: null, REJECTED: null, EXPIRED: null },
  reject: { DRAFT: 'REJECTED', SENT: 'REJECTED', APPROVED: null, REJECTED: null, EXPIRED: null },
  approve: { DRAFT: 'APPROVED', SENT: 'APPROVED', APPROVED: null, REJECTED: null, EXPIRED: null },
  expire: { DRAFT: 'EXPIRED', SENT: 'EXPIRED', APPROVED: null, REJECTED: null, EXPIRED: null },
};

describe('quote status table (3.1, D3)', () => {
  const pairs = (Object.keys(QUOTE_TRANSITIONS) as QuoteAction[]).flatMap((action) => QUOTE_STATUSES.map((from) => [action, from] as const));
  it.each(pairs)('%s from %s', (action, from) => {
    const expected = EXPECTED[action][from];
    expect(canTransition(action, from)).toBe(expected !== null);
    if (expected) expect(QUOTE_TRANSITIONS[action].to).toBe(expected);
  });
});
