import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../db/tenant-scope';
import { beginSyncAttempt, lockSyncRecord, syncFailed, syncSkipped, syncSucceeded, type SyncProvider } from '../db/sync-records';
import { recordInvoiceGenerated } from '../db/events/quote-events';


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

  /**
   * The leg succeeded. For the payments leg this is the moment an invoice was finalised (at
   * approval, or by `POST /quotes/{id}/invoice`): `invoice.generated` is recorded in the same
   * transaction (D13), once per invoice however often the success is recorded again.
   */
  succeeded(ref: SyncRef & { externalId: string; amountCents: number | null }): Promise<void> {
    return inTenant(this.em, ref.organizationId, async (tx) => {
      const before = ref.provider === 'PAYMENTS' ? await lockSyncRecord(tx, ref) : undefined;
      await syncSucceeded(tx, ref);
      if (ref.provider === 'PAYMENTS' && !(before?.status === 'SUCCEEDED' && before.external_id === ref.externalId)) {
        await recordInvoiceGenerated(tx, ref.organizationId, { quoteId: ref.quoteId, invoiceId: ref.externalId, totalCents: ref.amountCents });
      }
    });
  }

  failed(ref: SyncRef & { lastError: string }): Promise<void> {
    return inTenant(this.em, ref.organizationId, (tx) => syncFailed(tx, ref));
  }

  skipped(ref: SyncRef & { reason: string }): Promise<void> {
    return inTenant(this.em, ref.organizationId, (tx) => syncSkipped(tx, ref));
  }
}
