import type { EntityManager } from '@mikro-orm/postgresql';
import { keyset, microseconds, beyond, exactTimestamp, TimeAndId } from '../cursor';
import { tablesOf } from '../tables';
import type { Role } from '../entities/user';

/**
 * The team (D20): users as their ADMIN manages them. Every function runs in the caller's tenant
 * transaction (row-level security picks the tenant); none reads or writes a password hash but
 * the two that set one.
 */

export interface TeamUserRow {
  id: string;
  email: string;
  full_name: string;
  role: Role;
  active: boolean;
  invited: boolean;
  last_login_at: Date | null;
  created_at: Date;
  cursor_created_at: string;
}

/** Users by when they joined, then id (a new invitation lands on the last page). */
export const TEAM_USER_KEYSET = keyset(TimeAndId, (row: TeamUserRow) => [row.cursor_created_at, row.id] as const);

function teamUsers(em: EntityManager) {
  return tablesOf(em)
    .selectFrom('users as u')
    .select((eb) => [
      'u.id',
      'u.email',
      'u.full_name',
      eb.ref('u.role').$castTo<Role>().as('role'),
      'u.active',
      'u.invited',
      'u.last_login_at',
      'u.created_at',
      microseconds(eb.ref('u.created_at')).as('cursor_created_at'),
    ]);
}

/** The one list query of the team: a page (`limit` + 1 rows) after a position of TEAM_USER_KEYSET. */
export function teamUserPage(em: EntityManager, after: readonly [string, string] | undefined, limit: number): Promise<TeamUserRow[]> {
  let query = teamUsers(em);
  if (after) query = query.where((eb) => beyond([eb.ref('u.created_at'), eb.ref('u.id')], 'asc', [exactTimestamp(after[0]), after[1]]));
  return query.orderBy('u.created_at').orderBy('u.id').limit(limit + 1).execute() as Promise<TeamUserRow[]>;
}

/** One user of the tenant; `lock` holds the row for the rest of the transaction. */
export async function teamUserById(em: EntityManager, id: string, lock = false): Promise<TeamUserRow | undefined> {
  if (lock) await em.execute('select id from users where id = ? for update', [id]);
  return (await teamUsers(em).where('u.id', '=', id).executeTakeFirst()) as TeamUserRow | undefined;
}

export async function teamUserByEmail(em: EntityManager, email: string): Promise<TeamUserRow | undefined> {
  return (await teamUsers(em)
    .where((eb) => eb(eb.fn('lower', [eb.ref('u.email')]), '=', email.trim().toLowerCase()))
    .executeTakeFirst()) as TeamUserRow | undefined;
}

/** A new invited user (no password yet, cannot log in); undefined when the email is taken in the tenant. */
export async function insertInvitedUser(em: EntityManager, user: { email: string; fullName: string; role: Role }): Promise<string | undefined> {
  const rows = await em.execute<{ id: string }[]>(
    `insert into users (organization_id, email, full_name, role, password_hash, active, invited)
     values (app_current_organization(), ?, ?, ?, null, false, true)
     on conflict (organization_id, lower(email)) do nothing returning id`,
    [user.email.trim(), user.fullName, user.role],
  );
  return rows[0]?.id;
}

/**
 * The tenant's active ADMINs, locked, so that two ADMINs demoting each other at once cannot
 * both pass the last-ADMIN rule (the second waits, then counts one).
 */
export async function lockActiveAdmins(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(`select id from users where role = 'ADMIN' and active order by id for update`);
  return rows.length;
}

/** Name, role and whether active; deactivating ends an invitation and every access token (D20). */
export async function updateTeamUser(em: EntityManager, id: string, change: { fullName?: string | undefined; role?: Role | undefined; active?: boolean | undefined }): Promise<void> {
  await em.execute(
    `update users set full_name = coalesce(?, full_name), role = coalesce(?, role), active = coalesce(?, active),
            invited = invited and coalesce(?, true),
            token_version = token_version + case when ? then 1 else 0 end
      where id = ?`,
    [change.fullName ?? null, change.role ?? null, change.active ?? null, change.active ?? null, change.active === false, id],
  );
}

/** D20: accepting makes an invited user active with their password (and optionally their name). */
export async function activateInvitedUser(em: EntityManager, id: string, passwordHash: string, fullName: string | undefined): Promise<void> {
  await em.execute(`update users set invited = false, active = true, password_hash = ?, full_name = coalesce(?, full_name) where id = ? and invited`, [
    passwordHash,
    fullName ?? null,
    id,
  ]);
}

/** A new password; every access token issued before stops working (D20: the version rises). */
export async function setPassword(em: EntityManager, id: string, passwordHash: string): Promise<void> {
  await em.execute('update users set password_hash = ?, token_version = token_version + 1 where id = ?', [passwordHash, id]);
}

export async function tokenVersionOf(em: EntityManager, id: string): Promise<number> {
  const [row] = await em.execute<{ token_version: number }[]>('select token_version from users where id = ?', [id]);
  return row?.token_version ?? 0;
}

/** The stored hash, to check a current password (never leaves the service). */
export async function passwordHashOf(em: EntityManager, id: string): Promise<string | null> {
  const [row] = await em.execute<{ password_hash: string | null }[]>('select password_hash from users where id = ?', [id]);
  return row?.password_hash ?? null;
}

/** The workspace's display name, for the mail. */
export async function workspaceName(em: EntityManager): Promise<string> {
  const [row] = await em.execute<{ name: string }[]>('select name from organizations where id = app_current_organization()');
  return row?.name ?? '';
}
