import { createHash, randomBytes } from 'node:crypto';
import type { Mailer } from '../email/mailer';
import { invitationMail } from '../../domain/team/team-rules';

/**
 * D20's emailed links, one way for the API (invitations, resets) and the worker (a new
 * workspace's first ADMIN): a single-use token of 256 random bits of which only the SHA-256 is
 * stored, and a link to it on the deployment's public base URL.
 */
export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashLinkToken(token) };
}

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export type LinkPage = 'accept-invitation' | 'reset-password';

export function teamLink(publicBaseUrl: string, page: LinkPage, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/${page}?token=${encodeURIComponent(token)}`;
}

/** The invitation email (its Message-ID names the token's hash, so a resend of the same link is the same message). */
export async function mailInvitation(
  mailer: Mailer,
  input: { to: string; fullName: string; workspaceName: string; publicBaseUrl: string; token: string; expiresAt: Date },
): Promise<void> {
  const mail = invitationMail({ workspaceName: input.workspaceName, fullName: input.fullName, link: teamLink(input.publicBaseUrl, 'accept-invitation', input.token), expiresAt: input.expiresAt });
  await mailer.send({ to: input.to, subject: mail.subject, text: mail.text, messageId: `<invitation-${hashLinkToken(input.token).slice(0, 24)}@shade-office>` });
}
