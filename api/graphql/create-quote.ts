import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { claimKey, completeKey, holdKeyForTransaction } from '../../db/idempotency/keys';
import { idempotencyKeyInUse, idempotencyKeyReused, validationFailed } from '../../domain/errors/errors';
import { parseOrThrow } from '../http/validate';
import { QuoteBody } from '../v1/quotes/schemas';
import type { V1QuoteService } from '../v1/quotes/v1-quote-service';
import type { QuoteRecord } from '../../db/graphql/reads';
import type { GraphQLContext } from './context';
import { withoutNulls } from './input';

/**
 * GraphQL's createQuote: POST /v1/quotes (D14) with its Idempotency-Key as an argument, in the
 * request's tenant transaction. The same key with the same input, within 24 hours, answers the
 * quote the first call made (`replayed: true`) and makes nothing; with other input it is
 * IDEMPOTENCY_KEY_REUSED. A second call while the first is still running is IDEMPOTENCY_KEY_IN_USE
 * at once (D14's 409): the first holds the key for its whole transaction. Keys are the tenant's, shared with
 * /v1/quotes; a GraphQL fingerprint never matches a REST one, so a key is used by one interface.
 * What is kept for a key is the quote's id: a replay answers that quote with whatever the new
 * selection asks of it.
 */
export interface CreateQuotePayload {
  quote: QuoteRecord | null;
  replayed: boolean;
}

const fingerprintOf = (input: unknown) => createHash('sha256').update(`graphql createQuote\n${canonicalize(input ?? null) ?? 'null'}`).digest('hex');

export async function createQuote(ctx: GraphQLContext, quotes: V1QuoteService, input: Record<string, unknown>, idempotencyKey: string | null | undefined): Promise<CreateQuotePayload> {
  const body = parseOrThrow(QuoteBody, withoutNulls(input), 'input');
  if (idempotencyKey !== undefined && idempotencyKey !== null) {
    if (idempotencyKey.length === 0 || idempotencyKey.length > 255) throw validationFailed({ idempotencyKey: idempotencyKey.length === 0 ? 'Must not be empty' : 'At most 255 characters' });
    if (!(await holdKeyForTransaction(ctx.tx, idempotencyKey))) throw idempotencyKeyInUse();
    const claim = await claimKey(ctx.tx, idempotencyKey, fingerprintOf(input));
    if (!claim.claimed) {
      if (claim.fingerprint !== fingerprintOf(input)) throw idempotencyKeyReused();
      if (claim.state === 'running') throw idempotencyKeyInUse();
      const { quote_id: quoteId } = JSON.parse(claim.response.body) as { quote_id: string };
      return { quote: await ctx.loaders.quote.load(quoteId), replayed: true };
    }
  }
  const created = await quotes.createWithin(ctx.tx, ctx.caller, body);
  ctx.events.push(created.event);
  if (idempotencyKey) await completeKey(ctx.tx, idempotencyKey, { status: 200, body: JSON.stringify({ quote_id: created.quote.id }), headers: {} });
  return { quote: await ctx.loaders.quote.load(created.quote.id), replayed: false };
}
