import { route, type RouteHost } from '../http/route';
import { ADMIN_ONLY } from '../http/roles';
import { ErrorEnvelopeSchema, IdParams } from '../http/common-schemas';
import { errorExample } from '../http/error-examples';
import { linkNext, PageHeaders } from '../http/pagination';
import { auditContext } from '../http/audit-actor';
import type { Response } from 'express';
import { LINK_REDEMPTION_LIMIT, type Limiter } from '../http/rate-limit';
import { DomainError } from '../../domain/errors/errors';
import { LoginService } from '../auth/login-service';
import { LoginResult } from '../auth/schemas';
import { LOGIN_RESULT_EXAMPLE } from '../auth/examples';
import type { TeamService } from './team-service';
import { hashLinkToken } from '../../infra/team/links';
import { UNUSABLE_TOKEN_MESSAGE, INVITATION_RESENDS_PER_HOUR, INVITATIONS_PER_HOUR } from '../../domain/team/team-rules';
import {
  AcceptInvitationBody,
  ChangePasswordBody,
  ConfirmPasswordResetBody,
  Invitation,
  InvitationBody,
  PasswordResetAccepted,
  PasswordResetBody,
  TeamUserList,
  TeamUserQuery,
  UpdatedTeamUser,
  UpdateProfileBody,
  UpdateUserBody,
} from './schemas';
import {
  ACCEPT_INVITATION_EXAMPLE,
  CHANGE_PASSWORD_EXAMPLE,
  CONFIRM_PASSWORD_RESET_EXAMPLE,
  INVITATION_EXAMPLE,
  INVITATION_RESULT_EXAMPLE,
  PASSWORD_RESET_EXAMPLE,
  TEAM_USER_LIST_EXAMPLE,
  UPDATE_PROFILE_EXAMPLE,
  UPDATE_USER_EXAMPLE,
  UPDATED_USER_EXAMPLE,
} from './examples';
import { Profile } from '../auth/schemas';
import { PROFILE_EXAMPLE } from '../auth/examples';
import type { EntityManager } from '@mikro-orm/postgresql';
import { callerProfile } from '../auth/profile';

const error = (description: string, message?: string, status?: number) =>
  message && status ? { description, schema: ErrorEnvelopeSchema, example: errorExample(status, message) } : { description, schema: ErrorEnvelopeSchema };

export interface TeamLimiters {
  /** D20: new invitations, per workspace (30 an hour). */
  invitations: Limiter;
  /** D20: new invitation links, per user (5 an hour). */
  invitationResends: Limiter;
  /** D20: reset requests, per workspace and email, as login counts them. */
  passwordResets: Limiter;
  /** D20: uses of a reset link and checks of a current password, per token or user. */
  passwordChecks: Limiter;
  /** D20: failed redemptions of emailed links, per workspace (defence in depth). */
  linkRedemptions: Limiter;
}

/**
 * Redeems an emailed link under the per-workspace limit of failed redemptions: one attempt is
 * counted before the token is looked up (so a guess past the limit is not even tried) and given
 * back unless the token turned out unusable, so only failures use up the workspace's allowance.
 */
async function redeemLink<T>(deps: { team: TeamService; limiters: TeamLimiters }, token: string, res: Response, redeem: () => Promise<T>): Promise<T> {
  const key = `workspace:${(await deps.team.redemptionWorkspace(token)) ?? 'none'}`;
  await deps.limiters.linkRedemptions.consume(key, res);
  try {
    const result = await redeem();
    await deps.limiters.linkRedemptions.refund(key);
    return result;
  } catch (error) {
    if (!(error instanceof DomainError && error.kind === 'bad_request' && error.message === UNUSABLE_TOKEN_MESSAGE)) await deps.limiters.linkRedemptions.refund(key);
    throw error;
  }
}

/** D20: the answer past either limit of a link's redemption (its own tries, its workspace's failures). */
const REDEMPTIONS_LIMITED = {
  description: `Ten tries of one token, or ${LINK_REDEMPTION_LIMIT.points} failed redemptions of the workspace's links in ${LINK_REDEMPTION_LIMIT.windowSeconds / 60} minutes, from any address (Retry-After says when to try again)`,
  schema: ErrorEnvelopeSchema,
  example: errorExample(429, 'Too many requests; retry after 840 seconds.'),
};

