import { badRequest } from '../../domain/errors/errors';
import { parseOrThrow } from '../http/validate';
import { CalculateBody } from '../quotes/schemas';
import type { PricedQuote } from '../../domain/pricing/reference-engine';
import { priceQuote } from '../../domain/pricing/engine';
import type { GraphQLContext } from './context';
import { withoutNulls } from './input';

/** The calculate body of section 4.3 less what stores a quote: GraphQL's calculate only prices. */
const PriceOnly = CalculateBody.omit({ persist: true, customer: true });

/**
 * The `calculate` mutation: the same zod rules as POST /api/v1/quotes/calculate (one source of
 * the limits), the same rate card and the same engine, inside the request's tenant transaction.
 */
export async function calculate(ctx: GraphQLContext, input: Record<string, unknown>): Promise<PricedQuote> {
  const body = parseOrThrow(PriceOnly, withoutNulls(input), 'input');
  const card = await ctx.rateCards.current(ctx.tx);
  if (!card) throw badRequest('This workspace has no rate card yet.');
  // Rule 3 of section 4.3: only an ADMIN may price below the floor, and only with a reason. A
  // refusal is a PricingError, answered under the code of its kind.
  return priceQuote({ request: { ...body, persist: false }, rateCard: card.snapshot, overrideAuthorised: ctx.caller.role === 'ADMIN' });
}
