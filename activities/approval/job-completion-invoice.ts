import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { inTenant } from '../../db/tenant-scope';
import { completionInvoiceSync, invoiceCustomer, JOB_INVOICE_ENTITY, storedCompletionInvoice } from '../../db/fsm/completion-invoices';
import { lockSyncRecordByLocalId, quoteInvoiceId } from '../../db/sync-records';
import { recordInvoiceGenerated, recordServiceInvoiceGenerated } from '../../db/events/quote-events';
import { rememberPaymentsCustomer } from '../../db/quotes/customers';
import { quoteTax } from '../../domain/tax/quote-tax';
import { describeMissingPrices } from '../../domain/invoicing/completion-invoice';
import { loadFrozenQuote } from './frozen-quote';
import { writeInvoice, type InvoiceToWrite } from '../payments/write-invoice';
import { classifyStripeError } from '../providers/failure';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';

export interface JobRef {
  organizationId: string;
  jobId: string;
}

/** What the job's payments call left: its own invoice (null when nothing was billed beyond the quote) and the quote's invoice it reconciles. */
export interface WrittenJobInvoice {
  invoiceId: string | null;
  totalCents: number | null;
  quoteInvoiceId: string | null;
}

const refused = (message: string) => ApplicationFailure.create({ message, type: FAILURE_TYPES.quoteNotApproved, nonRetryable: true });

/**
 * Issue 30: the payments call of a completed job, what completing it decided
 * (db/fsm/completion-invoices.ts) billed by the same writer as every invoice (net 14, every call
 * keyed by the job), recorded in the sync log as the job's PAYMENTS `job_invoice` record, then
 * announced by `invoice.generated` (sourceType `job`) once.
 */
export function createJobCompletionInvoiceActivities(deps: { em: EntityManager; logger: Logger; payments: Stripe | undefined }) {
  return {
    async writeJobCompletionInvoice(input: JobRef): Promise<WrittenJobInvoice> {
      const stored = await inTenant(deps.em, input.organizationId, (tx) => storedCompletionInvoice(tx, input.jobId));
      if (!stored) throw refused(`job ${input.jobId} has no completion invoice`);
      // D11: an invoice waiting for a customer is never billed to nobody (its workflow starts once one is set).
      if (!stored.quoteId && !stored.customerId) throw refused(`the completion invoice of job ${input.jobId} waits for a customer`);
      // D11: nor billed before it is priced (npm run ops -- retry --job prices it, then starts this).
      if (stored.awaitingPrice) throw refused(`the completion invoice of job ${input.jobId} waits for prices: ${describeMissingPrices(stored.awaitingPrice)}`);
      const stripe = deps.payments;
      if (!stripe) throw ApplicationFailure.create({ message: 'payments provider not configured', type: FAILURE_TYPES.providerNotConfigured, nonRetryable: true });
      const quote = stored.quoteId ? await loadFrozenQuote(deps.em, input.organizationId, stored.quoteId) : undefined;
      if (stored.quoteId && !quote) throw refused(`quote ${stored.quoteId} is not approved`);
      const { quoteInvoice, customer } = await inTenant(deps.em, input.organizationId, async (tx) => {
        await completionInvoiceSync(tx, { quoteId: stored.quoteId, jobId: input.jobId }, { kind: 'attempt' });
        const customer = stored.customerId && !quote ? await invoiceCustomer(tx, stored.customerId) : undefined;
        return { quoteInvoice: stored.quoteId ? await quoteInvoiceId(tx, stored.quoteId) : undefined, customer };
      });
      // Retried: the approval's own payments leg may still be writing the invoice this reconciles.
      if (quote && !quoteInvoice) throw ApplicationFailure.create({ message: `quote ${quote.quoteNumber} has no invoice yet for the job's completion to reconcile`, type: FAILURE_TYPES.providerUnavailable });
      if (stored.kind === null) return { invoiceId: null, totalCents: null, quoteInvoiceId: quoteInvoice ?? null };
      const log = deps.logger.child({ activity: Context.current().info.activityType, job_id: input.jobId, attempt: Context.current().info.attempt });
      const lines = stored.lines.map((line) => ({ description: line.description.slice(0, 500), amountCents: line.amountCents }));
      // D25: the quote's region's tax, or without a quote the job site's (stored at completion).
      const tax = quoteTax(stored.taxRegion, stored.subtotalCents);
      const bill: InvoiceToWrite = quote
        ? { ...quote, organizationId: input.organizationId, job: { id: input.jobId }, lines, subtotalCents: stored.subtotalCents, tax }
        : {
            organizationId: input.organizationId,
            quoteId: null,
            quoteNumber: null,
            job: { id: input.jobId },
            customer: customer ?? null,
            lines,
            tax,
          };
      try {
        const written = await writeInvoice(stripe, bill, (paymentsCustomerId) => rememberPaymentsCustomer(deps.em, input.organizationId, bill.customer!.id, paymentsCustomerId));
        log.info('provider write succeeded');
        return { invoiceId: written.invoiceId, totalCents: written.totalCents, quoteInvoiceId: quoteInvoice ?? null };
      } catch (error) {
        const classified = classifyStripeError(error);
        log.warn({ err: classified.message }, 'provider write failed');
        throw classified;
      }
    },

    recordJobCompletionInvoice: async (input: JobRef & ({ status: 'SUCCEEDED' } & WrittenJobInvoice | { status: 'FAILED'; lastError: string })): Promise<void> => {
      await inTenant(deps.em, input.organizationId, async (tx) => {
        const stored = await storedCompletionInvoice(tx, input.jobId);
        if (!stored) return;
        const ref = { quoteId: stored.quoteId, jobId: input.jobId };
        if (input.status === 'FAILED') {
          await completionInvoiceSync(tx, ref, { kind: 'failed', lastError: input.lastError });
          return;
        }
        const externalId = input.invoiceId ?? input.quoteInvoiceId;
        if (!externalId) throw new Error(`job ${input.jobId}: a completion invoice that succeeded names no invoice`);
        const before = await lockSyncRecordByLocalId(tx, { provider: 'PAYMENTS', entityType: JOB_INVOICE_ENTITY, localId: input.jobId });
        await completionInvoiceSync(tx, ref, { kind: 'succeeded', externalId, amountCents: input.totalCents });
        // D13: each invoice of the completion announced once, however often its success is recorded.
        if (before?.status === 'SUCCEEDED' && before.external_id === externalId) return;
        const parts = stored.partsConsumed;
        if (stored.quoteId) {
          // The quote's invoice, reconciled with the job's draws: the quote's own figures.
          await recordInvoiceGenerated(tx, input.organizationId, { quoteId: stored.quoteId, invoiceId: input.quoteInvoiceId!, totalCents: null, source: { type: 'job', id: input.jobId }, partsConsumed: parts });
          if (input.invoiceId) {
            await recordInvoiceGenerated(tx, input.organizationId, {
              quoteId: stored.quoteId,
              invoiceId: input.invoiceId,
              totalCents: input.totalCents,
              source: { type: 'job', id: input.jobId, subtotalCents: stored.subtotalCents },
              partsConsumed: parts,
            });
          }
          return;
        }
        await recordServiceInvoiceGenerated(tx, input.organizationId, {
          jobId: input.jobId,
          invoiceId: externalId,
          totalCents: input.totalCents,
          customerId: stored.customerId,
          taxRegion: stored.taxRegion,
          subtotalCents: stored.subtotalCents,
          partsConsumed: parts,
        });
      });
    },
  };
}