/** The team (D20): users, invitations, passwords. */
export function teamRoutes(host: RouteHost, deps: { em: EntityManager; team: TeamService; limiters: TeamLimiters }): void {
  route(host, {
    method: 'get',
    path: '/api/v1/users',
    operationId: 'listUsers',
    summary: "The workspace's users, oldest first",
    description:
      'Every user of the workspace with their role and status (`active`, `invited` or `deactivated`), in the order they joined. ' +
      'At most `limit` per page: while more follow, the `Link` header names the next page (`rel="next"`).',
    tags: ['team'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    query: TeamUserQuery,
    responses: {
      200: { description: 'A page of users', schema: TeamUserList, example: TEAM_USER_LIST_EXAMPLE, headers: PageHeaders },
      400: error('A cursor this list did not hand out'),
    },
    handler: async ({ req, res, caller, query }) => {
      const { data, next } = await deps.team.list(caller, query);
      linkNext(req, res, next);
      res.json({ data });
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/users/invitations',
    operationId: 'inviteUser',
    summary: 'Invite a user: an email with a single-use link valid 72 hours',
    description:
      'Creates the user as `invited` and emails them a link to choose their password (`POST /api/v1/auth/invitations/accept`). ' +
      `An email already in the workspace is 409. At most ${INVITATIONS_PER_HOUR} invitations an hour per workspace (429 with Retry-After beyond).`,
    tags: ['team'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    body: InvitationBody,
    bodyExample: INVITATION_EXAMPLE,
    responses: {
      201: { description: 'Invited', schema: Invitation, example: INVITATION_RESULT_EXAMPLE },
      409: error('The email is already in the workspace', 'A user with this email is already in the workspace.', 409),
    },
    handler: async ({ req, res, caller, body }) => {
      // Per workspace: every invitation is an email to an address the caller chose.
      await deps.limiters.invitations.consume(caller.organizationId, res);
      res.status(201).json(await deps.team.invite(caller, body, auditContext(req)));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/users/:id/invitations',
    operationId: 'resendInvitation',
    summary: 'Send an invited user a new link; the old one stops working',
    description: `At most ${INVITATION_RESENDS_PER_HOUR} new links an hour per user (429 with Retry-After beyond). A user who already accepted is 409.`,
    tags: ['team'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    responses: {
      201: { description: 'A new link was sent', schema: Invitation, example: INVITATION_RESULT_EXAMPLE },
      404: error('No such user in the workspace'),
      409: error('The user already accepted', 'This user has already accepted their invitation.', 409),
    },
    handler: async ({ req, res, caller, params }) => {
      // Per user, counted within the caller's tenant: another tenant cannot spend this one's allowance.
      await deps.limiters.invitationResends.consume(`${caller.organizationId}:${params.id}`, res);
      res.status(201).json(await deps.team.resendInvitation(caller, params.id, auditContext(req)));
    },
  });

  route(host, {
    method: 'patch',
    path: '/api/v1/users/:id',
    operationId: 'updateUser',
    summary: "Change a user's name, role or status",
    description:
      "The workspace's last active ADMIN cannot be demoted or deactivated (409). A deactivated user's tokens stop at once. " +
      'A technician who is deactivated (or stops being a TECHNICIAN) leaves their crews: `affected_jobs` lists the open jobs of those crews, ' +
      'and a crew they led gets its longest-serving member as foreman, or none.',
    tags: ['team'],
    auth: 'bearer',
    roles: ADMIN_ONLY,
    params: IdParams,
    body: UpdateUserBody,
    bodyExample: UPDATE_USER_EXAMPLE,
    responses: {
      200: { description: 'The user', schema: UpdatedTeamUser, example: UPDATED_USER_EXAMPLE },
      404: error('No such user in the workspace'),
      409: error('The last active ADMIN, or an invited user made active', 'The workspace must keep at least one active ADMIN: make another user ADMIN first.', 409),
    },
    handler: async ({ req, res, caller, params, body }) => {
      res.json(await deps.team.updateUser(caller, params.id, body, auditContext(req)));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/auth/invitations/accept',
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation: choose a password and log in',
    description: `The token of the emailed link, used once. A used, replaced, expired or unknown token is 400 with the one message "${UNUSABLE_TOKEN_MESSAGE}"`,
    tags: ['auth'],
    auth: 'none',
    body: AcceptInvitationBody,
    bodyExample: ACCEPT_INVITATION_EXAMPLE,
    responses: {
      200: { description: 'Active and logged in', schema: LoginResult, example: LOGIN_RESULT_EXAMPLE },
      400: error('The token cannot be used (the same for every reason)', UNUSABLE_TOKEN_MESSAGE, 400),
      422: error('The password breaks a password rule (length, a common password, your email’s name), at `password`'),
      429: REDEMPTIONS_LIMITED,
    },
    handler: async ({ req, res, body }) => {
      await deps.limiters.passwordChecks.consume(`link:${hashLinkToken(body.token)}`, res);
      res.json(await redeemLink(deps, body.token, res, () => deps.team.acceptInvitation(body, req.requestId)));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/auth/password-resets',
    operationId: 'requestPasswordReset',
    summary: 'Ask for a password reset link (always 202)',
    description:
      'The same 202 in the same time for every workspace and email, existing or not; an active account gets an email with a single-use link valid 60 minutes. ' +
      'Limited like login: ten per fifteen minutes for one workspace and email.',
    tags: ['auth'],
    auth: 'none',
    body: PasswordResetBody,
    bodyExample: PASSWORD_RESET_EXAMPLE,
    responses: {
      202: { description: 'Accepted (whatever exists)', schema: PasswordResetAccepted, example: { accepted: true } },
    },
    handler: async ({ req, res, body }) => {
      await deps.limiters.passwordResets.consume(LoginService.identityKey({ ...body, password: '' }), res);
      deps.team.requestPasswordReset(body, req.requestId);
      res.status(202).json({ accepted: true });
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/auth/password-resets/confirm',
    operationId: 'confirmPasswordReset',
    summary: 'Choose a new password with a reset link',
    description: `Every access token issued to the user before stops working at once. A used, replaced, expired or unknown token is 400 with the one message "${UNUSABLE_TOKEN_MESSAGE}"`,
    tags: ['auth'],
    auth: 'none',
    body: ConfirmPasswordResetBody,
    bodyExample: CONFIRM_PASSWORD_RESET_EXAMPLE,
    responses: {
      200: { description: 'The new password is set; logged in', schema: LoginResult, example: LOGIN_RESULT_EXAMPLE },
      400: error('The token cannot be used (the same for every reason)', UNUSABLE_TOKEN_MESSAGE, 400),
      422: error('The password breaks a password rule (length, a common password, your email’s name), at `password`'),
      429: REDEMPTIONS_LIMITED,
    },
    handler: async ({ req, res, body }) => {
      await deps.limiters.passwordChecks.consume(`link:${hashLinkToken(body.token)}`, res);
      res.json(await redeemLink(deps, body.token, res, () => deps.team.confirmPasswordReset(body, req.requestId)));
    },
  });

  route(host, {
    method: 'post',
    path: '/api/v1/auth/me/password',
    operationId: 'changePassword',
    summary: 'Change your password',
    description: 'Any role. Every access token issued before, this one included, stops working; log in again.',
    tags: ['auth'],
    auth: 'bearer',
    body: ChangePasswordBody,
    bodyExample: CHANGE_PASSWORD_EXAMPLE,
    responses: {
      204: { description: 'Changed' },
      400: error('`current_password` is not the caller\'s password', 'The current password is incorrect.', 400),
      422: error('`new_password` breaks a password rule (length, a common password, your email’s name)'),
    },
    handler: async ({ req, res, caller, body }) => {
      const key = `me:${caller.userId}`;
      await deps.limiters.passwordChecks.consume(key, res);
      await deps.team.changeOwnPassword(caller, body, auditContext(req));
      await deps.limiters.passwordChecks.clear(key, res);
      res.status(204).end();
    },
  });

  route(host, {
    method: 'patch',
    path: '/api/v1/auth/me',
    operationId: 'updateProfile',
    summary: 'Change your name',
    description: 'Any role; answers the profile as `GET /api/v1/auth/me` does.',
    tags: ['auth'],
    auth: 'bearer',
    body: UpdateProfileBody,
    bodyExample: UPDATE_PROFILE_EXAMPLE,
    responses: { 200: { description: 'Profile', schema: Profile, example: PROFILE_EXAMPLE } },
    handler: async ({ req, res, caller, body }) => {
      await deps.team.updateProfile(caller, body.full_name, auditContext(req));
      res.json(await callerProfile(deps.em, caller));
    },
  });
}
