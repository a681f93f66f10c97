import type { EntityManager } from '@mikro-orm/postgresql';
import { route, type RouteHost } from '../http/route';
import { ErrorEnvelopeSchema } from '../http/common-schemas';
import type { Limiter } from '../http/rate-limit';
import { callerProfile } from './profile';
import { LoginService } from './login-service';
import { LoginBody, LoginResult, Profile } from './schemas';
import { errorExample } from '../http/error-examples';
import { LOGIN_EXAMPLE, LOGIN_RESULT_EXAMPLE, PROFILE_EXAMPLE } from './examples';

export function authRoutes(host: RouteHost, deps: { em: EntityManager; login: LoginService; loginLimiter: Limiter }): void {
  route(host, {
    method: 'post',
    path: '/api/v1/auth/login',
    operationId: 'login',
    summary: 'Exchange workspace, email and password for a 900-second bearer token',
    description:
      'The workspace subdomain is part of the credential. Every refusal (wrong password, unknown email or workspace, ' +
      'deactivated account) answers the same 401 `invalid_credentials` in the same time. Send the token as `Authorization: Bearer <access_token>`.',
    tags: ['auth'],
    auth: 'none',
    body: LoginBody,
    bodyExample: LOGIN_EXAMPLE,
    responses: {
      200: { description: 'Logged in', schema: LoginResult, example: LOGIN_RESULT_EXAMPLE },
      401: { description: 'Credentials rejected (identical for every cause)', schema: ErrorEnvelopeSchema, example: errorExample(401, 'The workspace, email or password is incorrect.') },
      429: {
        description: 'Ten failed attempts per fifteen minutes for one workspace and email (a success clears them)',
        schema: ErrorEnvelopeSchema,
        example: errorExample(429, 'Too many requests; retry after 840 seconds.'),
      },
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
    operationId: 'getProfile',
    summary: 'The caller as the database says now',
    description: 'The user, role and workspace behind the token, read from the database on this request (a role change shows at once).',
    tags: ['auth'],
    auth: 'bearer',
    responses: { 200: { description: 'Profile', schema: Profile, example: PROFILE_EXAMPLE } },
    handler: async ({ res, caller }) => {
      res.json(await callerProfile(deps.em, caller));
    },
  });
}
