import type { EntityManager } from '@mikro-orm/postgresql';
import type { Role } from './entities/user';
import { tablesOf } from './tables';

/**
 * Reads and writes of `users` outside the entity layer. Every function but `resolveWorkspace`
 * runs inside a tenant transaction (db/tenant-scope.ts), so row-level security picks the tenant.
 */

/** The tenant of a subdomain, through the one security-definer function that answers only its id. */
export async function resolveWorkspace(em: EntityManager, subdomain: string): Promise<string | null> {
  const [workspace] = await em.execute<{ id: string | null }[]>('select resolve_workspace(?) as id', [subdomain]);
  return workspace?.id ?? null;
}

export interface LoginUserRow {
  id: string;
  email: string;
  role: Role;
  active: boolean;
  /** Null while an invitation is not accepted (such a user is not active either). */
  password_hash: string | null;
  token_version: number;
  /** D22: when the workspace was suspended, null when it is not (domain/organizations/suspension.ts). */
  suspendedAt: Date | null;
}

/** The user a login names, emails compared without regard to case. */
export async function userByEmailForLogin(em: EntityManager, email: string): Promise<LoginUserRow | undefined> {
  const rows = await em.execute<LoginUserRow[]>(
    `select u.id, u.email, u.role, u.active, u.password_hash, u.token_version, o.suspended_at as "suspendedAt"
       from users u join organizations o on o.id = u.organization_id where lower(u.email) = lower(?)`,
    [email],
  );
  return rows[0];
}

export async function recordLogin(em: EntityManager, userId: string): Promise<void> {
  await em.execute('update users set last_login_at = now() where id = ?', [userId]);
}

/** Who a bearer token's subject is now (section 5.3: read on every request), its token version (D20), and whether their workspace is suspended (D22). */
export async function userForAuthentication(
  em: EntityManager,
  userId: string,
): Promise<{ id: string; email: string; role: Role; active: boolean; token_version: number; suspendedAt: Date | null } | undefined> {
  const [user] = await em.execute<{ id: string; email: string; role: Role; active: boolean; token_version: number; suspendedAt: Date | null }[]>(
    'select u.id, u.email, u.role, u.active, u.token_version, o.suspended_at as "suspendedAt" from users u join organizations o on o.id = u.organization_id where u.id = ?',
    [userId],
  );
  return user;
}

/** A user's role and whether they are active, for the checks that depend on both. */
export async function userRoleAndActive(em: EntityManager, userId: string): Promise<{ role: string; active: boolean } | undefined> {
  const [user] = await em.execute<{ role: string; active: boolean }[]>('select role, active from users where id = ?', [userId]);
  return user;
}

/** A user's full name as other records show it (undefined when not of the tenant). */
export async function userFullName(em: EntityManager, userId: string): Promise<string | undefined> {
  const [user] = await em.execute<{ full_name: string }[]>('select full_name from users where id = ?', [userId]);
  return user?.full_name;
}

export interface ProfileRow {
  id: string;
  email: string;
  full_name: string;
  role: Role;
  last_login_at: Date | null;
  org_id: string;
  org_name: string;
  subdomain: string;
}

/** The user with their organization, for `GET /auth/me`. */
export async function profileOf(em: EntityManager, userId: string): Promise<ProfileRow | undefined> {
  const [row] = await em.execute<ProfileRow[]>(
    `select u.id, u.email, u.full_name, u.role, u.last_login_at, o.id as org_id, o.name as org_name, o.subdomain
       from users u join organizations o on o.id = u.organization_id where u.id = ?`,
    [userId],
  );
  return row;
}

export interface PersonRecord {
  id: string;
  full_name: string;
  email: string;
  role: string;
}

/** Users as other records name them (name, email, role, never a credential): the batch loader of people. */
export function peopleByIds(em: EntityManager, ids: readonly string[]): Promise<PersonRecord[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return tablesOf(em).selectFrom('users').select(['id', 'full_name', 'email', 'role']).where('id', 'in', ids).execute();
}
