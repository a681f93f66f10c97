import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ROLES, type Role } from '../../db/entities/user';

/** Section 5: 900 seconds, one tenant, one user. The role in it is informative only. */
export const ACCESS_TOKEN_SECONDS = 900;
const ISSUER = 'shade-office';
const AUDIENCE = 'shade-office-api';

export interface AccessClaims {
  userId: string;
  organizationId: string;
  role: Role;
  /**
   * D20: the user's token version when issued; a password change or reset raises the stored one,
   * and the bearer guard refuses a token of an earlier version. 0 for a user whose password never changed.
   */
  tokenVersion?: number;
}

/** The claims issue() writes; lifetimes longer than ours are not ours either. */
const IssuedClaims = z
  .looseObject({ sub: z.uuid(), org: z.uuid(), role: z.enum(ROLES), ver: z.number().int().min(0), iat: z.number().int(), exp: z.number().int() })
  .refine((claims) => claims.exp - claims.iat <= ACCESS_TOKEN_SECONDS);

export class TokenService {
  private readonly key: Uint8Array;

  constructor(secret: string, private readonly now: () => number = Date.now) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(claims: AccessClaims): Promise<string> {
    const issuedAt = Math.floor(this.now() / 1000);
    return new SignJWT({ org: claims.organizationId, role: claims.role, ver: claims.tokenVersion ?? 0 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ACCESS_TOKEN_SECONDS)
      .sign(this.key);
  }

  /**
   * The claims, or undefined for anything that is not a valid, current token of ours: signed
   * with our key, and shaped as we issue them (a token is only as good as its claims: a
   * non-UUID tenant or user must never reach the database, and one without `exp` never lapses).
   */
  async verify(token: string): Promise<AccessClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
        currentDate: new Date(this.now()),
      });
      const claims = IssuedClaims.safeParse(payload);
      if (!claims.success) return undefined;
      return { userId: claims.data.sub, organizationId: claims.data.org, role: claims.data.role, tokenVersion: claims.data.ver };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
  }
}
