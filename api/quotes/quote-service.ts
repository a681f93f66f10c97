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
import { insertQuote, listQuotes, quoteDetail, quoteSummary, transitionQuote, UnknownCursorError } from '../../db/quotes/quotes';
import { approveInTenant } from './approval';
import { customerExists } from '../../db/quotes/revisions';
import { recordQuoteCreated } from '../../db/events/quote-events';
import type { EventDispatcher } from '../../infra/events/dispatcher';
import type { Mailer } from '../../infra/email/mailer';
import { composeQuoteLink } from '../../infra/email/quote-mail';
import { issuePageLink, quoteForSending, resendQuote } from '../../db/quotes/page-links';
import { customerFigures, sendMove } from '../../domain/quotes/customer-page';
import { newPageToken, pageTokenHash } from '../quote-page/tokens';
import type { Logger } from 'pino';

export type SentQuote = QuoteSummary & { page_url: string };

/** A send written but not yet mailed: what the email needs once the transaction commits. */
export interface QuoteSending {
  sent: SentQuote;
  facts: NonNullable<Awaited<ReturnType<typeof quoteForSending>>>;
  link: Awaited<ReturnType<typeof issuePageLink>>;
}

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
    /** D24: the quote's link goes out through SMTP (absent: not emailed), built on PUBLIC_BASE_URL. */
    private readonly mail?: { mailer?: Mailer | undefined; publicBaseUrl: string; logger: Logger },
  ) {}

  async calculate(caller: Caller, body: CalculateBody): Promise<CalculationResult> {
    if (body.customerId !== undefined && body.customer !== undefined) throw validationFailed({ customerId: 'Send customerId (an existing customer) or customer (a new one), not both' });
    // Pricing alone needs no transaction, only the current revision (one statement).
    if (!body.persist) {
      const card = withRateCard(await this.rateCards.currentOf(this.em, caller.organizationId));
      return { ...this.price(caller, body, card), quote_id: null, quote_number: null, status: null, persisted: false };
    }
    let created: EventEnvelope | undefined;
    const result = await inTenant(this.em, caller.organizationId, async (tx): Promise<CalculationResult> => {
      if (body.customerId !== undefined && !(await customerExists(tx, body.customerId))) throw validationFailed({ customerId: 'No such customer in this workspace' });
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
      const found = await quoteDetail(tx, id);
      if (!found) throw notFound('No such quote in this workspace.');
      // One record whichever interface made it: a /v1/quotes quote reads here too.
      const { origin: _origin, ...detail } = found;
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
    const outcome = await inTenant(this.em, caller.organizationId, (tx) => approveInTenant(tx, { organizationId: caller.organizationId, quoteId: id, userId: caller.userId }));
    if (!outcome.moved) throw approvalRefused(outcome.status);
    await this.events?.tryDispatch(outcome.event);
    return outcome.approved;
  }

  /**
   * D3 and D24: send moves a DRAFT to SENT (a SENT quote is sent again) with a new link to the
   * quote's page, voiding any earlier one, and emails it to the customer when they have an email.
   * The link is answered as `page_url` either way. Mail trouble is logged, not answered: the quote
   * is sent and the office has its link to share.
   */
  async send(caller: Caller, id: string): Promise<SentQuote> {
    const sending = await inTenant(this.em, caller.organizationId, (tx) => this.sendWithin(tx, caller, id));
    await this.mailQuoteLink(sending);
    return sending.sent;
  }

  /**
   * The send's writes in the caller's transaction (GraphQL's sendQuote runs it in its operation's):
   * the move and the new link. The email waits for the commit (mailQuoteLink), so a send that rolls
   * back mails nothing.
   */
  async sendWithin(tx: EntityManager, caller: Caller, id: string): Promise<QuoteSending> {
    const mail = this.mailSettings();
    const token = newPageToken();
    const facts = await quoteForSending(tx, id);
    if (!facts) throw notFound('No such quote in this workspace.');
    const move = sendMove(facts.status);
    if (!move) throw conflict(`A ${facts.status} quote cannot be sent; only DRAFT or SENT can (sending a SENT quote again sends a new link).`);
    const moved = move === 'first' ? (await transitionQuote(tx, id, 'send', ', sent_by_user_id = ?', [caller.userId])).moved : await resendQuote(tx, id, caller.userId);
    if (!moved) throw conflict('The quote changed while it was being sent; try again.');
    const link = await issuePageLink(tx, { quoteId: id, tokenHash: pageTokenHash(token), sentByUserId: caller.userId });
    const pageUrl = `${mail.publicBaseUrl.replace(/\/+$/, '')}/q/${token}`;
    return { sent: { ...(await quoteSummary(tx, id))!, page_url: pageUrl }, facts, link };
  }

  /** After the send committed: the link emailed to the customer when they have an email (trouble logged, never thrown). */
  async mailQuoteLink({ sent, facts, link }: QuoteSending): Promise<void> {
    const mail = this.mailSettings();
    if (!facts.customer_email) return;
    if (!mail.mailer) {
      mail.logger.warn({ quote_id: sent.id }, 'no SMTP_URL: the quote link is not emailed to the customer (D24); share page_url instead');
      return;
    }
    try {
      await mail.mailer.send(
        composeQuoteLink({
          to: facts.customer_email,
          customerName: facts.customer_name,
          contractor: facts.contractor_name,
          quoteNumber: facts.quote_number,
          quoteId: sent.id,
          pageUrl: sent.page_url,
          linkId: link.id,
          validUntil: link.expiresAt,
          totalCents: customerFigures(facts.calculation.line_items, facts.tax_region).totalCents,
        }),
      );
    } catch (error) {
      mail.logger.warn({ err: error, quote_id: sent.id }, 'the quote link could not be emailed to the customer; share page_url instead');
    }
  }

  private mailSettings() {
    if (!this.mail) throw new Error('QuoteService was built without its mail settings: it cannot send quotes');
    return this.mail;
  }

  /** D3: reject (DRAFT or SENT to REJECTED); any other state is 409. */
  transition(caller: Caller, id: string, action: Extract<QuoteAction, 'reject'>): Promise<QuoteSummary> {
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

/** Why an approval moved nothing, as REST and GraphQL answer it: no such quote (404), or not approvable now (409). */
export function approvalRefused(status: QuoteStatus | undefined): Error {
  if (!status) return notFound('No such quote in this workspace.');
  return conflict(status === 'APPROVED' ? 'The quote is already approved.' : `A ${status} quote cannot be approved; only DRAFT or SENT can.`);
}
