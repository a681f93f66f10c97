import type { Pool } from 'pg';
import type { RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError } from './errors';

export interface LimitPolicy {
  name: string;
  points: number;
  windowSeconds: number;
}

/** Section 8. */
export const BROAD_LIMIT: LimitPolicy = { name: 'broad', points: 300, windowSeconds: 60 };
export const LOGIN_LIMIT: LimitPolicy = { name: 'login', points: 10, windowSeconds: 15 * 60 };

/**
 * A fixed-window counter kept in PostgreSQL (rate-limiter-flexible's store, table `rate_limits`
 * from the foundation migration), so several API processes share one count. If the database
 * cannot be reached the limiter falls back to a per-process memory count rather than failing
 * every request.
 */
export class Limiter {
  private readonly limiter: RateLimiterPostgres;

  constructor(pool: Pool, readonly policy: LimitPolicy) {
    this.limiter = new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix: policy.name,
      points: policy.points,
      duration: policy.windowSeconds,
      clearExpiredByTimeout: false,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${policy.name}-insurance`, points: policy.points, duration: policy.windowSeconds }),
    });
  }

  /** Counts one attempt; sets the section 8 headers; throws 429 when over the limit. */
  async consume(key: string, res: Response): Promise<void> {
    try {
      const state = await this.limiter.consume(key);
      this.setHeaders(res, state);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.setHeaders(res, rejection);
      throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
    }
  }

  private setHeaders(res: Response, state: RateLimiterRes): void {
    const reset = Math.max(0, Math.ceil(state.msBeforeNext / 1000));
    res.setHeader('RateLimit', `limit=${this.policy.points}, remaining=${Math.max(0, state.remainingPoints)}, reset=${reset}`);
    res.setHeader('RateLimit-Policy', `${this.policy.points};w=${this.policy.windowSeconds}`);
  }
}

/** The broad limit: every path but the health check, per client address (trust proxy decides). */
export function broadRateLimit(limiter: Limiter): RequestHandler {
  return async (req, res, next) => {
    if (req.path === '/api/health') return next();
    try {
      await limiter.consume(`ip:${req.ip ?? 'unknown'}`, res);
      next();
    } catch (error) {
      next(error);
    }
  };
}
