import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { inTenant } from '../../db/tenant-scope';
import { CHANGE_ORDER_ENTITY, changeOrderForInvoice, changeOrderSync } from '../../db/fsm/change-orders';
import { lockSyncRecordByLocalId, quoteInvoiceId } from '../../db/sync-records';
import { recordInvoiceGenerated } from '../../db/events/quote-events';
import { rememberPaymentsCustomer } from '../../db/quotes/customers';
import { quoteTax } from '../../domain/tax/quote-tax';
import { loadFrozenQuote } from './frozen-quote';
import { writeInvoice, type WrittenInvoice } from '../payments/write-invoice';
import { writeCreditNote } from '../payments/write-credit-note';
import { classifyStripeError } from '../providers/failure';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';

export interface ChangeOrderRef {
  organizationId: string;
  changeOrderId: string;
}

/**
 * D12: the payments leg of an approved change order: one more invoice for its delta (its sell),
 * net 14, with the tax lines of the job's quote's region (D25), every provider call keyed by the
 * change order, recorded in the sync log as the quote's PAYMENTS `change_order_invoice` record of
 * that change order. A change order that takes work away (sell below zero) is a credit note on
 * the quote's invoice instead (activities/payments/write-credit-note.ts); its record holds the
 * credit note's id and minus its total, and no `invoice.generated` is fired for it.
 */
export function createChangeOrderInvoiceActivities(deps: { em: EntityManager; logger: Logger; payments: Stripe | undefined }) {
  return {
    async writeChangeOrderInvoice(input: ChangeOrderRef): Promise<WrittenInvoice> {
      const co = await inTenant(deps.em, input.organizationId, (tx) => changeOrderForInvoice(tx, input.changeOrderId));
      if (!co || co.status !== 'approved') {
        throw ApplicationFailure.create({ message: `change order ${input.changeOrderId} is not approved`, type: FAILURE_TYPES.quoteNotApproved, nonRetryable: true });
      }
      const quote = await loadFrozenQuote(deps.em, input.organizationId, co.quote_id);
      if (!quote) throw ApplicationFailure.create({ message: `quote ${co.quote_id} is not approved`, type: FAILURE_TYPES.quoteNotApproved, nonRetryable: true });
      const stripe = deps.payments;
      if (!stripe) throw ApplicationFailure.create({ message: 'payments provider not configured', type: FAILURE_TYPES.providerNotConfigured, nonRetryable: true });
      const sell = Number(co.sell_cents);
      // D25: a change order is taxed as its job's quote is. A job without a quote would take its
      // site's region, but such a job takes no change orders (they are priced on the quote).
      // A credit (sell below zero) lowers the quote's own invoice: its id is read with the attempt.
      const quoteInvoice = await inTenant(deps.em, input.organizationId, async (tx) => {
        await changeOrderSync(tx, { quoteId: co.quote_id, changeOrderId: co.id }, { kind: 'attempt' });
        return sell < 0 ? quoteInvoiceId(tx, co.quote_id) : undefined;
      });
      const log = deps.logger.child({ activity: Context.current().info.activityType, change_order_id: co.id, attempt: Context.current().info.attempt });
      try {
        if (sell < 0) {
          // Retried: the approval's own payments leg may still be writing the invoice this credit lowers.
          if (!quoteInvoice) throw ApplicationFailure.create({ message: `quote ${quote.quoteNumber} has no invoice yet for this credit to lower`, type: FAILURE_TYPES.providerUnavailable });
          const credit = -sell;
          const note = await writeCreditNote(stripe, {
            organizationId: input.organizationId,
            quoteId: quote.quoteId,
            quoteNumber: quote.quoteNumber,
            invoiceId: quoteInvoice,
            changeOrder: { id: co.id, sequence: co.sequence, reason: co.reason },
            creditCents: credit,
            taxLines: quoteTax(quote.tax.region, credit).lines,
          });
          log.info({ credit_note: note.creditNoteId, out_of_band_cents: note.outOfBandCents }, 'provider write succeeded');
          // The workflow records what it is given: the credit note's id and minus its total.
          return { invoiceId: note.creditNoteId, customerId: note.customerId, totalCents: -note.totalCents, number: note.number };
        }
        const written = await writeInvoice(
          stripe,
          {
            ...quote,
            organizationId: input.organizationId,
            changeOrder: { id: co.id, sequence: co.sequence },
            lines: [{ description: `Change order ${co.sequence}: ${co.reason}`.slice(0, 500), amountCents: sell }],
            subtotalCents: sell,
            tax: quoteTax(quote.tax.region, sell),
          },
          (paymentsCustomerId) => rememberPaymentsCustomer(deps.em, input.organizationId, quote.customer!.id, paymentsCustomerId),
        );
        log.info('provider write succeeded');
        return written;
      } catch (error) {
        const classified = classifyStripeError(error);
        log.warn({ err: classified.message }, 'provider write failed');
        throw classified;
      }
    },

    recordChangeOrderInvoice: async (input: ChangeOrderRef & ({ status: 'SUCCEEDED'; externalId: string; amountCents: number | null } | { status: 'FAILED'; lastError: string })): Promise<void> => {
      await inTenant(deps.em, input.organizationId, async (tx) => {
        const co = await changeOrderForInvoice(tx, input.changeOrderId);
        if (!co) return;
        const ref = { quoteId: co.quote_id, changeOrderId: co.id };
        const before = input.status === 'SUCCEEDED' ? await lockSyncRecordByLocalId(tx, { provider: 'PAYMENTS', entityType: CHANGE_ORDER_ENTITY, localId: co.id }) : undefined;
        await changeOrderSync(tx, ref, input.status === 'SUCCEEDED' ? { kind: 'succeeded', externalId: input.externalId, amountCents: input.amountCents } : { kind: 'failed', lastError: input.lastError });
        // D13: the change order's invoice was finalised: `invoice.generated`, once per invoice (a
        // credit note is not an invoice).
        if (input.status === 'SUCCEEDED' && Number(co.sell_cents) > 0 && !(before?.status === 'SUCCEEDED' && before.external_id === input.externalId)) {
          await recordInvoiceGenerated(tx, input.organizationId, {
            quoteId: co.quote_id,
            invoiceId: input.externalId,
            totalCents: input.amountCents,
            source: { type: 'change_order', id: co.id, subtotalCents: Number(co.sell_cents) },
          });
        }
      });
    },
  };
}
