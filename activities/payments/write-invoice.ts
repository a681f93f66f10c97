import type Stripe from 'stripe';
import type { FrozenQuote } from '../approval/frozen-quote';
import { taxLineLabel } from '../../domain/tax/quote-tax';

export interface WrittenInvoice {
  invoiceId: string;
  customerId: string;
  totalCents: number;
  number: string | null;
}

/** D7: each mutating call's idempotency key, derived from the quote and the step. */
export const paymentsKey = (quoteId: string, step: string) => `quote-${quoteId}-${step}`;

const NET_DAYS = 14;

/**
 * The payments leg, in order: resolve the customer, a draft invoice (send-invoice collection,
 * net 14), one invoice item per frozen quote line, one item per tax line of the quote's region
 * (D25: GST, HST, PST or QST, each labelled with its rate and marked `is_tax`), finalise. Every
 * call carries a key from `paymentsKey`, so running this again after any failure (or after a
 * success whose answer was lost) makes nothing twice: the provider replays each stored answer.
 */
/**
 * What one invoice bills: a quote's frozen lines (D3), a change order's delta (D12), or a
 * completed job's lines (issue 30: beyond its quote, or time and materials without one).
 */
export type InvoiceToWrite = Pick<FrozenQuote, 'customer' | 'lines' | 'tax'> &
  Partial<Omit<FrozenQuote, 'quoteId' | 'quoteNumber'>> & {
  organizationId: string;
  /** Null only for a job without a quote. */
  quoteId: string | null;
  quoteNumber: number | null;
  changeOrder?: { id: string; sequence: number } | undefined;
  job?: { id: string } | undefined;
};

export async function writeInvoice(stripe: Stripe, quote: InvoiceToWrite, rememberCustomer: (paymentsCustomerId: string) => Promise<void>): Promise<WrittenInvoice> {
  // D12: a change order's invoice is its own: every call keyed by the change order, not the
  // quote; a completed job's (issue 30) by the job.
  const { changeOrder, job } = quote;
  const key = (step: string) => (changeOrder ? `change-order-${changeOrder.id}-${step}` : job ? `job-${job.id}-${step}` : paymentsKey(quote.quoteId!, step));
  const metadata = {
    organization_id: quote.organizationId,
    ...(quote.quoteId ? { quote_id: quote.quoteId, quote_number: String(quote.quoteNumber) } : {}),
    ...(changeOrder ? { change_order_id: changeOrder.id, change_order_sequence: String(changeOrder.sequence) } : {}),
    ...(job ? { job_id: job.id } : {}),
  };
  const description = changeOrder
    ? `Quote ${quote.quoteNumber}, change order ${changeOrder.sequence}`
    : job
      ? quote.quoteId
        ? `Quote ${quote.quoteNumber}, materials beyond the quote at completion`
        : `Job ${job.id}, time and materials`
      : `Quote ${quote.quoteNumber}`;
  let customerId = quote.customer?.paymentsCustomerId ?? null;
  if (!customerId) {
    const customer = await stripe.customers.create(
      {
        name: quote.customer?.name ?? description,
        ...(quote.customer?.email ? { email: quote.customer.email } : {}),
        metadata: { organization_id: quote.organizationId, ...(quote.customer ? { customer_id: quote.customer.id } : quote.quoteId ? { quote_id: quote.quoteId } : {}) },
      },
      // A customer of ours is one customer there; a quote without one gets its own.
      { idempotencyKey: quote.customer ? `customer-${quote.customer.id}` : key('customer') },
    );
    customerId = customer.id;
    if (quote.customer) await rememberCustomer(customerId);
  }

  const draft = await stripe.invoices.create(
    {
      customer: customerId,
      currency: 'cad',
      collection_method: 'send_invoice',
      days_until_due: NET_DAYS,
      auto_advance: false,
      pending_invoice_items_behavior: 'exclude',
      description,
      metadata,
    },
    { idempotencyKey: key('invoice') },
  );
  for (const [index, line] of quote.lines.entries()) {
    await stripe.invoiceItems.create(
      { customer: customerId, invoice: draft.id, currency: 'cad', amount: line.amountCents, description: line.description, metadata },
      { idempotencyKey: key(`line-${index}`) },
    );
  }
  for (const line of quote.tax.lines) {
    await stripe.invoiceItems.create(
      { customer: customerId, invoice: draft.id, currency: 'cad', amount: line.amount_cents, description: taxLineLabel(line), metadata: { ...metadata, is_tax: 'true', tax_code: line.code } },
      // A region has at most one line of each code.
      { idempotencyKey: key(`tax-${line.code}`) },
    );
  }
  const finalised = await stripe.invoices.finalizeInvoice(draft.id!, {}, { idempotencyKey: key('finalize') });
  return { invoiceId: finalised.id!, customerId, totalCents: finalised.total, number: finalised.number ?? null };
}
