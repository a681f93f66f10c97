import Stripe from 'stripe';
import { providerFailed } from '../../domain/errors/errors';
import type { InvoiceView } from './schemas';

/**
 * The provider's answer, or D5's 502 when it will not give one: an invoice it no longer has (a
 * local sandbox restarted since, or one deleted at the provider) or any other provider error.
 */
async function fromProvider<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError) throw providerFailed(`The payments provider could not return the invoice: ${error.message}`.slice(0, 300));
    throw error;
  }
}

/** The InvoiceView of section 2.3, read from the provider's invoice and all of its lines. */
export async function readInvoiceView(stripe: Stripe, invoiceId: string, quoteNumber: number, created: boolean): Promise<InvoiceView> {
  const invoice = await fromProvider(() => stripe.invoices.retrieve(invoiceId));
  const lines = await fromProvider(() => stripe.invoices.listLineItems(invoiceId, { limit: 100 }).autoPagingToArray({ limit: 10_000 }));
  // The payments leg marks each of its tax lines (one per tax of the quote's region, D25).
  const viewLines = lines.map((line) => ({ description: line.description ?? '', amount_cents: line.amount, is_tax: line.metadata?.['is_tax'] === 'true' }));
  const taxLines = viewLines.filter((line) => line.is_tax);
  const taxCents = taxLines.length ? taxLines.reduce((sum, line) => sum + line.amount_cents, 0) : null;
  const livemode = (invoice as { livemode?: boolean }).livemode;
  return {
    quote_number: quoteNumber,
    invoice_id: invoice.id!,
    number: invoice.number ?? null,
    status: invoice.status ?? null,
    mode: livemode === true ? 'live' : livemode === false ? 'test' : 'unknown',
    currency: invoice.currency,
    // Our tax is an invoice line, which the provider counts in its subtotal; the view's subtotal
    // is before tax, so that subtotal + tax = total.
    subtotal_cents: invoice.subtotal === null || invoice.subtotal === undefined ? null : invoice.subtotal - (taxCents ?? 0),
    // null when no line is marked as tax; zero would mean an invoice without tax.
    tax_cents: taxCents,
    total_cents: invoice.total ?? null,
    amount_due_cents: invoice.amount_due ?? null,
    created_at: invoice.created ? new Date(invoice.created * 1000).toISOString() : null,
    hosted_invoice_url: invoice.hosted_invoice_url ?? null,
    invoice_pdf_url: invoice.invoice_pdf ?? null,
    lines: viewLines,
    created,
  };
}
