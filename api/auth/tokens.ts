import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { randomUUID } from 'node:crypto';
import type { Role } from '../../db/entities/user';

/** Section 5: 900 seconds, one tenant, one user. The role in it is informative only. */
export const ACCESS_TOKEN_SECONDS = 900;
const ISSUER = 'shade-office';
const AUDIENCE = 'shade-office-api';

export interface AccessClaims {
  userId: string;
  organizationId: string;
  role: Role;
}

export class TokenService {
  private readonly key: Uint8Array;

  constructor(secret: string, private readonly now: () => number = Date.now) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(claims: AccessClaims): Promise<string> {
    const issuedAt = Math.floor(this.now() / 1000);
    return new SignJWT({ org: claims.organizationId, role: claims.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ACCESS_TOKEN_SECONDS)
      .sign(this.key);
  }

  /** The claims, or undefined for anything that is not a valid, current token of ours. */
  async verify(token: string): Promise<AccessClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        currentDate: new Date(this.now()),
      });
      if (typeof payload.sub !== 'string' || typeof payload.org !== 'string' || typeof payload.role !== 'string') return undefined;
      return { userId: payload.sub, organizationId: payload.org, role: payload.role as Role };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
  }
}
