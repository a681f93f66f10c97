import { createHash, randomBytes } from 'node:crypto';
import type { Mailer } from '../email/mailer';
import { invitationMail } from '../../domain/team/team-rules';

/**
 * D20's emailed links, one way for the API (invitations, resets) and the worker (a new
 * workspace's first ADMIN): a single-use token of 256 random bits, after the id of the workspace
 * it belongs to, of which only the SHA-256 is stored, and a link to it on the deployment's public
 * base URL.
 */
export function newLinkToken(organizationId: string): { token: string; hash: string } {
  const token = `${organizationId.replaceAll('-', '').toLowerCase()}${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashLinkToken(token) };
}

/** The 43 characters of a token's 256 random bits. */
const RANDOM_PART_LENGTH = 43;

/**
 * The workspace a link token names (its first 32 characters are the organization's id, in hex
 * without dashes; the 256 random bits follow), so that failed redemptions can be counted per
 * workspace before the token is looked up. Not proof of anything: a guesser writes any prefix it
 * likes; the caller checks that the workspace exists. Undefined for a token of another form.
 */
export function workspaceNamedBy(token: string): string | undefined {
  const match = /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})/.exec(token);
  if (!match || token.length !== 32 + RANDOM_PART_LENGTH) return undefined;
  return match.slice(1).join('-');
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
