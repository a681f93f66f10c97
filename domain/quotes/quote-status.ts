export const QUOTE_STATUSES = ['DRAFT', 'SENT', 'APPROVED', 'REJECTED', 'EXPIRED'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

/**
 * Sections 3.1 and D3 as a table: which action moves a quote from which states to which. The
 * service reads nothing else to decide; test/unit/quote-status.test.ts walks every pair.
 */
export const QUOTE_TRANSITIONS = {
  send: { from: ['DRAFT'], to: 'SENT', stamp: 'sent_at' },
  reject: { from: ['DRAFT', 'SENT'], to: 'REJECTED', stamp: 'rejected_at' },
  approve: { from: ['DRAFT', 'SENT'], to: 'APPROVED', stamp: 'approved_at' },
  expire: { from: ['DRAFT', 'SENT'], to: 'EXPIRED', stamp: 'expired_at' },
} as const satisfies Record<string, { from: readonly QuoteStatus[]; to: QuoteStatus; stamp: string }>;

export type QuoteAction = keyof typeof QUOTE_TRANSITIONS;

export function canTransition(action: QuoteAction, from: QuoteStatus): boolean {
  return (QUOTE_TRANSITIONS[action].from as readonly QuoteStatus[]).includes(from);
}
