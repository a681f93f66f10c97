import type { RequestHandler, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { drawTokens, type BucketState } from '../../db/plans/buckets';
import { RateLimitedError } from '../../domain/errors/errors';

/**
 * D15: what a route draws from its tenant's plan bucket (db/plans/buckets.ts), declared with the
 * route (api/http/route.ts) the way `auth` is. Every request draws one token, before its roles,
 * input and Idempotency-Key are checked, so a refusal, a replay (D14) and a key refused draw it
 * as any request does (every request counts, as Stripe's limits and Jobber's cheapest query do):
 * - `request`: that one token;
 * - `points`: that one token, and the operation's cost in GraphQL points on top, drawn by its
 *   handler once costed (D17, api/graphql/execute.ts).
 */
export type Metering = 'request' | 'points';

/** One token per request from the tenant's plan bucket, answered in document 001 section 8's headers. */
export interface RequestMeter {
  /** Draws in a transaction of its own; a refused draw throws the 429 (`rate-limited`, with Retry-After). */
  draw(organizationId: string, res: Response): Promise<void>;
}

function setLimitHeaders(res: Response, state: BucketState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(state.remaining));
  res.setHeader('X-RateLimit-Reset', String(state.resetAt));
}

function answerDraw(res: Response, state: BucketState): void {
  setLimitHeaders(res, state);
  if (!state.allowed) throw new RateLimitedError(state.retryAfterSeconds);
}

export class PlanMeter implements RequestMeter {
  constructor(private readonly em: EntityManager) {}

  async draw(organizationId: string, res: Response): Promise<void> {
    answerDraw(res, await inTenant(this.em, organizationId, (tx) => drawTokens(tx)));
  }

}

/**
 * D15 counts every authenticated request under `/v1/`, a path no route declares too (it answers
 * 404): mounted just before the `/v1/` 404, so probing for paths is not free either.
 */
export function meterUnrouted(meter: RequestMeter): RequestHandler {
  return async (req, res, next) => {
    try {
      if (req.caller) await meter.draw(req.caller.organizationId, res);
      next();
    } catch (error) {
      next(error);
    }
  };
}
