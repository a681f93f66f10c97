import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * D14's idempotency keys, per tenant, in PostgreSQL so that every API process shares them. A
 * key is claimed (`running`) before its request runs, completed (`done`, with the response kept)
 * after it, and released when the request failed. A key lives 24 hours from its claim; after
 * that it is claimed anew. Every function runs in a tenant transaction (db/tenant-scope.ts).
 */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;
/**
 * A key still `running` this long after its claim belongs to a process that died: its request's
 * write and its answer commit together, so it wrote nothing, and the key is claimed anew.
 */
export const RUNNING_LEASE_SECONDS = 60;

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type Claim =
  | { claimed: true }
  | { claimed: false; fingerprint: string; state: 'running' }
  | { claimed: false; fingerprint: string; state: 'done'; response: StoredResponse };

interface KeyRow {
  fingerprint: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
}

/** Claims `key` for a request of this fingerprint, or says what holds it. */
/**
 * For a claim made inside a longer transaction (GraphQL's createQuote, whose claim row stays
 * uncommitted until the whole request commits): holds the tenant's key for the rest of the
 * transaction, or answers false at once when another transaction holds it, so a second request
 * with the key answers "in use" (D14's 409) instead of waiting on the first one's row.
 */
export async function holdKeyForTransaction(em: EntityManager, key: string): Promise<boolean> {
  const [row] = await em.execute<{ held: boolean }[]>(
    `select pg_try_advisory_xact_lock(hashtextextended('idempotency:' || app_current_organization()::text || ':' || ?, 0)) as held`,
    [key],
  );
  return row?.held === true;
}

export async function claimKey(em: EntityManager, key: string, fingerprint: string): Promise<Claim> {
  // An expired key, or one whose lease ran out, is forgotten first, so the request runs anew.
  await em.execute(
    `delete from idempotency_keys where key = ?
        and (created_at < clock_timestamp() - make_interval(hours => ?) or (state = 'running' and created_at < clock_timestamp() - make_interval(secs => ?)))`,
    [key, IDEMPOTENCY_KEY_TTL_HOURS, RUNNING_LEASE_SECONDS],
  );
  const inserted = await em.execute<{ key: string }[]>(
    `insert into idempotency_keys (organization_id, key, fingerprint, state) values (app_current_organization(), ?, ?, 'running')
     on conflict (organization_id, key) do nothing returning key`,
    [key, fingerprint],
  );
  if (inserted.length > 0) return { claimed: true };
  const [row] = await em.execute<KeyRow[]>(
    'select fingerprint, state, response_status, response_body, response_headers from idempotency_keys where key = ?',
    [key],
  );
  // Deleted between the insert and the select (its request failed): it is in use until then.
  if (!row) return { claimed: false, fingerprint, state: 'running' };
  if (row.state === 'running') return { claimed: false, fingerprint: row.fingerprint, state: 'running' };
  return {
    claimed: false,
    fingerprint: row.fingerprint,
    state: 'done',
    response: { status: row.response_status!, body: row.response_body!, headers: row.response_headers ?? {} },
  };
}

/** Keeps the first response of a claimed key, answered again for 24 hours. */
export async function completeKey(em: EntityManager, key: string, response: StoredResponse): Promise<void> {
  await em.execute(
    `update idempotency_keys set state = 'done', response_status = ?, response_body = ?, response_headers = ?::jsonb where key = ? and state = 'running'`,
    [response.status, response.body, JSON.stringify(response.headers), key],
  );
}

/** Frees a claimed key whose request failed: nothing was written, so the next attempt runs. */
export async function releaseKey(em: EntityManager, key: string): Promise<void> {
  await em.execute(`delete from idempotency_keys where key = ? and state = 'running'`, [key]);
}
