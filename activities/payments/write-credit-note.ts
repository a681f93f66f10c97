import Stripe from 'stripe';
import { taxLineLabel, type TaxLine } from '../../domain/tax/quote-tax';
import { refused, unavailable } from '../providers/failure';

export interface CreditNoteRequest {
  organizationId: string;
  quoteId: string;
  quoteNumber: number;
  /** The quote's own invoice, which the credit lowers. */
  invoiceId: string;
  changeOrder: { id: string; sequence: number; reason: string };
  /** The credit, positive cents, and its tax lines (D25: the quote's region's), positive cents. */
  creditCents: number;
  taxLines: TaxLine[];
}

export interface WrittenCreditNote {
  creditNoteId: string;
  customerId: string;
  totalCents: number;
  number: string;
  /** What the customer had already paid of the credit: to be refunded by the office (out of band). */
  outOfBandCents: number;
}

/**
 * D12 for a change order that takes work away (its sell below zero): one credit note on the
 * quote's invoice, reason `order_change`, with the credit and each of its tax lines as custom lines.
 * The part up to what is still owed comes off the invoice's amount due; a part the customer has
 * already paid is recorded as credited out of band (the office refunds it the way it was paid:
 * docs/decisions.md, "Change orders"), never refunded or parked on a balance by us.
 *
 * Exactly once: a credit note already on the invoice for this change order is the answer (made by
 * an attempt whose answer was lost); otherwise the create carries a key of the change order and
 * of the split it asks for, so a split refused because the customer paid meanwhile is not
 * replayed to the next attempt, which reads the invoice again.
 */
export async function writeCreditNote(stripe: Stripe, request: CreditNoteRequest): Promise<WrittenCreditNote> {
  const made = await existingCreditNote(stripe, request);
  if (made) return written(made);
  const invoice = await stripe.invoices.retrieve(request.invoiceId);
  if (invoice.status !== 'open' && invoice.status !== 'paid') {
    throw refused('payments', `invoice ${invoice.id} is ${invoice.status ?? 'unknown'}: a credit note needs an open or paid invoice`);
  }
  const total = request.creditCents + request.taxLines.reduce((sum, line) => sum + line.amount_cents, 0);
  const creditable = invoice.total - invoice.pre_payment_credit_notes_amount - invoice.post_payment_credit_notes_amount;
  if (total > creditable) {
    throw refused('payments', `the credit of ${total} cents is more than invoice ${invoice.id} can still be credited (${creditable} cents); credit the rest by hand`);
  }
  const owed = invoice.status === 'open' ? invoice.amount_remaining : 0;
  const outOfBand = total - Math.min(total, owed);
  try {
    const note = await stripe.creditNotes.create(creditNoteParams(request, outOfBand), { idempotencyKey: creditNoteKey(request, outOfBand) });
    return written(note);
  } catch (error) {
    // The customer paid between the read and the create: read the invoice again.
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.param === 'out_of_band_amount') {
      throw unavailable('payments', `invoice ${invoice.id} changed while the credit note was made: ${error.message}`);
    }
    throw error;
  }
}

/** The create's parameters: the credit and its tax as custom lines, `outOfBand` of it already paid. */
export function creditNoteParams(request: CreditNoteRequest, outOfBand: number): Stripe.CreditNoteCreateParams {
  return {
    invoice: request.invoiceId,
    reason: 'order_change',
    memo: `Quote ${request.quoteNumber}, change order ${request.changeOrder.sequence}`,
    metadata: {
      organization_id: request.organizationId,
      quote_id: request.quoteId,
      quote_number: String(request.quoteNumber),
      change_order_id: request.changeOrder.id,
      change_order_sequence: String(request.changeOrder.sequence),
    },
    lines: [
      { type: 'custom_line_item', description: `Change order ${request.changeOrder.sequence}: ${request.changeOrder.reason}`.slice(0, 500), quantity: 1, unit_amount: request.creditCents },
      ...request.taxLines.map((line) => ({ type: 'custom_line_item' as const, description: taxLineLabel(line), quantity: 1, unit_amount: line.amount_cents })),
    ],
    ...(outOfBand > 0 ? { out_of_band_amount: outOfBand } : {}),
  };
}

export const creditNoteKey = (request: CreditNoteRequest, outOfBand: number) => `change-order-${request.changeOrder.id}-credit-note-${outOfBand}`;

async function existingCreditNote(stripe: Stripe, request: CreditNoteRequest): Promise<Stripe.CreditNote | undefined> {
  for await (const note of stripe.creditNotes.list({ invoice: request.invoiceId, limit: 100 })) {
    if (note.metadata?.['change_order_id'] === request.changeOrder.id) return note;
  }
  return undefined;
}

function written(note: Stripe.CreditNote): WrittenCreditNote {
  return {
    creditNoteId: note.id,
    customerId: typeof note.customer === 'string' ? note.customer : (note.customer?.id ?? ''),
    totalCents: note.total,
    number: note.number,
    outOfBandCents: note.out_of_band_amount ?? 0,
  };
}
