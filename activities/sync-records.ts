import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../db/tenant-scope';
import { beginSyncAttempt, lockSyncRecord, syncFailed, syncSkipped, syncSucceeded, type SyncProvider } from '../db/sync-records';
import { correctInvoiceErpSync, lockQuoteForInvoiceEvents, recordInvoiceGenerated } from '../db/events/quote-events';


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
      // Issue 30, defect 4: the payments and accounting legs' commits are ordered by the quote row.
      if (ref.provider !== 'CRM') await lockQuoteForInvoiceEvents(tx, ref.quoteId);
      const before = ref.provider === 'PAYMENTS' ? await lockSyncRecord(tx, ref) : undefined;
      await syncSucceeded(tx, ref);
      if (ref.provider === 'PAYMENTS' && !(before?.status === 'SUCCEEDED' && before.external_id === ref.externalId)) {
        await recordInvoiceGenerated(tx, ref.organizationId, { quoteId: ref.quoteId, invoiceId: ref.externalId, totalCents: ref.amountCents });
      }
      if (ref.provider === 'ACCOUNTING') await correctInvoiceErpSync(tx, ref.organizationId, ref.quoteId);
    });
  }

  /** The leg failed; an accounting failure corrects the `erpSync` of invoices already announced (defect 4). */
  failed(ref: SyncRef & { lastError: string }): Promise<void> {
    return inTenant(this.em, ref.organizationId, async (tx) => {
      if (ref.provider === 'ACCOUNTING') await lockQuoteForInvoiceEvents(tx, ref.quoteId);
      await syncFailed(tx, ref);
      if (ref.provider === 'ACCOUNTING') await correctInvoiceErpSync(tx, ref.organizationId, ref.quoteId);
    });
  }

  skipped(ref: SyncRef & { reason: string }): Promise<void> {
    return inTenant(this.em, ref.organizationId, (tx) => syncSkipped(tx, ref));
  }
}
