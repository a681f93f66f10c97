import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../db/tenant-scope';

export type SyncProvider = 'PAYMENTS' | 'ACCOUNTING' | 'CRM';
export type SyncStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'SKIPPED';

/** What each provider's leg writes for a quote; the store is unique per (tenant, provider, entity, quote). */
export const ENTITY_TYPE: Record<SyncProvider, string> = { PAYMENTS: 'invoice', ACCOUNTING: 'invoice', CRM: 'opportunity' };

export interface SyncRef {
  organizationId: string;
  quoteId: string;
  provider: SyncProvider;
}

/**
 * Section 3.4's store. `attempts` counts the times we called the provider for this record;
 * an attempt in flight leaves the row PENDING.
 */
export class SyncRecords {
  constructor(private readonly em: EntityManager) {}

  /** One more attempt is about to call the provider. */
  beginAttempt(ref: SyncRef): Promise<void> {
    return this.upsert(ref, `status = case when sync_records.status = 'SUCCEEDED' then 'SUCCEEDED' else 'PENDING' end, attempts = sync_records.attempts + 1`, 'PENDING', 1);
  }

  succeeded(ref: SyncRef & { externalId: string; amountCents: number | null }): Promise<void> {
    return this.upsert(ref, `status = 'SUCCEEDED', external_id = ?, amount_cents = ?, last_error = null, synced_at = now()`, 'SUCCEEDED', 0, [ref.externalId, ref.amountCents]);
  }

  failed(ref: SyncRef & { lastError: string }): Promise<void> {
    // A record that already succeeded stays succeeded: a late failure of a repeated call cannot undo it.
    return this.upsert(ref, `status = case when sync_records.status = 'SUCCEEDED' then 'SUCCEEDED' else 'FAILED' end, last_error = ?`, 'FAILED', 0, [ref.lastError.slice(0, 2000)]);
  }

  skipped(ref: SyncRef & { reason: string }): Promise<void> {
    return this.upsert(ref, `last_error = ?`, 'SKIPPED', 0, [ref.reason]);
  }

  private upsert(ref: SyncRef, onConflict: string, initialStatus: SyncStatus, initialAttempts: number, params: unknown[] = []): Promise<void> {
    return inTenant(this.em, ref.organizationId, async (tx) => {
      const initial = initialStatus === 'SUCCEEDED' ? { external: params[0] ?? null, amount: params[1] ?? null, error: null } : { external: null, amount: null, error: params[0] ?? null };
      await tx.execute(
        `insert into sync_records (organization_id, provider, entity_type, quote_id, local_id, status, attempts, external_id, amount_cents, last_error, synced_at)
         values (app_current_organization(), ?, ?, ?, ?, ?, ?, ?, ?, ?, case when ? = 'SUCCEEDED' then now() end)
         on conflict (organization_id, provider, entity_type, quote_id) do update set ${onConflict}, updated_at = clock_timestamp()`,
        [ref.provider, ENTITY_TYPE[ref.provider], ref.quoteId, ref.quoteId, initialStatus, initialAttempts, initial.external, initial.amount, initial.error, initialStatus, ...params],
      );
    });
  }
}
