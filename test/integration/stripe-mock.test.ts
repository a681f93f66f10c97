import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { startStripeMock } from '../../scripts/infra/stripe-mock';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { writeInvoice } from '../../activities/payments/write-invoice';
import { creditNoteKey, creditNoteParams, type CreditNoteRequest } from '../../activities/payments/write-credit-note';
import { readInvoiceView } from '../../api/payments/invoice-view';
import { checkoutSessionParams } from '../../api/payments/payments-service';
import { priceQuote } from '../../domain/pricing/engine';
import { buildRateCardSnapshot } from '../../domain/pricing/rate-card';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { quoteTax } from '../../domain/tax/quote-tax';
import { twoWindows } from '../../scripts/harness/quote-requests';
import type { CalculateBody } from '../../api/quotes/schemas';

/**
 * Every payments request our code makes, sent to Stripe's own mock, which validates each one
 * against Stripe's published OpenAPI description and refuses what the real API would refuse.
 * `npm test` builds stripe-mock once per machine (like the Temporal CLI) and passes its path.
 */
let mock: Awaited<ReturnType<typeof startStripeMock>>;
let stripe: Stripe;

beforeAll(async () => {
  const binary = process.env.STRIPE_MOCK_BIN;
  if (!binary) throw new Error('STRIPE_MOCK_BIN is not set: run the suite with `npm test`, which provides stripe-mock');
  mock = await startStripeMock(binary);
  stripe = createStripeClient({ secretKey: 'sk_test_123', baseUrl: mock.url });
}, 60_000);
afterAll(() => mock?.stop());

const calculation = priceQuote({ request: twoWindows() as unknown as CalculateBody, rateCard: buildRateCardSnapshot({ revision: 'r', ...SANDBOX_RATE_CARD }), overrideAuthorised: false });

describe('payments calls against stripe-mock', () => {
  it('accepts the whole invoice write of the approval fan-out, with its idempotency keys', async () => {
    const lines = calculation.line_items.map((l, i) => ({ description: `Line ${i + 1}`, amountCents: l.price_cents }));
    const subtotal = lines.reduce((sum, l) => sum + l.amountCents, 0);
    let remembered: string | undefined;
    const written = await writeInvoice(
      stripe,
      {
        organizationId: randomUUID(),
        quoteId: randomUUID(),
        quoteNumber: 7,
        status: 'APPROVED',
        customer: { id: randomUUID(), name: 'Riley Chen', email: 'riley@example.test', paymentsCustomerId: null },
        lines,
        subtotalCents: subtotal,
        // D25: a Quebec quote, two tax lines (GST and QST).
        tax: quoteTax('CA-QC', subtotal),
        approvedAt: new Date().toISOString(),
      },
      async (id) => {
        remembered = id;
      },
    );
    expect(written.invoiceId).toMatch(/^in_/);
    expect(remembered).toMatch(/^cus_/);
  });

  it('accepts the invoice read of GET /quotes/{id}/invoice', async () => {
    const view = await readInvoiceView(stripe, 'in_123', 7, false);
    expect(view.invoice_id).toBeTruthy();
    expect(['test', 'live', 'unknown']).toContain(view.mode);
  });

  it('accepts the checkout session of POST /quotes/{id}/checkout-session', async () => {
    const params = checkoutSessionParams({ organizationId: randomUUID(), quoteId: randomUUID(), quoteNumber: 7, taxRegion: 'CA-QC', calculation, returnUrl: 'https://shades.example.test/paid' });
    const session = await stripe.checkout.sessions.create(params, { idempotencyKey: `quote-${randomUUID()}-checkout-after-none` });
    expect(session.id).toMatch(/^cs_/);
    await expect(stripe.checkout.sessions.retrieve(session.id)).resolves.toBeTruthy();
  });

  it('accepts the credit note of a change order for less (D12), before and after payment, and its lookup on the invoice', async () => {
    const request: CreditNoteRequest = {
      organizationId: randomUUID(),
      quoteId: randomUUID(),
      quoteNumber: 7,
      invoiceId: 'in_123',
      changeOrder: { id: randomUUID(), sequence: 2, reason: 'The customer keeps the old valance' },
      creditCents: 17_250,
      taxLines: quoteTax('CA-QC', 17_250).lines,
    };
    for (const outOfBand of [0, 19_493]) {
      const note = await stripe.creditNotes.create(creditNoteParams(request, outOfBand), { idempotencyKey: creditNoteKey(request, outOfBand) });
      expect(note.id).toMatch(/^cn_/);
    }
    const listed = await stripe.creditNotes.list({ invoice: 'in_123', limit: 100 });
    expect(Array.isArray(listed.data)).toBe(true);
  });

  it('refuses what Stripe would refuse (the mock is not a yes-machine)', async () => {
    await expect(stripe.invoices.create({ collection_method: 'send_invoice', days_until_due: 'fourteen' as unknown as number })).rejects.toMatchObject({ statusCode: 400 });
    await expect(stripe.creditNotes.create({ invoice: 'in_123', reason: 'shrinkage' as 'order_change', amount: 100 })).rejects.toMatchObject({ statusCode: 400 });
  });
});
