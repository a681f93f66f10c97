import type { EntityManager } from '@mikro-orm/postgresql';
import { beyond, keyset, microseconds, TimeAndId } from './cursor';
import { tablesOf } from './tables';

/**
 * Section 3.4's store, the `sync_records` table. `attempts` counts the times we called the
 * provider for a record; an attempt in flight leaves the row PENDING. Every function runs inside
 * the record's tenant transaction (db/tenant-scope.ts).
 */

export type SyncProvider = 'PAYMENTS' | 'ACCOUNTING' | 'CRM';
export type SyncStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'SKIPPED';

/** What each provider's leg writes for a quote; the store is unique per (tenant, provider, entity, quote). */
export const ENTITY_TYPE: Record<SyncProvider, string> = { PAYMENTS: 'invoice', ACCOUNTING: 'invoice', CRM: 'opportunity' };

export interface SyncRecordKey {
  quoteId: string;
  provider: SyncProvider;
}

/** One more attempt is about to call the provider. */
export function beginSyncAttempt(em: EntityManager, ref: SyncRecordKey): Promise<void> {
  return upsert(em, ref, `status = case when sync_records.status = 'SUCCEEDED' then 'SUCCEEDED' else 'PENDING' end, attempts = sync_records.attempts + 1`, 'PENDING', 1);
}

/** The record as it is, locked until the transaction ends (none before its first attempt). */
export async function lockSyncRecord(em: EntityManager, ref: SyncRecordKey): Promise<{ status: SyncStatus; external_id: string | null } | undefined> {
  const [row] = await em.execute<{ status: SyncStatus; external_id: string | null }[]>(
    'select status, external_id from sync_records where provider = ? and entity_type = ? and quote_id = ? for update',
    [ref.provider, ENTITY_TYPE[ref.provider], ref.quoteId],
  );
  return row;
}

/** A record by its local id (a change order's invoice, D12), locked until the transaction ends. */
export async function lockSyncRecordByLocalId(em: EntityManager, ref: { provider: SyncProvider; entityType: string; localId: string }): Promise<{ status: SyncStatus; external_id: string | null } | undefined> {
  const [row] = await em.execute<{ status: SyncStatus; external_id: string | null }[]>(
    'select status, external_id from sync_records where provider = ? and entity_type = ? and local_id = ? for update',
    [ref.provider, ref.entityType, ref.localId],
  );
  return row;
}

/** The provider's id of the quote's own invoice, once its payments leg succeeded (a change order's credit lowers it, D12). */
export async function quoteInvoiceId(em: EntityManager, quoteId: string): Promise<string | undefined> {
  const [row] = await em.execute<{ external_id: string }[]>(
    `select external_id from sync_records where provider = 'PAYMENTS' and entity_type = ? and quote_id = ? and status = 'SUCCEEDED' and external_id is not null`,
    [ENTITY_TYPE.PAYMENTS, quoteId],
  );
  return row?.external_id;
}

export function syncSucceeded(em: EntityManager, ref: SyncRecordKey & { externalId: string; amountCents: number | null }): Promise<void> {
  return upsert(em, ref, `status = 'SUCCEEDED', external_id = ?, amount_cents = ?, last_error = null, synced_at = now()`, 'SUCCEEDED', 0, [ref.externalId, ref.amountCents]);
}

export function syncFailed(em: EntityManager, ref: SyncRecordKey & { lastError: string }): Promise<void> {
  // A record that already succeeded stays succeeded: a late failure of a repeated call cannot undo it.
  return upsert(em, ref, `status = case when sync_records.status = 'SUCCEEDED' then 'SUCCEEDED' else 'FAILED' end, last_error = ?`, 'FAILED', 0, [ref.lastError.slice(0, 2000)]);
}

export function syncSkipped(em: EntityManager, ref: SyncRecordKey & { reason: string }): Promise<void> {
  return upsert(em, ref, `last_error = ?`, 'SKIPPED', 0, [ref.reason]);
}

async function upsert(em: EntityManager, ref: SyncRecordKey, onConflict: string, initialStatus: SyncStatus, initialAttempts: number, params: unknown[] = []): Promise<void> {
  const initial = initialStatus === 'SUCCEEDED' ? { external: params[0] ?? null, amount: params[1] ?? null, error: null } : { external: null, amount: null, error: params[0] ?? null };
  await em.execute(
    `insert into sync_records (organization_id, provider, entity_type, quote_id, local_id, status, attempts, external_id, amount_cents, last_error, synced_at)
     values (app_current_organization(), ?, ?, ?, ?, ?, ?, ?, ?, ?, case when ? = 'SUCCEEDED' then now() end)
     on conflict (organization_id, provider, entity_type, local_id) do update set ${onConflict}, updated_at = clock_timestamp()`,
    [ref.provider, ENTITY_TYPE[ref.provider], ref.quoteId, ref.quoteId, initialStatus, initialAttempts, initial.external, initial.amount, initial.error, initialStatus, ...params],
  );
}

