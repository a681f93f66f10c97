import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { ApiError, badRequest, conflict, notFound, validationFailed } from '../http/errors';
import type { Caller } from '../http/request-context';
import { priceQuote, type PricedQuote } from './pricing/engine';
import { PricingError } from './pricing/errors';
import type { RateCardRepository } from './rate-card-repository';
import { QUOTE_TRANSITIONS, type QuoteAction } from './quote-status';
import { insertQuote, listQuotes, quoteSummary, transitionQuote, UnknownCursorError } from './quote-repository';
import type { CalculateBody, QuoteListQuery, QuoteStatus, QuoteSummary } from './schemas';

export type CalculationResult = PricedQuote & { quote_id: string | null; quote_number: number | null; status: QuoteStatus | null; persisted: boolean };

/** Quotes: pricing from the tenant's rate card (section 4.3), listing, and D3's send/reject. */
export class QuoteService {
  constructor(
    private readonly em: EntityManager,
    private readonly rateCards: RateCardRepository,
  ) {}

  calculate(caller: Caller, body: CalculateBody): Promise<CalculationResult> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const card = await this.rateCards.current(tx);
      if (!card) throw badRequest('This workspace has no rate card yet.');
      let priced: PricedQuote;
      try {
        // Rule 3: only an ADMIN may price below the floor, and only with a reason.
        priced = priceQuote({ request: body, rateCard: card.snapshot, overrideAuthorised: caller.role === 'ADMIN' });
      } catch (error) {
        if (error instanceof PricingError) throw new ApiError(error.status, error.code, error.message);
        throw error;
      }
      if (!body.persist) return { ...priced, quote_id: null, quote_number: null, status: null, persisted: false };
      const saved = await insertQuote(tx, { body, priced, revisionId: card.revisionId, createdByUserId: caller.userId });
      return { ...priced, quote_id: saved.id, quote_number: saved.quoteNumber, status: saved.status, persisted: true };
    });
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
