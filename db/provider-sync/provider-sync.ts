import type { EntityManager } from '@mikro-orm/postgresql';
import { beyond, keyset, microseconds, TimeAndId } from '../cursor';
import { tablesOf } from '../tables';
import type { SyncProvider } from '../sync-records';

/**
 * D18's tables: `provider_sync_state` (each tenant's watermark per provider) and
 * `provider_sync_runs` (every scheduled run). Every function runs inside the tenant's transaction
 * (db/tenant-scope.ts). A page's changes, its watermark and its run counters are written in one
 * transaction, so the watermark never passes what was applied and a run killed mid-page repeats
 * nothing it had committed.
 */

export async function readWatermark(em: EntityManager, provider: SyncProvider, options: { lock?: boolean } = {}): Promise<string | null> {
  const [row] = await em.execute<{ watermark: string | null }[]>(
    `select watermark from provider_sync_state where provider = ?${options.lock ? ' for update' : ''}`,
    [provider],
  );
  return row?.watermark ?? null;
}

export async function writeWatermark(em: EntityManager, provider: SyncProvider, watermark: string | null): Promise<void> {
  await em.execute(
    `insert into provider_sync_state (organization_id, provider, watermark) values (app_current_organization(), ?, ?)
     on conflict (organization_id, provider) do update set watermark = excluded.watermark, updated_at = clock_timestamp()`,
    [provider, watermark],
  );
}

/** A run starts (once per workflow id: a retried or continued run finds its row). */
export async function beginSyncRun(em: EntityManager, run: { provider: SyncProvider; workflowId: string }): Promise<{ id: string; watermark_before: string | null }> {
  const watermark = await readWatermark(em, run.provider);
  await em.execute(
    `insert into provider_sync_runs (organization_id, provider, workflow_id, watermark_before, watermark_after)
     values (app_current_organization(), ?, ?, ?, ?) on conflict (organization_id, workflow_id) do nothing`,
    [run.provider, run.workflowId, watermark, watermark],
  );
  const [row] = await em.execute<{ id: string; watermark_before: string | null }[]>(`select id, watermark_before from provider_sync_runs where workflow_id = ?`, [run.workflowId]);
  return row!;
}

/** A page was applied: its counts, and the watermark it reached. */
export async function addToSyncRun(em: EntityManager, run: { workflowId: string; seen: number; applied: number; watermark: string | null }): Promise<void> {
  await em.execute(`update provider_sync_runs set seen = seen + ?, applied = applied + ?, watermark_after = ? where workflow_id = ?`, [
    run.seen,
    run.applied,
    run.watermark,
    run.workflowId,
  ]);
}

export async function finishSyncRun(em: EntityManager, run: { workflowId: string; error: string | null }): Promise<void> {
  await em.execute(`update provider_sync_runs set finished_at = coalesce(finished_at, clock_timestamp()), error = ? where workflow_id = ?`, [
    run.error === null ? null : run.error.slice(0, 2000),
    run.workflowId,
  ]);
}

export interface SyncRunRow {
  id: string;
  provider: SyncProvider;
  workflow_id: string;
  started_at: Date;
  finished_at: Date | null;
  seen: number;
  applied: number;
  watermark_before: string | null;
  watermark_after: string | null;
  error: string | null;
}

/** One page (`limit` + 1 rows) of the runs, newest first, optionally of one provider. */
export function syncRunPage(
  em: EntityManager,
  query: { provider?: SyncProvider | undefined; after?: readonly [string, string] | undefined; limit: number },
): Promise<(SyncRunRow & { cursor_started_at: string })[]> {
  let select = tablesOf(em)
    .selectFrom('provider_sync_runs as r')
    .select((eb) => [
      'r.id',
      eb.ref('r.provider').$castTo<SyncProvider>().as('provider'),
      'r.workflow_id',
      'r.started_at',
      'r.finished_at',
      'r.seen',
      'r.applied',
      'r.watermark_before',
      'r.watermark_after',
      'r.error',
      microseconds(eb.ref('r.started_at')).as('cursor_started_at'),
    ]);
  if (query.provider) select = select.where('r.provider', '=', query.provider);
  const after = query.after;
  if (after) select = select.where((eb) => beyond([eb.ref('r.started_at'), eb.ref('r.id')], 'desc', after));
  return select.orderBy('r.started_at', 'desc').orderBy('r.id', 'desc').limit(query.limit + 1).execute();
}

/** Newest first: (started_at, id) descending. */
export const SYNC_RUN_KEYSET = keyset(TimeAndId, (row: { cursor_started_at: string; id: string }) => [row.cursor_started_at, row.id] as const);

/** The quote whose leg wrote this provider object (an accounting invoice, a CRM opportunity). */
export async function quoteOfExternalId(em: EntityManager, provider: SyncProvider, externalId: string): Promise<string | undefined> {
  const [row] = await em.execute<{ quote_id: string }[]>(
    `select quote_id from sync_records where provider = ? and external_id = ? and quote_id is not null limit 1`,
    [provider, externalId],
  );
  return row?.quote_id;
}

/** Whether a quote of this tenant exists (a CRM record may carry any id). */
export async function quoteIsOurs(em: EntityManager, quoteId: string): Promise<boolean> {
  const [row] = await em.execute<{ id: string }[]>(`select id from quotes where id = ?`, [quoteId]);
  return row !== undefined;
}
