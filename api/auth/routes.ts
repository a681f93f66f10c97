import type { EntityManager } from '@mikro-orm/postgresql';
import { route, type RouteHost } from '../http/route';
import { ErrorEnvelopeSchema } from '../http/common-schemas';
import { notFound } from '../http/errors';
import type { Limiter } from '../http/rate-limit';
import { inTenant } from '../../db/tenant-scope';
import { profileOf } from '../../db/users';
import { LoginService } from './login-service';
import { LoginBody, LoginResult, Profile } from './schemas';

export function authRoutes(host: RouteHost, deps: { em: EntityManager; login: LoginService; loginLimiter: Limiter }): void {
  route(host, {
    method: 'post',
    path: '/api/v1/auth/login',
    summary: 'Exchange workspace, email and password for a 900-second bearer token',
    tags: ['auth'],
    auth: 'none',
    body: LoginBody,
    responses: {
      200: { description: 'Logged in', schema: LoginResult },
      401: { description: 'Credentials rejected (identical for every cause)', schema: ErrorEnvelopeSchema },
      429: { description: 'Ten failed attempts per fifteen minutes for one workspace and email (a success clears them)', schema: ErrorEnvelopeSchema },
    },
    handler: async ({ res, body }) => {
      // Counted after validation, per normalised identity rather than per address (section 8).
      // Every attempt is counted before it runs (parallel guesses cannot slip past the limit);
      // a success clears the count, so what accumulates is failures (docs/decisions.md).
      const identity = LoginService.identityKey(body);
      await deps.loginLimiter.consume(identity, res);
      const result = await deps.login.login(body);
      await deps.loginLimiter.clear(identity, res);
      res.json(result);
    },
  });

  route(host, {
    method: 'get',
    path: '/api/v1/auth/me',
    summary: 'The caller as the database says now',
    tags: ['auth'],
    auth: 'bearer',
    responses: { 200: { description: 'Profile', schema: Profile } },
    handler: async ({ res, caller }) => {
      const row = await inTenant(deps.em, caller.organizationId, (tx) => profileOf(tx, caller.userId));
      if (!row) throw notFound('User not found.');
      res.json({
        id: row.id,
        email: row.email,
        full_name: row.full_name,
        role: row.role,
        last_login_at: row.last_login_at ? new Date(row.last_login_at).toISOString() : null,
        organization: { id: row.org_id, name: row.org_name, subdomain: row.subdomain },
      });
    },
  });
}
