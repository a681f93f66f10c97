import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../db/tenant-scope';
import { beginSyncAttempt, syncFailed, syncSkipped, syncSucceeded, type SyncProvider } from '../db/sync-records';


export interface SyncRef {
  organizationId: string;
  quoteId: string;
  provider: SyncProvider;
}

/**
 * Section 3.4's store (db/sync-records.ts), each write in the record's tenant transaction.
 * `attempts` counts the times we called the provider for this record; an attempt in flight
 * leaves the row PENDING.
 */
export class SyncRecords {
  constructor(private readonly em: EntityManager) {}

  /** One more attempt is about to call the provider. */
  beginAttempt(ref: SyncRef): Promise<void> {
    return inTenant(this.em, ref.organizationId, (tx) => beginSyncAttempt(tx, ref));
  }

  succeeded(ref: SyncRef & { externalId: string; amountCents: number | null }): Promise<void> {
    return inTenant(this.em, ref.organizationId, (tx) => syncSucceeded(tx, ref));
  }

  failed(ref: SyncRef & { lastError: string }): Promise<void> {
    return inTenant(this.em, ref.organizationId, (tx) => syncFailed(tx, ref));
  }

  skipped(ref: SyncRef & { reason: string }): Promise<void> {
    return inTenant(this.em, ref.organizationId, (tx) => syncSkipped(tx, ref));
  }
}
