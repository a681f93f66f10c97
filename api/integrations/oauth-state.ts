import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { hkdfSync } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { consumeOAuthNonce, issueOAuthNonce } from '../../db/integrations/oauth-nonces';
import { OAUTH_PROVIDERS, type OAuthProviderName } from '../../infra/integrations/providers/oauth-provider';

/** Sections 5.9 and 8: the state is valid ten minutes. */
export const STATE_TTL_SECONDS = 600;
const ISSUER = 'shade-office';
// Distinct from the access tokens' audience, and signed with a key of its own: a state can
// never pass as an access token, nor an access token as a state.
const AUDIENCE = 'shade-office-oauth-callback';

export interface StateClaims {
  organizationId: string;
  provider: OAuthProviderName;
  userId: string;
  /** Single-use: a row of integration_oauth_states, consumed by the first callback. */
  nonce: string;
  /** Where the consent began (checked against the allowed origins when signed): the callback page links back to it. */
  returnTo?: string | undefined;
}

export type StateCheck = { ok: true; claims: StateClaims } | { ok: false; problem: 'expired' | 'invalid' };

/**
 * The signed OAuth `state` (section 5.9): an HS256 JWT naming the tenant, the provider, the user
 * who asked and a nonce. The callback learns the tenant from it (the callback carries no token),
 * so it must be unforgeable; the nonce makes it single-use.
 */
export class OAuthStates {
  private readonly key: Uint8Array;

  constructor(authTokenSecret: string, private readonly now: () => number = Date.now) {
    this.key = new Uint8Array(hkdfSync('sha256', Buffer.from(authTokenSecret, 'utf8'), 'shade-office', 'oauth-state v1', 32));
  }

  async sign(claims: StateClaims): Promise<string> {
    const issuedAt = Math.floor(this.now() / 1000);
    return new SignJWT({ org: claims.organizationId, prv: claims.provider, ...(claims.returnTo ? { ret: claims.returnTo } : {}) })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(claims.userId)
      .setJti(claims.nonce)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + STATE_TTL_SECONDS)
      .sign(this.key);
  }

  /** A state for this provider, untampered and unexpired; whether it is unused is the store's. */
  async verify(state: string, provider: OAuthProviderName): Promise<StateCheck> {
    try {
      const { payload } = await jwtVerify(state, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'], currentDate: new Date(this.now()) });
      const { org, prv, sub, jti, ret } = payload;
      if (typeof org !== 'string' || typeof sub !== 'string' || typeof jti !== 'string') return { ok: false, problem: 'invalid' };
      // A state made for one provider, presented at another's callback, is refused as tampered.
      if (prv !== provider || !(OAUTH_PROVIDERS as readonly unknown[]).includes(prv)) return { ok: false, problem: 'invalid' };
      return { ok: true, claims: { organizationId: org, provider, userId: sub, nonce: jti, returnTo: typeof ret === 'string' ? ret : undefined } };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) return { ok: false, problem: 'expired' };
      if (error instanceof joseErrors.JOSEError) return { ok: false, problem: 'invalid' };
      throw error;
    }
  }
}

/** The nonces of integration_oauth_states (a tenant table: the tenant comes from the verified state). */
export class OAuthNonces {
  constructor(private readonly em: EntityManager) {}

  async issue(ref: { organizationId: string; provider: OAuthProviderName; userId: string }): Promise<string> {
    // Nonces past their use are kept a day (for support questions), then swept here.
    return inTenant(this.em, ref.organizationId, (tx) => issueOAuthNonce(tx, ref, STATE_TTL_SECONDS));
  }

  /** True exactly once per nonce, and only before it expires. */
  async consume(claims: StateClaims): Promise<boolean> {
    return inTenant(this.em, claims.organizationId, (tx) => consumeOAuthNonce(tx, { id: claims.nonce, provider: claims.provider, userId: claims.userId }));
  }
}
