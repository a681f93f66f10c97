import type { EntityManager } from '@mikro-orm/postgresql';
import type { TokenPurpose } from '../../domain/team/team-rules';

/**
 * Single-use tokens of the team (D20): stored as the SHA-256 hex of the token (the caller hashes;
 * a 256-bit random token needs no slow hash), never the token itself.
 */

/**
 * A new token for the user: every open token of the same purpose is voided first, in the same
 * transaction, so only the newest link works.
 */
export async function issueUserToken(em: EntityManager, input: { userId: string; purpose: TokenPurpose; tokenHash: string; expiresAt: Date }): Promise<boolean> {
  await em.execute(`update user_tokens set voided_at = now() where user_id = ? and purpose = ? and used_at is null and voided_at is null`, [input.userId, input.purpose]);
  const rows = await em.execute<{ id: string }[]>(
    `insert into user_tokens (organization_id, user_id, purpose, token_hash, expires_at)
     select app_current_organization(), u.id, ?, ?, ? from users u where u.id = ? returning id`,
    [input.purpose, input.tokenHash, input.expiresAt, input.userId],
  );
  return rows.length > 0;
}

/** The tenant a token hash belongs to, through the one security-definer door (null: no such token). */
export async function userTokenTenant(em: EntityManager, tokenHash: string): Promise<string | null> {
  const [row] = await em.execute<{ id: string | null }[]>('select user_token_tenant(?) as id', [tokenHash]);
  return row?.id ?? null;
}

/** The user of a usable token of the purpose, without using it (the password is checked first). */
export async function peekUserToken(em: EntityManager, tokenHash: string, purpose: TokenPurpose): Promise<string | undefined> {
  const rows = await em.execute<{ user_id: string }[]>(
    `select user_id from user_tokens where token_hash = ? and purpose = ? and used_at is null and voided_at is null and expires_at > now()`,
    [tokenHash, purpose],
  );
  return rows[0]?.user_id;
}

/**
 * Uses a token once: one UPDATE that only matches an unused, unvoided, unexpired token of the
 * purpose. Two requests with one token: the second waits for the first's row lock, then finds
 * `used_at` set and matches nothing. Answers the user, or undefined for every kind of unusable token.
 */
export async function consumeUserToken(em: EntityManager, tokenHash: string, purpose: TokenPurpose): Promise<string | undefined> {
  const rows = await em.execute<{ user_id: string }[]>(
    `update user_tokens set used_at = now()
      where token_hash = ? and purpose = ? and used_at is null and voided_at is null and expires_at > now()
      returning user_id`,
    [tokenHash, purpose],
  );
  return rows[0]?.user_id;
}

/** Voids every open token of the user (of one purpose, or all): a deactivated user's links stop too. */
export async function voidUserTokens(em: EntityManager, userId: string, purpose?: TokenPurpose): Promise<void> {
  await em.execute(`update user_tokens set voided_at = now() where user_id = ? and used_at is null and voided_at is null and (?::text is null or purpose = ?)`, [
    userId,
    purpose ?? null,
    purpose ?? null,
  ]);
}

/**
 * D22 with D20: the first ADMIN of a new workspace (made by provisioning, not active, never
 * signed in) becomes invited with this token, through the worker's one door; undefined when no
 * such user is in the tenant selected (already invited and accepted, or never made).
 */
export async function issueFirstAdminInvitation(
  em: EntityManager,
  input: { email: string; tokenHash: string; expiresAt: Date },
): Promise<{ user_id: string; email: string; full_name: string; workspace_name: string } | undefined> {
  const [row] = await em.execute<{ user_id: string; email: string; full_name: string; workspace_name: string }[]>(
    'select user_id, email, full_name, workspace_name from issue_first_admin_invitation(?, ?, ?)',
    [input.email, input.tokenHash, input.expiresAt],
  );
  return row;
}
