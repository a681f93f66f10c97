import type { OutgoingMail } from './mailer';
import { formatCad } from '../../domain/quotes/customer-page';

/**
 * D24's emails, one composer each, in plain text: the quote's link to the customer, the office's
 * notice of the customer's decision, and the invoice's hosted link after acceptance. Each has a
 * stable Message-ID, so a resend after a crash is recognisably the same message.
 */

export interface QuoteMailFacts {
  contractor: string;
  quoteNumber: number;
  quoteId: string;
}

export function composeQuoteLink(facts: QuoteMailFacts & { to: string; customerName: string | null; pageUrl: string; linkId: string; validUntil: Date; totalCents: number }): OutgoingMail {
  return {
    to: facts.to,
    subject: `Your quote ${facts.quoteNumber} from ${facts.contractor}`,
    messageId: `<quote-link.${facts.linkId}@shade-office>`,
    text: [
      `Hello${facts.customerName ? ` ${facts.customerName}` : ''},`,
      '',
      `${facts.contractor} has sent you quote ${facts.quoteNumber} (total ${formatCad(facts.totalCents)}, tax included).`,
      `Read it, download it as a PDF, and accept or decline it here:`,
      '',
      `  ${facts.pageUrl}`,
      '',
      `The quote is valid until ${facts.validUntil.toISOString().slice(0, 10)}. The link is yours alone: anyone holding it can answer the quote.`,
    ].join('\n'),
  };
}

export function composeOfficeDecision(
  facts: QuoteMailFacts & { to: string; decision: 'accepted' | 'declined'; customerName: string | null; typedName?: string; reason?: string | null; baseUrl: string },
): OutgoingMail {
  const who = facts.typedName ?? facts.customerName ?? 'The customer';
  return {
    to: facts.to,
    subject: `Quote ${facts.quoteNumber} was ${facts.decision} by the customer`,
    messageId: `<quote-${facts.decision}.${facts.quoteId}.${encodeURIComponent(facts.to)}@shade-office>`,
    text: [
      facts.decision === 'accepted'
        ? `${who} accepted quote ${facts.quoteNumber} on its page. It is now APPROVED: the invoice is on its way to the customer.`
        : `${who} declined quote ${facts.quoteNumber} on its page. It is now REJECTED.`,
      ...(facts.decision === 'declined' ? ['', facts.reason ? `Their reason: ${facts.reason}` : 'They gave no reason.'] : []),
      '',
      `The quote: ${facts.baseUrl.replace(/\/+$/, '')}/api/v1/quotes/${facts.quoteId}`,
    ].join('\n'),
  };
}

export function composeInvoiceLink(facts: QuoteMailFacts & { to: string; customerName: string | null; invoiceUrl: string; totalCents: number }): OutgoingMail {
  return {
    to: facts.to,
    subject: `Invoice for quote ${facts.quoteNumber} from ${facts.contractor}`,
    messageId: `<quote-invoice.${facts.quoteId}@shade-office>`,
    text: [
      `Hello${facts.customerName ? ` ${facts.customerName}` : ''},`,
      '',
      `Thank you for accepting quote ${facts.quoteNumber}. Your invoice of ${formatCad(facts.totalCents)} is ready; view and pay it here:`,
      '',
      `  ${facts.invoiceUrl}`,
    ].join('\n'),
  };
}
