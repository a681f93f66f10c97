import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { inTenant } from '../../db/tenant-scope';
import { customerInvoiceFacts } from '../../db/quotes/page-links';
import type { Mailer } from '../../infra/email/mailer';
import { composeInvoiceLink } from '../../infra/email/quote-mail';

export interface CustomerInvoiceEmailInput {
  organizationId: string;
  quoteId: string;
  invoiceId: string;
}

export type CustomerInvoiceEmailResult = { sent: true } | { sent: false; reason: string };

/**
 * D24: after a customer accepted on the quote's page, the payments leg's invoice goes to them by
 * email with its hosted link (the provider's page, or the payments sandbox's under `npm start`).
 * A quote approved by the office is not emailed: the office sends its invoices its own way. The
 * Message-ID is the quote's, so a retry after a lost answer is recognisably the same message.
 */
export async function emailInvoiceToCustomer(
  deps: { em: EntityManager; payments: Stripe | undefined; mailer: Mailer | undefined; logger: Logger },
  input: CustomerInvoiceEmailInput,
): Promise<CustomerInvoiceEmailResult> {
  const facts = await inTenant(deps.em, input.organizationId, (tx) => customerInvoiceFacts(tx, input.quoteId));
  if (!facts?.acceptance_at) return { sent: false, reason: 'not accepted on the quote page' };
  if (!facts.customer_email) return { sent: false, reason: 'the customer has no email' };
  if (!deps.mailer) {
    deps.logger.warn({ quote_id: input.quoteId }, 'no SMTP_URL: the customer is not emailed their invoice (D24)');
    return { sent: false, reason: 'no SMTP_URL' };
  }
  if (!deps.payments) return { sent: false, reason: 'payments not configured' };
  const invoice = await deps.payments.invoices.retrieve(input.invoiceId);
  if (!invoice.hosted_invoice_url) return { sent: false, reason: 'the invoice has no hosted page' };
  await deps.mailer.send(
    composeInvoiceLink({
      to: facts.customer_email,
      customerName: facts.customer_name,
      contractor: facts.contractor_name,
      quoteNumber: facts.quote_number,
      quoteId: input.quoteId,
      invoiceUrl: invoice.hosted_invoice_url,
      totalCents: invoice.total,
    }),
  );
  return { sent: true };
}
