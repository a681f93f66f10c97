import type { z } from 'zod';
import type { CheckoutBody, CheckoutSession, InvoiceView, PaymentsEvent } from './schemas';
import { CALCULATION_RESULT_EXAMPLE, EXAMPLE_QUOTE_ID, EXAMPLE_QUOTE_NUMBER } from '../quotes/examples';
import { SANDBOX_ORGANIZATION_ID } from '../auth/examples';
import { quoteTax, taxLineLabel } from '../../domain/tax/quote-tax';

/**
 * Examples for the OpenAPI document: the invoice and checkout of the example quote, in test
 * mode, with the lines and the tax lines the payments leg writes for it (an /api/ quote: Ontario's HST, D25).
 */
const invoiceLines = CALCULATION_RESULT_EXAMPLE.line_items.map((line, index) => ({
  description: `${line.reference ?? `Line ${index + 1}`}: ${line.quantity} × ${line.width_inches}" × ${line.drop_inches}" roller shade`,
  amount_cents: line.price_cents,
  is_tax: false,
}));
const subtotal = invoiceLines.reduce((sum, line) => sum + line.amount_cents, 0);
const quoteTaxLines = quoteTax(null, subtotal);
const tax = quoteTaxLines.total_cents;

export const INVOICE_VIEW_EXAMPLE: z.input<typeof InvoiceView> = {
  quote_number: EXAMPLE_QUOTE_NUMBER,
  invoice_id: 'in_1QdXk2Lz8vTn4pRa9sEyWbHc',
  number: 'A1B2C3D4-0001',
  status: 'open',
  mode: 'test',
  currency: 'cad',
  subtotal_cents: subtotal,
  tax_cents: tax,
  total_cents: subtotal + tax,
  amount_due_cents: subtotal + tax,
  created_at: '2026-11-21T16:45:03.000Z',
  hosted_invoice_url: 'https://invoice.stripe.com/i/acct_1QdXk2Lz8vTn4pRa/test_YWNjdF8xUWRYazJMejh2VG40cFJh',
  invoice_pdf_url: 'https://pay.stripe.com/invoice/acct_1QdXk2Lz8vTn4pRa/test_YWNjdF8xUWRYazJMejh2VG40cFJh/pdf',
  lines: [...invoiceLines, ...quoteTaxLines.lines.map((line) => ({ description: taxLineLabel(line), amount_cents: line.amount_cents, is_tax: true }))],
  created: false,
};

export const CHECKOUT_REQUEST_EXAMPLE: z.input<typeof CheckoutBody> = { return_url: 'https://shades.example.test/quotes' };

export const CHECKOUT_SESSION_EXAMPLE: z.input<typeof CheckoutSession> = {
  session_id: 'cs_test_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ',
  quote_number: EXAMPLE_QUOTE_NUMBER,
  url: 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ',
  status: 'open',
  payment_status: 'unpaid',
  amount_total_cents: subtotal + tax,
  currency: 'cad',
  expires_at: '2026-11-22T16:50:00.000Z',
  reused: false,
};

export const PAYMENTS_EVENT_EXAMPLE: z.input<typeof PaymentsEvent> = {
  id: 'evt_1QdXq7Lz8vTn4pRaKf3mZ2Yt',
  object: 'event',
  type: 'invoice.paid',
  created: 1_795_430_000,
  livemode: false,
  data: {
    object: {
      id: 'in_1QdXk2Lz8vTn4pRa9sEyWbHc',
      object: 'invoice',
      status: 'paid',
      status_transitions: { paid_at: 1_795_429_990 },
      metadata: { organization_id: SANDBOX_ORGANIZATION_ID, quote_id: EXAMPLE_QUOTE_ID },
    },
  },
};
