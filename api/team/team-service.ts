import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { inTenant, selectTenant } from '../../db/tenant-scope';
import { pageOf } from '../../db/cursor';
import { commonPasswordRank } from '../../db/passwords';
import { recordAuditEvent } from '../../db/audit/audit-events';
import { recordLogin, resolveWorkspace } from '../../db/users';
import { currentOrganization, tenantStanding } from '../../db/organizations';
import { isSuspended, refuseIfSuspended } from '../../domain/organizations/suspension';
import { lockJobClock } from '../../db/fsm/jobs';
import { crewsOfMember, leaveCrew, openJobsOfCrews } from '../../db/fsm/crews';
import {
  activateInvitedUser,
  insertInvitedUser,
  lockActiveAdmins,
  passwordHashOf,
  setPassword,
  TEAM_USER_KEYSET,
  teamUserByEmail,
  teamUserById,
  teamUserPage,
  tokenVersionOf,
  updateTeamUser,
  workspaceName,
  type TeamUserRow,
} from '../../db/team/team-users';
import { consumeUserToken, issueUserToken, peekUserToken, userTokenTenant, voidUserTokens } from '../../db/team/user-tokens';
import { badRequest, conflict, notFound, validationFailed } from '../../domain/errors/errors';
import { fieldChanges, type AuditActor } from '../../domain/audit/audit-entry';
import { passwordComplaint } from '../../domain/team/passwords';
import {
  passwordResetMail,
  removesLastAdmin,
  successorForeman,
  tokenExpiry,
  UNUSABLE_TOKEN_MESSAGE,
  userStatus,
  type TokenPurpose,
} from '../../domain/team/team-rules';
import { iso } from '../../domain/timestamps';
import type { Mailer } from '../../infra/email/mailer';
import { hashLinkToken, mailInvitation, newLinkToken, teamLink, workspaceNamedBy } from '../../infra/team/links';
import type { Caller } from '../http/request-context';
import { cursorPosition } from '../http/pagination';
import type { PasswordHasher } from '../auth/login-service';
import { ACCESS_TOKEN_SECONDS, type TokenService } from '../auth/tokens';
import type { LoginResult } from '../auth/schemas';
import type {
  AcceptInvitationBody,
  ChangePasswordBody,
  ConfirmPasswordResetBody,
  Invitation,
  InvitationBody,
  PasswordResetBody,
  TeamUser,
  TeamUserQuery,
  UpdatedTeamUser,
  UpdateUserBody,
} from './schemas';

/** Who a request is and which request it is, for the audit log (api/http/audit-actor.ts). */
export interface AuditContext {
  actor: AuditActor;
  requestId: string | null;
}

export interface TeamDependencies {
  em: EntityManager;
  hasher: PasswordHasher;
  tokens: TokenService;
  /** SMTP (D13's path); without it links are not mailed (a warning is logged). */
  mailer: Mailer | undefined;
  /** Where the emailed links point: PUBLIC_BASE_URL. */
  publicBaseUrl: string;
  logger: Logger;
}

export function toTeamUser(row: TeamUserRow): TeamUser {
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    role: row.role,
    status: userStatus(row),
    last_login_at: iso(row.last_login_at),
    created_at: iso(row.created_at),
  };
}

/**
 * The team (D20): the users list, invitations, accepting one, password resets, one's own
 * password and name, and role and status changes with the last-ADMIN rule. Every change records
 * its audit event (D22) in the transaction of the change; mail goes out after the commit.
 */
export class TeamService {
  constructor(private readonly deps: TeamDependencies) {}

