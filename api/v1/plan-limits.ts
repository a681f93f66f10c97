import type { RequestHandler, Request, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { drawTokens, peekTokens, type BucketState } from '../../db/plans/buckets';
import { RateLimitedError } from '../../domain/errors/errors';
import { defersDraw } from './idempotency-paths';

/** Document 001 section 8's headers, on every `/v1/` answer of an authenticated caller (D15). */
export function setLimitHeaders(res: Response, state: BucketState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(state.remaining));
  res.setHeader('X-RateLimit-Reset', String(state.resetAt));
}

/** Sets the headers, and throws the 429 (`rate-limited`, with Retry-After) when the draw was refused. */
export function answerDraw(res: Response, state: BucketState): void {
  setLimitHeaders(res, state);
  if (!state.allowed) throw new RateLimitedError(state.retryAfterSeconds);
}

export async function drawFor(em: EntityManager, req: Request, res: Response): Promise<void> {
  answerDraw(res, await inTenant(em, req.caller!.organizationId, (tx) => drawTokens(tx)));
}

export async function peekFor(em: EntityManager, req: Request, res: Response): Promise<void> {
  setLimitHeaders(res, await inTenant(em, req.caller!.organizationId, (tx) => peekTokens(tx)));
}

/**
 * D15: every `/v1/` request of an authenticated caller draws one token from its tenant's bucket
 * (mounted after the bearer guard, so the unauthenticated got their 401 and draw nothing). A POST
 * carrying an `Idempotency-Key` draws when its key is claimed instead (api/v1/idempotency.ts), so
 * a replayed request never draws a second token.
 */
export function planLimits(em: EntityManager): RequestHandler {
  return async (req, res, next) => {
    try {
      if (!req.caller) return next();
      // D17: a GraphQL operation draws its cost in points itself, once costed (api/graphql/execute.ts).
      if (req.method === 'POST' && /^\/v1\/graphql\/?$/.test(req.baseUrl + req.path)) return next();
      if (!defersDraw(req)) await drawFor(em, req, res);
      next();
    } catch (error) {
      next(error);
    }
  };
}
