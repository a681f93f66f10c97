import { z } from 'zod';
import { Timestamp } from '../http/common-schemas';

/** Section 2.3 InvoiceView. */
export const InvoiceView = z
  .strictObject({
    quote_number: z.number().int(),
    invoice_id: z.string(),
    number: z.string().nullable(),
    status: z.string().nullable(),
    mode: z.enum(['test', 'live', 'unknown']).meta({ description: "From the provider's live-mode flag on the invoice" }),
    currency: z.string(),
    subtotal_cents: z.number().int().nullable(),
    tax_cents: z.number().int().nullable().meta({ description: 'The sum of the tax lines (one per tax of the quote’s region); null when no line is marked as tax; 0 means no tax' }),
    total_cents: z.number().int().nullable(),
    amount_due_cents: z.number().int().nullable(),
    created_at: Timestamp.nullable(),
    hosted_invoice_url: z.string().nullable(),
    invoice_pdf_url: z.string().nullable(),
    lines: z.array(z.strictObject({ description: z.string(), amount_cents: z.number().int(), is_tax: z.boolean() })),
    created: z.boolean(),
  })
  .meta({ id: 'InvoiceView' });
export type InvoiceView = z.infer<typeof InvoiceView>;

/** Section 2.3 CheckoutSession. */
export const CheckoutSession = z
  .strictObject({
    session_id: z.string(),
    quote_number: z.number().int(),
    url: z.string().nullable(),
    status: z.string().nullable(),
    payment_status: z.string().nullable(),
    amount_total_cents: z.number().int().nullable(),
    currency: z.string().nullable(),
    expires_at: Timestamp.nullable(),
    reused: z.boolean(),
  })
  .meta({ id: 'CheckoutSession' });
export type CheckoutSession = z.infer<typeof CheckoutSession>;

export const CheckoutBody = z
  .strictObject({ return_url: z.url().max(2000).optional().meta({ description: 'An origin on CHECKOUT_RETURN_ORIGINS; omitted: the first one' }) })
  .meta({ id: 'CheckoutRequest' });

export const WebhookReceipt = z.strictObject({ received: z.literal(true), handled: z.boolean() }).meta({ id: 'WebhookReceipt' });

/**
 * The payments provider's event as it arrives (documented, not validated: the handler verifies
 * the signature over the raw bytes first and reads only what it needs).
 */
export const PaymentsEvent = z
  .looseObject({
    id: z.string(),
    type: z.string().meta({ description: 'invoice.paid and a paid checkout.session.completed set paid_at on the quote; others are acknowledged' }),
    created: z.number().int().optional(),
    data: z.looseObject({
      object: z.looseObject({
        metadata: z.record(z.string(), z.string()).optional().meta({ description: 'organization_id and quote_id, as our invoices and sessions carry them' }),
      }),
    }),
  })
  .meta({ id: 'PaymentsEvent' });

export const PaymentsSignatureHeaders = z.object({
  'payments-signature': z
    .string()
    .meta({ description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">; the provider’s own Stripe-Signature header is accepted too', example: 't=1795430001,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd' }),
});
