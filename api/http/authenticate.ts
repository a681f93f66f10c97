import type { RequestHandler } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { userForAuthentication } from '../../db/users';
import type { TokenService } from '../auth/tokens';
import { unauthenticated } from '../../domain/errors/errors';
import { refuseIfSuspended } from '../../domain/organizations/suspension';
import type { PublicRoutes } from './public-routes';

/**
 * Section 5.7: mounted on /api/v1 ahead of every route, so an unauthenticated request to any
 * path there, real or invented, answers 401. Section 5.3: the user and role are read from the
 * database on every request; a deactivated or deleted user's token stops working at once, and so
 * does a token issued before the user's password last changed (D20).
 */
export function authenticate(deps: { em: EntityManager; tokens: TokenService; publicRoutes: PublicRoutes }): RequestHandler {
  return async (req, _res, next) => {
    // Paths under /api/v1 that authenticate themselves, as their route declarations say.
    if (deps.publicRoutes.includes(req.method, req.baseUrl + req.path)) return next();
    try {
      const header = req.get('authorization') ?? '';
      const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header);
      if (!match?.[1]) throw unauthenticated();
      const claims = await deps.tokens.verify(match[1]);
      if (!claims) throw unauthenticated();
      const user = await inTenant(deps.em, claims.organizationId, (tx) => userForAuthentication(tx, claims.userId));
      // D20: a password change or reset raises the user's token version; earlier tokens stop here.
      if (!user || !user.active || (claims.tokenVersion ?? 0) < user.token_version) throw unauthenticated();
      // D22: a suspended workspace answers 403 to everything its people ask, on every interface.
      refuseIfSuspended(user);
      req.caller = { userId: user.id, organizationId: claims.organizationId, role: user.role, email: user.email };
      req.log = req.log.child({ user_id: user.id, organization_id: claims.organizationId });
      next();
    } catch (error) {
      next(error);
    }
  };
}
