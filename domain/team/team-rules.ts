/** The roles of section 5.8 (db/entities/user.ts stores them). */
type Role = 'ADMIN' | 'SALES' | 'TECHNICIAN';

/**
 * The rules of the team (D20) as data and pure functions: how long each single-use token lives,
 * how a user's status reads, the last-ADMIN rule, and who leads a crew a technician leaves.
 */

export type TokenPurpose = 'invitation' | 'password_reset';

/** D20: an invitation link is good for 72 hours, a reset link for 60 minutes. */
export const TOKEN_LIFETIME_SECONDS: Record<TokenPurpose, number> = {
  invitation: 72 * 60 * 60,
  password_reset: 60 * 60,
};

/** The time a token of `purpose` issued at `issuedAt` stops working. */
export function tokenExpiry(purpose: TokenPurpose, issuedAt: Date): Date {
  return new Date(issuedAt.getTime() + TOKEN_LIFETIME_SECONDS[purpose] * 1000);
}

/**
 * D20: the same answer for an unknown, used, voided or expired token, so an answer never says
 * which of them a guess hit.
 */
export const UNUSABLE_TOKEN_MESSAGE = 'This link is not valid: it may have expired, been used, or been replaced by a newer one.';

/** D20: at most this many new invitation links per user per hour. */
export const INVITATION_RESENDS_PER_HOUR = 5;

/**
 * D20: at most this many new invitations per workspace per hour: room for a contractor's whole
 * office and crews in one sitting, not for mailing strangers by the thousand.
 */
export const INVITATIONS_PER_HOUR = 30;

export const USER_STATUSES = ['active', 'invited', 'deactivated'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** How the stored flags read as D20's status. */
export function userStatus(user: { invited: boolean; active: boolean }): UserStatus {
  if (user.invited) return 'invited';
  return user.active ? 'active' : 'deactivated';
}

/**
 * D20: the tenant's last active ADMIN can be neither demoted nor deactivated. `activeAdmins` is
 * the number of active ADMINs before the change.
 */
export function removesLastAdmin(
  user: { role: Role; status: UserStatus },
  change: { role?: Role | undefined; status?: UserStatus | undefined },
  activeAdmins: number,
): boolean {
  if (user.role !== 'ADMIN' || user.status !== 'active') return false;
  const stillAdmin = (change.role ?? user.role) === 'ADMIN';
  const stillActive = (change.status ?? user.status) === 'active';
  return !(stillAdmin && stillActive) && activeAdmins <= 1;
}

/**
 * D20: a crew whose foreman leaves is led by its longest-serving remaining member (earliest
 * `joinedAt`, ties by id so the choice is stable), or by no one when none remains.
 */
export function successorForeman(members: readonly { userId: string; joinedAt: Date }[], leaving: string): string | null {
  const remaining = members.filter((m) => m.userId !== leaving);
  remaining.sort((a, b) => a.joinedAt.getTime() - b.joinedAt.getTime() || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
  return remaining[0]?.userId ?? null;
}

/** Mail of the team (D20): the texts, so every sender words them alike. */
export function invitationMail(input: { workspaceName: string; fullName: string; link: string; expiresAt: Date }): { subject: string; text: string } {
  return {
    subject: `You are invited to ${input.workspaceName} on Shade Office`,
    text:
      `Hello ${input.fullName},\n\n` +
      `You have been invited to join ${input.workspaceName} on Shade Office. Choose your password here:\n\n` +
      `${input.link}\n\n` +
      `The link works once and until ${input.expiresAt.toISOString()} (72 hours). If you were not expecting this, ignore this email.\n`,
  };
}

export function passwordResetMail(input: { workspaceName: string; link: string; expiresAt: Date }): { subject: string; text: string } {
  return {
    subject: `Reset your Shade Office password for ${input.workspaceName}`,
    text:
      `Someone asked to reset the password of this account in ${input.workspaceName}. Choose a new password here:\n\n` +
      `${input.link}\n\n` +
      `The link works once and until ${input.expiresAt.toISOString()} (60 minutes). If it was not you, ignore this email: your password is unchanged.\n`,
  };
}
