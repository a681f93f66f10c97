import type { Pool } from 'pg';
import type { RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError } from '../../domain/errors/errors';
import { clientAddressKey } from './client-address';
import { INVITATION_RESENDS_PER_HOUR, INVITATIONS_PER_HOUR } from '../../domain/team/team-rules';

export interface LimitPolicy {
  name: string;
  points: number;
  windowSeconds: number;
}

/** Section 8. */
export const BROAD_LIMIT: LimitPolicy = { name: 'broad', points: 300, windowSeconds: 60 };
export const LOGIN_LIMIT: LimitPolicy = { name: 'login', points: 10, windowSeconds: 15 * 60 };
/** D20: new invitations, per workspace. */
export const INVITATION_LIMIT: LimitPolicy = { name: 'invitation', points: INVITATIONS_PER_HOUR, windowSeconds: 60 * 60 };
/** D20: new invitation links, per user. */
export const INVITATION_RESEND_LIMIT: LimitPolicy = { name: 'invitation-resend', points: INVITATION_RESENDS_PER_HOUR, windowSeconds: 60 * 60 };
/** D20: reset requests are limited like login, per workspace and email. */
export const PASSWORD_RESET_LIMIT: LimitPolicy = { ...LOGIN_LIMIT, name: 'password-reset' };
/** D20: uses of an emailed link (per token) and current-password checks (per user), like login. */
export const PASSWORD_CHECK_LIMIT: LimitPolicy = { ...LOGIN_LIMIT, name: 'password-check' };

/**
 * D20, defence in depth: failed redemptions of emailed links (an unknown, used, voided or expired
 * token) per workspace, whatever the token or the client address. Tokens carry 256 random bits, so
 * guessing one is hopeless anyway; this only bounds how fast a crowd of addresses can try.
 */
export const LINK_REDEMPTION_LIMIT: LimitPolicy = { name: 'link-redemption', points: 50, windowSeconds: 15 * 60 };

/** How often one process at most deletes the expired counters of the shared table. */
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * A fixed-window counter kept in PostgreSQL (rate-limiter-flexible's store, table `rate_limits`
 * from the foundation migration), so several API processes share one count. If the database
 * cannot be reached the limiter falls back to a per-process memory count rather than failing
 * every request.
 *
 * Expired counters are deleted as traffic arrives (the library's own sweep keeps rows for an
 * hour after they expire and is not part of its typed interface): at most once per sweep
 * interval per process, in the background, so the table holds little beyond the running windows.
 */
export class Limiter {
  private readonly limiter: RateLimiterPostgres;
  private lastSweep = 0;

  constructor(
    private readonly pool: Pool,
    readonly policy: LimitPolicy,
    private readonly sweepIntervalMs = SWEEP_INTERVAL_MS,
  ) {
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
    this.sweepSometimes();
    try {
      const state = await this.limiter.consume(key);
      this.setHeaders(res, state);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.setHeaders(res, rejection);
      throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
    }
  }

  /** Gives back one attempt counted for `key` (one that turned out not to count). Best effort. */
  async refund(key: string): Promise<void> {
    try {
      await this.limiter.reward(key, 1);
    } catch {
      return;
    }
  }

  /**
   * Forgets every attempt counted for `key` (a successful login clears its failures) and says so
   * in the headers: the whole limit remains, nothing is waiting to reset. Best effort: a counter
   * that could not be deleted only runs out by itself.
   */
  async clear(key: string, res: Response): Promise<void> {
    try {
      await this.limiter.delete(key);
    } catch {
      return;
    }
    res.setHeader('RateLimit', `limit=${this.policy.points}, remaining=${this.policy.points}, reset=0`);
    res.setHeader('RateLimit-Policy', `${this.policy.points};w=${this.policy.windowSeconds}`);
  }

  /** Deletes every counter whose window has ended (any limiter's: they share the table). */
  async sweepExpired(): Promise<number> {
    this.lastSweep = Date.now();
    // `expire` is the library's window end in epoch milliseconds.
    const result = await this.pool.query('delete from rate_limits where expire < $1', [Date.now()]);
    return result.rowCount ?? 0;
  }

  private sweepSometimes(): void {
    if (Date.now() - this.lastSweep < this.sweepIntervalMs) return;
    // In the background; a failed sweep is tried again at the next interval.
    this.sweepExpired().catch(() => undefined);
  }

  private setHeaders(res: Response, state: RateLimiterRes): void {
    const reset = Math.max(0, Math.ceil(state.msBeforeNext / 1000));
    res.setHeader('RateLimit', `limit=${this.policy.points}, remaining=${Math.max(0, state.remainingPoints)}, reset=${reset}`);
    res.setHeader('RateLimit-Policy', `${this.policy.points};w=${this.policy.windowSeconds}`);
  }
}

/**
 * The broad limit: every path but the health check and `/v1/`, per client address
 * (api/http/client-address.ts). `/v1/` counts here only until authenticated
 * (limitUntilAuthenticated below); an authenticated request is limited per tenant by its plan's
 * bucket instead (D15: a growth burst of 800 would not fit in 300 a minute per address).
 */
export function broadRateLimit(limiter: Limiter): RequestHandler {
  return async (req, res, next) => {
    if (req.path === '/api/health' || req.path === '/v1' || req.path.startsWith('/v1/')) return next();
    try {
      await limiter.consume(`ip:${clientAddressKey(req)}`, res);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/**
 * `/v1/`'s bearer guard (`authenticate`) with the broad limit in front of whatever it does not
 * authenticate: a request without a valid token (its 401) and one to a public route (GraphiQL)
 * count against their client address, under the same counter as the rest of the API, and are 429
 * once it is spent; an authenticated request is not counted here (it draws from its tenant's
 * bucket, D15).
 */
export function limitUntilAuthenticated(limiter: Limiter, authenticate: RequestHandler): RequestHandler {
  return (req, res, next) =>
    authenticate(req, res, (refusal?: unknown) => {
      if (req.caller) return next(refusal);
      limiter.consume(`ip:${clientAddressKey(req)}`, res).then(() => next(refusal), next);
    });
}
