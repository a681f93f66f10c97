import { checkKey, onceWithin, type Answer } from '../http/idempotency';
import { parseOrThrow } from '../http/validate';
import { QuoteBody } from '../v1/quotes/schemas';
import type { V1QuoteService } from '../v1/quotes/v1-quote-service';
import type { QuoteRecord } from '../../db/quotes/quote-list';
import type { GraphQLContext } from './context';
import { withoutNulls } from './input';

/**
 * GraphQL's createQuote: POST /v1/quotes (D14) with its Idempotency-Key as an argument, in the
 * request's tenant transaction, following D14's one protocol (api/http/idempotency.ts). The same
 * key with the same input, within 24 hours, answers the quote the first call made
 * (`replayed: true`) and makes nothing; with other input it is IDEMPOTENCY_KEY_REUSED; while the
 * first call runs, IDEMPOTENCY_KEY_IN_USE at once (D14's 409). The key is claimed in the
 * operation's transaction, so a failed operation keeps nothing. Keys are the tenant's, shared with
 * /v1/quotes; a GraphQL fingerprint never matches a REST one (its operation differs), so a key is
 * used by one interface. What is kept for a key is the quote's id: a replay answers that quote with
 * whatever the new selection asks of it.
 */
export interface CreateQuotePayload {
  quote: QuoteRecord | null;
  replayed: boolean;
}

/** The operation a createQuote fingerprint names (domain/idempotency). */
const OPERATION = 'graphql createQuote';

export async function createQuote(ctx: GraphQLContext, quotes: V1QuoteService, input: Record<string, unknown>, idempotencyKey: string | null | undefined): Promise<CreateQuotePayload> {
  const body = parseOrThrow(QuoteBody, withoutNulls(input), 'input');
  const create = async (): Promise<string> => {
    const created = await quotes.createWithin(ctx.tx, ctx.caller, body);
    ctx.events.push(created.event);
    return created.quote.id;
  };
  if (idempotencyKey === undefined || idempotencyKey === null) return { quote: await ctx.loaders.quote.load(await create()), replayed: false };
  checkKey(idempotencyKey, 'idempotencyKey');
  const outcome = await onceWithin(ctx.tx, { key: idempotencyKey, request: { operation: OPERATION, payload: input } }, async (): Promise<Answer> => ({ status: 200, body: { quote_id: await create() } satisfies KeptQuote }));
  return { quote: await ctx.loaders.quote.load((outcome.answer.body as KeptQuote).quote_id), replayed: outcome.replayed };
}

/** What a createQuote key keeps: the quote's id. */
interface KeptQuote {
  quote_id: string;
}
