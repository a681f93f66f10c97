import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { badRequest, conflict, notFound, validationFailed } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import type { PricedQuote } from '../../domain/pricing/reference-engine';
import { priceQuote } from '../../domain/pricing/engine';
import type { ApprovedQuote, CalculateBody, QuoteDetail, QuoteListQuery, QuoteStatus, QuoteSummary } from './schemas';
import type { EventEnvelope } from '../../domain/events/catalogue';
import type { CurrentRateCard, RateCardRepository } from '../../db/rate-cards/repository';
import { QUOTE_TRANSITIONS, type QuoteAction } from '../../domain/quotes/quote-status';
import { approvedQuoteForEvent, approveQuote, insertQuote, listQuotes, quoteDetail, quoteSummary, transitionQuote, UnknownCursorError } from '../../db/quotes/quotes';
import { recordEvent } from '../../db/events/outbox';
import { recordQuoteCreated } from '../../db/events/quote-events';
import type { EventDispatcher } from '../../infra/events/dispatcher';

export type CalculationResult = PricedQuote & { quote_id: string | null; quote_number: number | null; status: QuoteStatus | null; persisted: boolean };

function withRateCard(card: CurrentRateCard | undefined): CurrentRateCard {
  if (!card) throw badRequest('This workspace has no rate card yet.');
  return card;
}

/** Quotes: pricing from the tenant's rate card (section 4.3), listing, and D3's send/reject. */
export class QuoteService {
  constructor(
    private readonly em: EntityManager,
    private readonly rateCards: RateCardRepository,
    private readonly events?: EventDispatcher,
  ) {}

  async calculate(caller: Caller, body: CalculateBody): Promise<CalculationResult> {
    // Pricing alone needs no transaction, only the current revision (one statement).
    if (!body.persist) {
      const card = withRateCard(await this.rateCards.currentOf(this.em, caller.organizationId));
      return { ...this.price(caller, body, card), quote_id: null, quote_number: null, status: null, persisted: false };
    }
    let created: EventEnvelope | undefined;
    const result = await inTenant(this.em, caller.organizationId, async (tx): Promise<CalculationResult> => {
      const card = withRateCard(await this.rateCards.current(tx));
      const priced = this.price(caller, body, card);
      const saved = await insertQuote(tx, { body, priced, revisionId: card.revisionId, createdByUserId: caller.userId });
      // D13: `quote.created`, committed with the quote (it reaches field and events endpoints only).
      created = await recordQuoteCreated(tx, caller.organizationId, { quoteId: saved.id });
      return { ...priced, quote_id: saved.id, quote_number: saved.quoteNumber, status: saved.status, persisted: true };
    });
    if (created) await this.events?.tryDispatch(created);
    return result;
  }

  /** A refusal is a PricingError, answered as its kind (rules 3 and 6: 400, or 403 for an override). */
  private price(caller: Caller, body: CalculateBody, card: CurrentRateCard): PricedQuote {
    // Rule 3: only an ADMIN may price below the floor, and only with a reason.
    return priceQuote({ request: body, rateCard: card.snapshot, overrideAuthorised: caller.role === 'ADMIN' });
  }

  list(caller: Caller, query: QuoteListQuery): Promise<{ data: QuoteSummary[]; next_cursor: string | null }> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      try {
        return await listQuotes(tx, query);
      } catch (error) {
        if (error instanceof UnknownCursorError) throw validationFailed({ cursor: 'Unknown cursor: pass a next_cursor from a previous page' });
        throw error;
      }
    });
  }

  /** One quote of the tenant with its lines and calculation (404 when it is not the tenant's). */
  get(caller: Caller, id: string): Promise<QuoteDetail> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const detail = await quoteDetail(tx, id);
      if (!detail) throw notFound('No such quote in this workspace.');
      // The stored calculation is the engine's result as priced (PricedQuote), plus its quote fields.
      return { ...detail, calculation: detail.calculation as QuoteDetail['calculation'] };
    });
  }

  /**
   * Section 3.1: DRAFT or SENT to APPROVED, `approved_at` set, the calculation frozen (D3) and the
   * `quote.approved` event recorded, in one transaction. After the commit the approval workflow
   * is started at once (the outbox relay starts it otherwise). A second approve is a 409 that
   * changes nothing and emits nothing.
   */
  async approve(caller: Caller, id: string): Promise<ApprovedQuote> {
    const { approved, event } = await inTenant(this.em, caller.organizationId, async (tx) => {
      const result = await approveQuote(tx, id, caller.userId);
      if (!result.moved) {
        if (!result.status) throw notFound('No such quote in this workspace.');
        throw conflict(result.status === 'APPROVED' ? 'The quote is already approved.' : `A ${result.status} quote cannot be approved; only DRAFT or SENT can.`);
      }
      const row = await approvedQuoteForEvent(tx, id);
      // Approved by this transaction, under its lock: the event's data says so by type too.
      if (row?.status !== 'APPROVED') throw new Error(`quote ${id} is not APPROVED after its approval`);
      const approvedAt = new Date(row.approved_at);
      // Section 6.2's data fields, exactly.
      const event: EventEnvelope = await recordEvent(
        tx,
        caller.organizationId,
        'quote.approved',
        {
          quote_id: id,
          quote_number: row.quote_number,
          status: row.status,
          total_amount_cents: Number(row.total_amount_cents),
          total_cost_cents: Number(row.total_cost_cents),
          margin_percent: row.margin_percent,
          customer_name: row.customer_name,
          customer_email: row.customer_email,
          approved_at: approvedAt.toISOString(),
          approved_by_user_id: caller.userId,
        },
        approvedAt,
      );
      return { approved: { id, quote_number: row.quote_number, status: row.status, approved_at: approvedAt.toISOString() }, event };
    });
    await this.events?.tryDispatch(event);
    return approved;
  }

  /** D3: send (DRAFT to SENT) and reject (DRAFT or SENT to REJECTED); any other state is 409. */
  transition(caller: Caller, id: string, action: Extract<QuoteAction, 'send' | 'reject'>): Promise<QuoteSummary> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const result = await transitionQuote(tx, id, action);
      if (!result.moved) {
        if (!result.status) throw notFound('No such quote in this workspace.');
        const rule = QUOTE_TRANSITIONS[action];
        throw conflict(`A ${result.status} quote cannot be moved to ${rule.to}; only ${rule.from.join(' or ')} can.`);
      }
      return (await quoteSummary(tx, id))!;
    });
  }
}