/** One payments call of a record keyed by its own local id (a change order's invoice, a job's completion invoice). */
export type LocalSyncOutcome = { kind: 'attempt' } | { kind: 'succeeded'; externalId: string; amountCents: number | null } | { kind: 'failed'; lastError: string };

/**
 * The sync-log record of a payments call keyed by its local id rather than by its quote (D12's
 * change orders, issue 30's completion invoices): one more attempt, its success, or its failure
 * (a record that succeeded stays succeeded).
 */
export async function recordLocalSync(em: EntityManager, ref: { entityType: string; quoteId: string | null; localId: string }, outcome: LocalSyncOutcome): Promise<void> {
  const onConflict = {
    attempt: `status = case when sync_records.status = 'SUCCEEDED' then 'SUCCEEDED' else 'PENDING' end, attempts = sync_records.attempts + 1`,
    succeeded: `status = 'SUCCEEDED', external_id = excluded.external_id, amount_cents = excluded.amount_cents, last_error = null, synced_at = now()`,
    failed: `status = case when sync_records.status = 'SUCCEEDED' then 'SUCCEEDED' else 'FAILED' end, last_error = excluded.last_error`,
  }[outcome.kind];
  const status = { attempt: 'PENDING', succeeded: 'SUCCEEDED', failed: 'FAILED' }[outcome.kind];
  await em.execute(
    `insert into sync_records (organization_id, provider, entity_type, quote_id, local_id, status, attempts, external_id, amount_cents, last_error, synced_at)
     values (app_current_organization(), 'PAYMENTS', ?, ?, ?, ?, ?, ?, ?, ?, case when ? = 'SUCCEEDED' then now() end)
     on conflict (organization_id, provider, entity_type, local_id) do update set ${onConflict}, updated_at = clock_timestamp()`,
    [
      ref.entityType,
      ref.quoteId,
      ref.localId,
      status,
      outcome.kind === 'attempt' ? 1 : 0,
      outcome.kind === 'succeeded' ? outcome.externalId : null,
      outcome.kind === 'succeeded' ? outcome.amountCents : null,
      outcome.kind === 'failed' ? outcome.lastError.slice(0, 2000) : null,
      status,
    ],
  );
}

export interface SyncRecordRow {
  id: string;
  provider: SyncProvider;
  entity_type: string;
  local_id: string;
  external_id: string | null;
  status: SyncStatus;
  attempts: number;
  amount_cents: string | number | null;
  last_error: string | null;
  synced_at: Date | null;
}

/**
 * One page of the sync log (`limit` + 1 rows), most recent first, optionally of one provider,
 * after the (updated_at, id) position of the previous page.
 */
export function syncRecordPage(
  em: EntityManager,
  query: { provider?: SyncProvider | undefined; after?: readonly [string, string] | undefined; limit: number },
): Promise<(SyncRecordRow & { cursor_updated_at: string })[]> {
  let select = tablesOf(em)
    .selectFrom('sync_records as s')
    .select((eb) => [
      's.id',
      eb.ref('s.provider').$castTo<SyncProvider>().as('provider'),
      's.entity_type',
      's.local_id',
      's.external_id',
      eb.ref('s.status').$castTo<SyncStatus>().as('status'),
      's.attempts',
      's.amount_cents',
      's.last_error',
      's.synced_at',
      microseconds(eb.ref('s.updated_at')).as('cursor_updated_at'),
    ]);
  if (query.provider) select = select.where('s.provider', '=', query.provider);
  const after = query.after;
  if (after) select = select.where((eb) => beyond([eb.ref('s.updated_at'), eb.ref('s.id')], 'desc', after));
  return select.orderBy('s.updated_at', 'desc').orderBy('s.id', 'desc').limit(query.limit + 1).execute();
}

/** Most recent first: (updated_at, id) descending. */
export const SYNC_RECORD_KEYSET = keyset(TimeAndId, (row: { cursor_updated_at: string; id: string }) => [row.cursor_updated_at, row.id] as const);
