import type Stripe from 'stripe';
import type { FrozenQuote } from '../approval/frozen-quote';
import { SALES_TAX_LABEL } from '../../db/quotes/sales-tax';

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
 * net 14), one invoice item per frozen quote line, the explicit 13 % tax line, finalise. Every
 * call carries a key from `paymentsKey`, so running this again after any failure (or after a
 * success whose answer was lost) makes nothing twice: the provider replays each stored answer.
 */
export async function writeInvoice(
  stripe: Stripe,
  quote: FrozenQuote & { organizationId: string },
  rememberCustomer: (paymentsCustomerId: string) => Promise<void>,
): Promise<WrittenInvoice> {
  const metadata = { organization_id: quote.organizationId, quote_id: quote.quoteId, quote_number: String(quote.quoteNumber) };
  let customerId = quote.customer?.paymentsCustomerId ?? null;
  if (!customerId) {
    const customer = await stripe.customers.create(
      {
        name: quote.customer?.name ?? `Quote ${quote.quoteNumber}`,
        ...(quote.customer?.email ? { email: quote.customer.email } : {}),
        metadata: { organization_id: quote.organizationId, ...(quote.customer ? { customer_id: quote.customer.id } : { quote_id: quote.quoteId }) },
      },
      // A customer of ours is one customer there; a quote without one gets its own.
      { idempotencyKey: quote.customer ? `customer-${quote.customer.id}` : paymentsKey(quote.quoteId, 'customer') },
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
      description: `Quote ${quote.quoteNumber}`,
      metadata,
    },
    { idempotencyKey: paymentsKey(quote.quoteId, 'invoice') },
  );
  for (const [index, line] of quote.lines.entries()) {
    await stripe.invoiceItems.create(
      { customer: customerId, invoice: draft.id, currency: 'cad', amount: line.amountCents, description: line.description, metadata },
      { idempotencyKey: paymentsKey(quote.quoteId, `line-${index}`) },
    );
  }
  await stripe.invoiceItems.create(
    { customer: customerId, invoice: draft.id, currency: 'cad', amount: quote.taxCents, description: SALES_TAX_LABEL, metadata: { ...metadata, is_tax: 'true' } },
    { idempotencyKey: paymentsKey(quote.quoteId, 'tax') },
  );
  const finalised = await stripe.invoices.finalizeInvoice(draft.id!, {}, { idempotencyKey: paymentsKey(quote.quoteId, 'finalize') });
  return { invoiceId: finalised.id!, customerId, totalCents: finalised.total, number: finalised.number ?? null };
}
