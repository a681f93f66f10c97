import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../db/passwords';
import type { Role } from '../../db/entities/user';

/**
 * The test database as its owner: for fixtures and for looking at what the application wrote,
 * outside row-level security. Application code never connects like this.
 */
export function ownerPool(): pg.Pool {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the suite with `npm test`');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  return pool;
}

export interface TenantUser {
  id: string;
  email: string;
  role: Role;
  organizationId: string;
  password: string;
}

export interface Tenant {
  id: string;
  subdomain: string;
  users: Record<string, TenantUser>;
}

let cachedHash: { password: string; hash: string } | undefined;

/** A fresh tenant with one user per given role-name (e.g. { admin: 'ADMIN', tech: 'TECHNICIAN' }). */
export async function createTenant(pool: pg.Pool, people: Record<string, Role>): Promise<Tenant> {
  cachedHash ??= await (async () => {
    const password = `pw-${randomBytes(6).toString('hex')}`;
    return { password, hash: await hashPassword(password) };
  })();
  const subdomain = `t-${randomBytes(5).toString('hex')}`;
  const { rows } = await pool.query<{ id: string }>('insert into organizations (name, subdomain) values ($1, $2) returning id', [`Test ${subdomain}`, subdomain]);
  const orgId = rows[0]!.id;
  const users: Record<string, TenantUser> = {};
  for (const [name, role] of Object.entries(people)) {
    const email = `${name}@${subdomain}.test`;
    const inserted = await pool.query<{ id: string }>(
      `insert into users (organization_id, email, full_name, role, password_hash) values ($1, $2, $3, $4, $5) returning id`,
      [orgId, email, `${name} of ${subdomain}`, role, cachedHash.hash],
    );
    users[name] = { id: inserted.rows[0]!.id, email, role, organizationId: orgId, password: cachedHash.password };
  }
  return { id: orgId, subdomain, users };
}

export async function sandboxUser(pool: pg.Pool, subdomain: string, email: string): Promise<Omit<TenantUser, 'password'>> {
  const { rows } = await pool.query<{ id: string; role: Role; organization_id: string }>(
    `select u.id, u.role, u.organization_id from users u join organizations o on o.id = u.organization_id where o.subdomain = $1 and u.email = $2`,
    [subdomain, email],
  );
  if (!rows[0]) throw new Error(`no sandbox user ${email} in ${subdomain}`);
  return { id: rows[0].id, email, role: rows[0].role, organizationId: rows[0].organization_id };
}

/** Gives a tenant a rate-card revision (as the owner, through the same code the seed uses). */
export async function giveRateCard(organizationId: string, card: import('../../db/rate-cards/revisions').RateCardContent): Promise<string> {
  const { createOrm } = await import('../../db/orm');
  const { insertRateCardRevision } = await import('../../db/rate-cards/revisions');
  const orm = await createOrm({ url: process.env.DATABASE_URL!, poolMax: 1 });
  try {
    return await orm.em.fork().transactional((tx) => insertRateCardRevision(tx, organizationId, card));
  } finally {
    await orm.close(true);
  }
}
