import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { KEY_TTL_HOURS, RUNNING_LEASE_SECONDS, type Holder } from '../../domain/idempotency/idempotency';

/**
 * D14's idempotency keys, per tenant, in PostgreSQL so that every API process shares them: the
 * storage of domain/idempotency (which decides). A claim is a `running` row, completed (`done`,
 * with the answer kept) in the transaction of its request's write, or deleted when the request
 * failed. Every function runs in a tenant transaction (db/tenant-scope.ts).
 */

/** What a key keeps: the first answer, given again to the same request. */
export interface KeptAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

interface KeyRow {
  fingerprint: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
}

/** What a row keeps of a fingerprint: its SHA-256, not the request. */
export const storedFingerprint = (fingerprint: string): string => createHash('sha256').update(fingerprint).digest('hex');

/**
 * Holds the tenant's key for the rest of the transaction, or answers false at once when another
 * transaction holds it (one whose claim has not committed), so that request is "in use" at once
 * instead of waiting on the other's row.
 */
export async function holdKey(em: EntityManager, key: string): Promise<boolean> {
  const [row] = await em.execute<{ held: boolean }[]>(
    `select pg_try_advisory_xact_lock(hashtextextended('idempotency:' || app_current_organization()::text || ':' || ?, 0)) as held`,
    [key],
  );
  return row?.held === true;
}

/** Who holds a key by a committed claim: an expired key, or one whose lease ran out, is forgotten first. */
export async function holderOf(em: EntityManager, key: string, fingerprint: string): Promise<Holder<KeptAnswer>> {
  await em.execute(
    `delete from idempotency_keys where key = ?
        and (created_at < clock_timestamp() - make_interval(hours => ?) or (state = 'running' and created_at < clock_timestamp() - make_interval(secs => ?)))`,
    [key, KEY_TTL_HOURS, RUNNING_LEASE_SECONDS],
  );
  const [row] = await em.execute<KeyRow[]>('select fingerprint, state, response_status, response_body, response_headers from idempotency_keys where key = ?', [key]);
  if (!row) return { by: 'nobody' };
  const sameRequest = row.fingerprint === storedFingerprint(fingerprint);
  if (row.state === 'running') return { by: 'claim', sameRequest, state: 'running' };
  return {
    by: 'claim',
    sameRequest,
    state: 'done',
    answer: { status: row.response_status!, body: JSON.parse(row.response_body!), headers: row.response_headers ?? {} },
  };
}

/** Claims a key this transaction holds (holdKey); false when another claim committed first. */
export async function insertClaim(em: EntityManager, key: string, fingerprint: string): Promise<boolean> {
  const inserted = await em.execute<{ key: string }[]>(
    `insert into idempotency_keys (organization_id, key, fingerprint, state) values (app_current_organization(), ?, ?, 'running')
     on conflict (organization_id, key) do nothing returning key`,
    [key, storedFingerprint(fingerprint)],
  );
  return inserted.length > 0;
}

/** Keeps the first answer of a claimed key, answered again for KEY_TTL_HOURS. */
export async function completeKey(em: EntityManager, key: string, answer: KeptAnswer): Promise<void> {
  await em.execute(
    `update idempotency_keys set state = 'done', response_status = ?, response_body = ?, response_headers = ?::jsonb where key = ? and state = 'running'`,
    [answer.status, JSON.stringify(answer.body), JSON.stringify(answer.headers), key],
  );
}

/** Frees a claimed key whose request failed: nothing was written, so the next attempt runs. */
export async function releaseKey(em: EntityManager, key: string): Promise<void> {
  await em.execute(`delete from idempotency_keys where key = ? and state = 'running'`, [key]);
}
