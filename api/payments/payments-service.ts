import type Stripe from 'stripe';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { quoteForPayments, rememberCheckoutSession, type QuoteForPayments as QuoteRow } from '../../db/payments/quote-payments';
import { badRequest, conflict, notFound, providerFailed, providerUnavailable } from '../../domain/errors/errors';
import type { Caller } from '../http/request-context';
import type { InvoiceRunner } from '../../infra/temporal/invoice-runner';
import { quoteTax, taxLineLabel } from '../../domain/tax/quote-tax';
import type { PricedQuote } from '../../domain/pricing/reference-engine';
import { readInvoiceView } from './invoice-view';
import type { CheckoutSession, InvoiceView } from './schemas';

type QuoteForPayments = QuoteRow<PricedQuote>;

/** Section 4.3's invoice and checkout endpoints (the payments provider is D7's Stripe). */
export class PaymentsService {
  constructor(
    private readonly em: EntityManager,
    private readonly deps: { stripe?: Stripe | undefined; invoices?: InvoiceRunner | undefined; returnOrigins: readonly string[] },
  ) {}

  private requireStripe(): Stripe {
    if (!this.deps.stripe) throw providerUnavailable('The payments provider is not configured on this deployment.');
    return this.deps.stripe;
  }

  private async quote(caller: Caller, id: string): Promise<QuoteForPayments> {
    const row = await inTenant(this.em, caller.organizationId, (tx) => quoteForPayments<PricedQuote>(tx, id));
    if (!row) throw notFound('No such quote in this workspace.');
    return row;
  }

  /** GET: the invoice written at approval, read from the provider. */
  async readInvoice(caller: Caller, id: string): Promise<InvoiceView> {
    const stripe = this.requireStripe();
    const quote = await this.quote(caller, id);
    if (!quote.invoice_id) throw notFound('No invoice has been recorded for this quote.');
    return readInvoiceView(stripe, quote.invoice_id, quote.quote_number, false);
  }

  /**
   * POST: exactly one invoice per approved quote. A recorded success answers it unchanged;
   * otherwise the payments leg runs (alone) through Temporal. A refusal is a 502 after the attempt
   * was counted on the sync record; the call can be repeated.
   */
  async ensureInvoice(caller: Caller, id: string): Promise<{ view: InvoiceView; created: boolean }> {
    const stripe = this.requireStripe();
    const quote = await this.quote(caller, id);
    if (quote.status !== 'APPROVED') throw badRequest('Only an approved quote can be invoiced.');
    if (quote.invoice_id) return { view: await readInvoiceView(stripe, quote.invoice_id, quote.quote_number, false), created: false };
    if (!this.deps.invoices) throw providerUnavailable('The workflow service is not available.');
    const outcome = await this.deps.invoices.run({ organizationId: caller.organizationId, quoteId: id, quoteNumber: quote.quote_number });
    if (outcome.status !== 'SUCCEEDED' || !outcome.externalId) throw providerFailed(`The payments provider did not accept the invoice: ${outcome.error ?? 'unknown error'}`);
    return { view: await readInvoiceView(stripe, outcome.externalId, quote.quote_number, true), created: true };
  }

  /** The hosted payment page of an approved quote: reused while open, new otherwise. */
  async checkout(caller: Caller, id: string, returnUrl: string | undefined): Promise<CheckoutSession> {
    const stripe = this.requireStripe();
    const quote = await this.quote(caller, id);
    if (quote.status !== 'APPROVED' || !quote.frozen_calculation) throw badRequest('Only an approved quote can be paid online.');
    const target = this.returnTarget(returnUrl);
    if (quote.paid_at) throw conflict('The quote is already paid.');

    if (quote.checkout_session_id) {
      const existing = await stripe.checkout.sessions.retrieve(quote.checkout_session_id);
      if (existing.status === 'complete' && existing.payment_status === 'paid') throw conflict('The quote is already paid.');
      if (existing.status === 'open') return { ...sessionView(existing, quote.quote_number), reused: true };
    }
    const created = await stripe.checkout.sessions.create(
      checkoutSessionParams({ organizationId: caller.organizationId, quoteId: id, quoteNumber: quote.quote_number, taxRegion: quote.tax_region, calculation: quote.frozen_calculation, returnUrl: target }),
      // Derived from the quote and the session it replaces (D7): a retried request reuses the answer.
      { idempotencyKey: `quote-${id}-checkout-after-${quote.checkout_session_id ?? 'none'}` },
    );
    await inTenant(this.em, caller.organizationId, (tx) => rememberCheckoutSession(tx, id, created.id));
    return { ...sessionView(created, quote.quote_number), reused: false };
  }

  /** Rule 2: an origin on the allowlist; omitted means the first configured origin. */
  private returnTarget(returnUrl: string | undefined): string {
    const origins = this.deps.returnOrigins;
    if (!returnUrl) {
      if (!origins[0]) throw badRequest('No checkout return origin is configured on this deployment; send return_url.');
      return origins[0];
    }
    const parsed = new URL(returnUrl);
    if (!origins.some((origin) => new URL(origin).origin === parsed.origin)) throw badRequest('return_url is not on this deployment\'s list of return origins.');
    return returnUrl;
  }
}

function sessionView(session: Stripe.Checkout.Session, quoteNumber: number): Omit<CheckoutSession, 'reused'> {
  return {
    session_id: session.id,
    quote_number: quoteNumber,
    url: session.url ?? null,
    status: session.status ?? null,
    payment_status: session.payment_status ?? null,
    amount_total_cents: session.amount_total ?? null,
    currency: session.currency ?? null,
    expires_at: session.expires_at ? new Date(session.expires_at * 1000).toISOString() : null,
  };
}

/** Rule 3: the quote's own per-line integers with quantity 1, plus one line per tax of its region (D25). */
export function checkoutSessionParams(input: {
  organizationId: string;
  quoteId: string;
  quoteNumber: number;
  /** The quote's region; null for an /api/ quote (the default region). */
  taxRegion: string | null;
  calculation: PricedQuote;
  returnUrl: string;
}): Stripe.Checkout.SessionCreateParams {
  const lines: Stripe.Checkout.SessionCreateParams.LineItem[] = input.calculation.line_items.map((line, index) => ({
    quantity: 1,
    price_data: { currency: 'cad', unit_amount: line.price_cents, product_data: { name: `${line.reference ?? `Line ${index + 1}`} (${line.quantity} shade${line.quantity === 1 ? '' : 's'})` } },
  }));
  const subtotal = input.calculation.line_items.reduce((sum, line) => sum + line.price_cents, 0);
  for (const line of quoteTax(input.taxRegion, subtotal).lines) {
    lines.push({ quantity: 1, price_data: { currency: 'cad', unit_amount: line.amount_cents, product_data: { name: taxLineLabel(line) } } });
  }
  const back = (outcome: string) => {
    const url = new URL(input.returnUrl);
    url.searchParams.set('quote', String(input.quoteNumber));
    url.searchParams.set('checkout', outcome);
    return url.toString();
  };
  return {
    mode: 'payment',
    line_items: lines,
    success_url: back('success'),
    cancel_url: back('cancelled'),
    metadata: { organization_id: input.organizationId, quote_id: input.quoteId, quote_number: String(input.quoteNumber) },
  };
}
