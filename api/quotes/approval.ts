import type { EntityManager } from '@mikro-orm/postgresql';
import { approvedQuoteForEvent, approveQuote, type TransitionResult } from '../../db/quotes/quotes';
import { recordEvent } from '../../db/events/outbox';
import type { EventEnvelope } from '../../domain/events/catalogue';
import type { ApprovedQuote } from './schemas';

export type ApprovalOutcome = { moved: true; approved: ApprovedQuote; event: EventEnvelope } | Extract<TransitionResult, { moved: false }>;

/**
 * Section 3.1 and D3, the one approval: DRAFT or SENT to APPROVED, `approved_at` set, the
 * calculation frozen and `quote.approved` recorded, in the caller's tenant transaction `tx`.
 * `POST /quotes/{id}/approve` runs it as the caller; D24's page runs it as the user who sent the
 * quote, with the customer's acceptance recorded in the same update (`also`). The update names the
 * states it moves from, so of two concurrent approvals exactly one moves; the other changes nothing
 * and records nothing. The caller dispatches `event` after the commit.
 */
export async function approveInTenant(
  tx: EntityManager,
  input: { organizationId: string; quoteId: string; userId: string; also?: { sql: string; params: unknown[] } },
): Promise<ApprovalOutcome> {
  const result = await approveQuote(tx, input.quoteId, input.userId, input.also);
  if (!result.moved) return result;
  const row = await approvedQuoteForEvent(tx, input.quoteId);
  // Approved by this transaction, under its lock: the event's data says so by type too.
  if (row?.status !== 'APPROVED') throw new Error(`quote ${input.quoteId} is not APPROVED after its approval`);
  const approvedAt = new Date(row.approved_at);
  // Section 6.2's data fields, exactly.
  const event: EventEnvelope = await recordEvent(
    tx,
    input.organizationId,
    'quote.approved',
    {
      quote_id: input.quoteId,
      quote_number: row.quote_number,
      status: row.status,
      total_amount_cents: Number(row.total_amount_cents),
      total_cost_cents: Number(row.total_cost_cents),
      margin_percent: row.margin_percent,
      customer_name: row.customer_name,
      customer_email: row.customer_email,
      approved_at: approvedAt.toISOString(),
      approved_by_user_id: input.userId,
    },
    approvedAt,
  );
  return { moved: true, approved: { id: input.quoteId, quote_number: row.quote_number, status: row.status, approved_at: approvedAt.toISOString() }, event };
}
