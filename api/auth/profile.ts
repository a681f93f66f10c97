import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { inTenant } from '../../db/tenant-scope';
import { profileOf } from '../../db/users';
import { notFound } from '../../domain/errors/errors';
import { iso } from '../../domain/timestamps';
import type { Caller } from '../http/request-context';
import type { Profile } from './schemas';

/** The caller as the database says now: `GET /auth/me` and `PATCH /auth/me` answer it alike. */
export async function callerProfile(em: EntityManager, caller: Caller): Promise<z.infer<typeof Profile>> {
  const row = await inTenant(em, caller.organizationId, (tx) => profileOf(tx, caller.userId));
  if (!row) throw notFound('User not found.');
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    role: row.role,
    last_login_at: iso(row.last_login_at),
    organization: { id: row.org_id, name: row.org_name, subdomain: row.subdomain },
  };
}