  async list(caller: Caller, query: TeamUserQuery): Promise<{ data: TeamUser[]; next: string | null }> {
    const after = query.cursor ? cursorPosition(TEAM_USER_KEYSET, query.cursor) : undefined;
    return inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const { rows, next } = pageOf(await teamUserPage(tx, after, query.limit), query.limit, TEAM_USER_KEYSET);
      return { data: rows.map(toTeamUser), next };
    });
  }

  /** D20: a new invited user and their 72-hour link, mailed; an email already in the tenant is 409. */
  async invite(caller: Caller, body: InvitationBody, audit: AuditContext): Promise<Invitation> {
    const link = newLinkToken(caller.organizationId);
    const issued = await inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const id = await insertInvitedUser(tx, { email: body.email, fullName: body.full_name, role: body.role });
      if (!id) throw conflict('A user with this email is already in the workspace.');
      const expiresAt = tokenExpiry('invitation', await databaseNow(tx));
      await issueUserToken(tx, { userId: id, purpose: 'invitation', tokenHash: link.hash, expiresAt });
      const user = (await teamUserById(tx, id))!;
      await recordAuditEvent(tx, caller.organizationId, {
        ...audit,
        action: 'user.invited',
        entityType: 'user',
        entityId: id,
        changes: fieldChanges({}, { email: user.email, full_name: user.full_name, role: user.role, status: 'invited' }),
      });
      return { user, expiresAt, workspace: await workspaceName(tx) };
    });
    await this.mailInvitation(issued.user, issued.workspace, link.token, issued.expiresAt);
    return { ...invitationOf(issued.user), invitation_expires_at: iso(issued.expiresAt) };
  }

  /** D20: a new link for an invited user; the old one stops working. */
  async resendInvitation(caller: Caller, userId: string, audit: AuditContext): Promise<Invitation> {
    const link = newLinkToken(caller.organizationId);
    const issued = await inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const user = await teamUserById(tx, userId, true);
      if (!user) throw notFound('No such user in this workspace.');
      if (!user.invited) throw conflict('This user has already accepted their invitation.');
      const expiresAt = tokenExpiry('invitation', await databaseNow(tx));
      await issueUserToken(tx, { userId, purpose: 'invitation', tokenHash: link.hash, expiresAt });
      await recordAuditEvent(tx, caller.organizationId, { ...audit, action: 'user.invitation_resent', entityType: 'user', entityId: userId, changes: [] });
      return { user, expiresAt, workspace: await workspaceName(tx) };
    });
    await this.mailInvitation(issued.user, issued.workspace, link.token, issued.expiresAt);
    return { ...invitationOf(issued.user), invitation_expires_at: iso(issued.expiresAt) };
  }

  /** D20: the invited user chooses their password and becomes active; answers as login does. */
  async acceptInvitation(body: AcceptInvitationBody, requestId: string): Promise<z.infer<typeof LoginResult>> {
    return this.useLink('invitation', body.token, body.password, requestId, async (tx, user, passwordHash, actor) => {
      await activateInvitedUser(tx, user.id, passwordHash, body.full_name);
      const after = (await teamUserById(tx, user.id))!;
      await recordAuditEvent(tx, user.organization_id, {
        actor,
        requestId,
        action: 'user.invitation_accepted',
        entityType: 'user',
        entityId: user.id,
        changes: fieldChanges({ full_name: user.full_name, status: 'invited' }, { full_name: after.full_name, status: userStatus(after) }),
      });
    });
  }

  /**
   * D20: always the same 202 in the same time (section 4.2's rule for login): the answer waits
   * for nothing that depends on the workspace or the email. Looking them up, issuing the token
   * (for an active account only), auditing it and mailing the link all happen after the answer,
   * so neither a lookup, a write nor the SMTP round trip can tell an account from none.
   */
  requestPasswordReset(body: PasswordResetBody, requestId: string): void {
    setImmediate(() => {
      this.issuePasswordReset(body, requestId).catch((error: unknown) => this.deps.logger.error({ err: error }, 'a password reset could not be issued'));
    });
  }

  /** The work behind a reset request; answers whether a link was mailed (for tests of the rule). */
  async issuePasswordReset(body: PasswordResetBody, requestId: string): Promise<boolean> {
    const outcome = await this.deps.em.fork().transactional(async (tx) => {
      const organizationId = await resolveWorkspace(tx, body.subdomain);
      if (!organizationId) return undefined;
      const link = newLinkToken(organizationId);
      await selectTenant(tx, organizationId);
      const found = await teamUserByEmail(tx, body.email);
      if (!found || userStatus(found) !== 'active') return undefined;
      // D22: a suspended workspace's people cannot use a link until it is resumed: none is mailed.
      if (isSuspended(await tenantStanding(tx))) return undefined;
      const expiresAt = tokenExpiry('password_reset', await databaseNow(tx));
      await issueUserToken(tx, { userId: found.id, purpose: 'password_reset', tokenHash: link.hash, expiresAt });
      await recordAuditEvent(tx, organizationId, {
        actor: { type: 'user', id: found.id, email: found.email },
        requestId,
        action: 'user.password_reset_requested',
        entityType: 'user',
        entityId: found.id,
        changes: [],
      });
      return { user: found, expiresAt, workspace: await workspaceName(tx), link };
    });
    if (!outcome) return false;
    const { link } = outcome;
    const mail = passwordResetMail({ workspaceName: outcome.workspace, link: teamLink(this.deps.publicBaseUrl, 'reset-password', link.token), expiresAt: outcome.expiresAt });
    await this.send(outcome.user.email, mail, `password-reset-${link.hash.slice(0, 24)}`);
    return true;
  }

  /** D20: a new password from a reset link; every earlier access token stops working. */
  async confirmPasswordReset(body: ConfirmPasswordResetBody, requestId: string): Promise<z.infer<typeof LoginResult>> {
    return this.useLink('password_reset', body.token, body.password, requestId, async (tx, user, passwordHash, actor) => {
      await setPassword(tx, user.id, passwordHash);
      await recordAuditEvent(tx, user.organization_id, { actor, requestId, action: 'user.password_reset', entityType: 'user', entityId: user.id, changes: [] });
    });
  }

  /** D20: one's own password; every earlier access token (this one included) stops working. */
  async changeOwnPassword(caller: Caller, body: ChangePasswordBody, audit: AuditContext): Promise<void> {
    const current = await inTenant(this.deps.em, caller.organizationId, (tx) => passwordHashOf(tx, caller.userId));
    // 400, not 422: the body is well formed; it names a password that is not the caller's.
    if (!current || !(await this.deps.hasher.verify(current, body.current_password))) {
      throw badRequest('The current password is incorrect.', { current_password: 'Is not your current password.' });
    }
    this.checkPassword(body.new_password, caller.email, 'new_password');
    const passwordHash = await this.deps.hasher.hash(body.new_password);
    await inTenant(this.deps.em, caller.organizationId, async (tx) => {
      await setPassword(tx, caller.userId, passwordHash);
      await recordAuditEvent(tx, caller.organizationId, { ...audit, action: 'user.password_changed', entityType: 'user', entityId: caller.userId, changes: [] });
    });
  }

  /** D20: one's own name. */
  async updateProfile(caller: Caller, fullName: string, audit: AuditContext): Promise<void> {
    await inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const before = await teamUserById(tx, caller.userId, true);
      if (!before) throw notFound('User not found.');
      await updateTeamUser(tx, caller.userId, { fullName });
      const changes = fieldChanges({ full_name: before.full_name }, { full_name: fullName });
      if (changes.length > 0) await recordAuditEvent(tx, caller.organizationId, { ...audit, action: 'user.profile_updated', entityType: 'user', entityId: caller.userId, changes });
    });
  }

  /**
   * D20: name, role and status. The last active ADMIN can be neither demoted nor deactivated
   * (409). A technician who is deactivated (or stops being a TECHNICIAN) leaves their crews: the
   * answer lists those crews' open jobs, and a crew they led gets its longest-serving member as
   * foreman, or none.
   */
  async updateUser(caller: Caller, id: string, body: UpdateUserBody, audit: AuditContext): Promise<UpdatedTeamUser> {
    return inTenant(this.deps.em, caller.organizationId, async (tx) => {
      // Crews and jobs may change: the job clock first, as every crew change takes it (D11 sync).
      await lockJobClock(tx);
      const activeAdmins = await lockActiveAdmins(tx);
      const before = await teamUserById(tx, id, true);
      if (!before) throw notFound('No such user in this workspace.');
      const status = userStatus(before);
      if (body.status === 'active' && status === 'invited') throw conflict('An invited user becomes active by accepting their invitation.');
      if (removesLastAdmin({ role: before.role, status }, { role: body.role, status: body.status }, activeAdmins)) {
        throw conflict('The workspace must keep at least one active ADMIN: make another user ADMIN first.');
      }
      const deactivating = body.status === 'deactivated' && status !== 'deactivated';
      await updateTeamUser(tx, id, {
        fullName: body.full_name,
        role: body.role,
        active: body.status === undefined ? undefined : body.status === 'active',
      });
      // Their links stop with them (an invited user who is deactivated is no longer invited).
      if (deactivating) await voidUserTokens(tx, id);
      const leavesCrews = before.role === 'TECHNICIAN' && (deactivating || (body.role !== undefined && body.role !== 'TECHNICIAN'));
      const affected = leavesCrews ? await this.leaveCrews(tx, id) : [];
      const after = (await teamUserById(tx, id))!;
      const changes = fieldChanges(
        { full_name: before.full_name, role: before.role, status },
        { full_name: after.full_name, role: after.role, status: userStatus(after) },
      );
      if (changes.length > 0) await recordAuditEvent(tx, caller.organizationId, { ...audit, action: 'user.updated', entityType: 'user', entityId: id, changes });
      return { ...toTeamUser(after), affected_jobs: affected };
    });
  }

  private async leaveCrews(tx: EntityManager, userId: string): Promise<UpdatedTeamUser['affected_jobs']> {
    const crews = await crewsOfMember(tx, userId);
    for (const crew of crews) {
      const foreman = crew.foreman_user_id === userId ? successorForeman(crew.members, userId) : crew.foreman_user_id;
      await leaveCrew(tx, crew.id, userId, foreman);
    }
    const jobs = await openJobsOfCrews(tx, crews.map((c) => c.id));
    return jobs.map((job) => ({ job_id: job.id, crew_id: job.crew_id, status: job.status, scheduled_date: job.scheduled_date }));
  }

  /**
   * The single use of an emailed link: the token's tenant through the one narrow door, the
   * password checked against its user (422 before the token is spent), then the token consumed
   * by one conditional UPDATE in the transaction of the change (of two at once, one wins).
   * Every unusable token, whatever the reason, is the same 400.
   */
  /**
   * The workspace whose failed link redemptions a redemption of `token` counts against: the one
   * the token names when it exists, else undefined (tokens naming none, or one that does not
   * exist, share one count), so a guesser cannot spread its guesses over made-up workspaces.
   */
  async redemptionWorkspace(token: string): Promise<string | undefined> {
    const named = workspaceNamedBy(token);
    if (!named) return undefined;
    const found = await inTenant(this.deps.em, named, (tx) => currentOrganization(tx));
    return found ? named : undefined;
  }

  private async useLink(
    purpose: TokenPurpose,
    token: string,
    password: string,
    requestId: string,
    change: (tx: EntityManager, user: TeamUserRow & { organization_id: string }, passwordHash: string, actor: AuditActor) => Promise<void>,
  ): Promise<z.infer<typeof LoginResult>> {
    const tokenHash = hashLinkToken(token);
    const organizationId = await this.deps.em.fork().transactional((tx) => userTokenTenant(tx, tokenHash));
    if (!organizationId) throw badRequest(UNUSABLE_TOKEN_MESSAGE);
    const { holder, standing } = await inTenant(this.deps.em, organizationId, async (tx) => {
      const userId = await peekUserToken(tx, tokenHash, purpose);
      return { holder: userId ? await teamUserById(tx, userId) : undefined, standing: await tenantStanding(tx) };
    });
    if (!holder) throw badRequest(UNUSABLE_TOKEN_MESSAGE);
    // D22: told only to the holder of a good link (as login tells only who knows the password);
    // the link is not spent, and works again once the workspace is resumed.
    refuseIfSuspended(standing);
    this.checkPassword(password, holder.email, 'password');
    const passwordHash = await this.deps.hasher.hash(password);
    const user = await inTenant(this.deps.em, organizationId, async (tx) => {
      // Suspended in the meantime: refused the same, the link not spent (the refusal rolls back).
      refuseIfSuspended(await tenantStanding(tx));
      const userId = await consumeUserToken(tx, tokenHash, purpose);
      if (userId !== holder.id) throw badRequest(UNUSABLE_TOKEN_MESSAGE);
      const current = (await teamUserById(tx, userId, true))!;
      const actor: AuditActor = { type: 'user', id: current.id, email: current.email };
      await change(tx, { ...current, organization_id: organizationId }, passwordHash, actor);
      // Any other open link of this purpose goes with it.
      await voidUserTokens(tx, userId, purpose);
      await recordLogin(tx, userId);
      return { ...(await teamUserById(tx, userId))!, token_version: await tokenVersionOf(tx, userId) };
    });
    const accessToken = await this.deps.tokens.issue({ userId: user.id, organizationId, role: user.role, tokenVersion: user.token_version });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      user: { id: user.id, email: user.email, role: user.role, organization_id: organizationId },
    };
  }

  /** D20's rules, as a 422 at `path`. */
  private checkPassword(password: string, email: string, path: 'password' | 'new_password'): void {
    const complaint = passwordComplaint(password, { email, commonRank: commonPasswordRank });
    if (complaint) throw validationFailed({ [path]: complaint });
  }

  private async mailInvitation(user: TeamUserRow, workspace: string, token: string, expiresAt: Date): Promise<void> {
    if (!this.deps.mailer) {
      this.deps.logger.warn('no SMTP_URL: an invitation email was not sent');
      return;
    }
    // The invitation stands even if the mail server fails: the ADMIN can send a new link.
    await mailInvitation(this.deps.mailer, { to: user.email, fullName: user.full_name, workspaceName: workspace, publicBaseUrl: this.deps.publicBaseUrl, token, expiresAt }).catch(
      (error: unknown) => this.deps.logger.error({ err: error }, 'an invitation email could not be sent'),
    );
  }

  private async send(to: string, mail: { subject: string; text: string }, id: string): Promise<void> {
    if (!this.deps.mailer) {
      this.deps.logger.warn({ subject: mail.subject }, 'no SMTP_URL: a team email was not sent');
      return;
    }
    try {
      await this.deps.mailer.send({ to, subject: mail.subject, text: mail.text, messageId: `<${id}@shade-office>` });
    } catch (error) {
      this.deps.logger.error({ err: error, subject: mail.subject }, 'a team email could not be sent');
      throw error;
    }
  }
}

function invitationOf(user: TeamUserRow): Omit<Invitation, 'invitation_expires_at'> {
  return { id: user.id, email: user.email, full_name: user.full_name, role: user.role, status: 'invited' };
}

/** Expiry is reckoned on the database's clock, the one that consumes the token. */
async function databaseNow(tx: EntityManager): Promise<Date> {
  const [row] = await tx.execute<{ now: Date }[]>('select now() as now');
  return new Date(row!.now);
}
