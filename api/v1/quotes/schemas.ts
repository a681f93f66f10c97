import { z } from 'zod';
import { SearchParam, Timestamp } from '../../http/common-schemas';
import { v1Page, V1PageQuery } from '../page';
import { TAX_REGIONS } from '../../../domain/tax/canadian-sales-tax';
import { QUOTE_STATUSES } from '../../../domain/quotes/quote-status';

/** D14: the body of `POST /v1/quotes` and of `POST /v1/quotes/{id}/revisions` (document 001 section 4). */
const Configuration = z
  .strictObject({
    finishedWidthIn: z.number().positive().meta({ description: 'The finished width, inches (the width the engine prices)' }),
    finishedHeightIn: z.number().positive().meta({ description: 'The finished height, inches (the drop)' }),
    controlSide: z.enum(['left', 'right']).meta({ description: 'Kept on the line for the workshop' }),
    motorised: z.boolean().default(false),
    motorSku: z.string().min(1).max(64).optional().meta({ description: 'A motor SKU of the rate card; required when motorised' }),
  })
  .superRefine((configuration, ctx) => {
    if (configuration.motorised && configuration.motorSku === undefined) ctx.addIssue({ code: 'custom', path: ['motorSku'], message: 'Required when motorised is true' });
    if (!configuration.motorised && configuration.motorSku !== undefined) ctx.addIssue({ code: 'custom', path: ['motorSku'], message: 'Only for a motorised line (motorised: true)' });
  });

export const QuoteBody = z
  .strictObject({
    customerId: z.uuid().meta({ description: 'A customer of the tenant (GET/POST /v1/customers)' }),
    currency: z.literal('CAD', { error: 'Only CAD is supported' }),
    taxRegion: z.enum(TAX_REGIONS as [string, ...string[]], { error: `A Canadian province or territory code: ${TAX_REGIONS.join(', ')}` }),
    pricebookId: z.uuid().meta({ description: 'The tenant’s rate card (GET /v1/pricebooks); its current revision prices the quote' }),
    laborTierCode: z.string().min(1).max(32).optional().meta({ description: 'The installation labour tier; the rate card’s STANDARD tier (else its first) when omitted' }),
    lines: z
      .array(
        z.strictObject({
          sku: z.string().min(1).max(64).meta({ description: 'A product of the catalogue (GET /v1/products)' }),
          quantity: z.number().int().min(1).max(500),
          configuration: Configuration,
        }),
      )
      .min(1)
      .max(200),
  })
  .meta({ id: 'V1QuoteRequest' });
export type QuoteBody = z.output<typeof QuoteBody>;

const Money = z.number().meta({ description: 'Dollars, at most two decimals, computed from integer cents' });

export const V1_QUOTE_STATUSES = QUOTE_STATUSES.map((status) => status.toLowerCase()) as [string, ...string[]];

export const V1Quote = z
  .strictObject({
    id: z.uuid(),
    reference: z.string().meta({ description: 'The proposal reference, Q-<quote number>' }),
    status: z.enum(V1_QUOTE_STATUSES),
    revision: z.number().int().positive(),
    currency: z.literal('CAD'),
    customerId: z.uuid().nullable().meta({ description: 'null only for a quote priced through /api/v1/quotes/calculate without a customer' }),
    taxRegion: z.string(),
    pricebookId: z.uuid(),
    pricebookRevision: Timestamp.meta({ description: 'The rate-card revision that priced it (absent before version 2026-04-15)' }),
    totals: z.strictObject({ subtotal: Money, taxTotal: Money, grandTotal: Money, marginPct: z.number().meta({ description: 'Percent, two decimals' }), currency: z.literal('CAD') }),
    taxLines: z.array(z.strictObject({ code: z.enum(['GST', 'HST', 'PST', 'QST']), rate: z.number(), amount: Money })),
    lines: z.array(
      z.strictObject({
        sku: z.string().nullable().meta({ description: 'The catalogue product; null on a line priced through /api/v1/quotes/calculate, which names component SKUs instead' }),
        quantity: z.number().int(),
        unitPrice: Money.meta({ description: 'extendedPrice / quantity, half-up to the cent; extendedPrice is what the quote sums' }),
        extendedPrice: Money,
        cutList: z.strictObject({ tubeIn: z.number(), hembarIn: z.number(), fabricIn: z.number() }),
        deduction: z.number().meta({ description: 'Inches the tube is cut shorter than the finished width (an object before version 2026-07-01)' }),
        marginPct: z.number(),
        configuration: z.strictObject({
          finishedWidthIn: z.number(),
          finishedHeightIn: z.number(),
          controlSide: z.enum(['left', 'right']).nullable().meta({ description: 'null on a line priced through /api/v1/quotes/calculate, which does not record it' }),
          motorised: z.boolean(),
          motorSku: z.string().nullable(),
        }),
      }),
    ),
    createdAt: Timestamp,
  })
  .meta({ id: 'V1Quote' });
export type V1Quote = z.output<typeof V1Quote>;

export const V1QuotePage = v1Page(V1Quote, 'V1QuotePage');

/** `GET /v1/quotes`: newest first, by reference, status or text. */
export const V1QuoteListQuery = V1PageQuery.extend({
  reference: z
    .string()
    .regex(/^Q-[1-9]\d{0,8}$/, 'A quote reference: Q- and the quote number, as in Q-12')
    .optional()
    .meta({ description: 'The quote of this reference (at most one)', example: 'Q-12' }),
  status: z.enum(V1_QUOTE_STATUSES).optional(),
  q: SearchParam.meta({ description: 'Text in the customer’s name or the reference, case-insensitive', example: 'rivera' }),
});
export type V1QuoteListQuery = z.output<typeof V1QuoteListQuery>;

export const IdempotencyHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().meta({ description: '1-255 characters; the first response is answered again for 24 hours' }),
  'Service-Version': z.string().optional().meta({ description: 'YYYY-MM-DD; the tenant’s pinned version when omitted' }),
});

export const Product = z
  .strictObject({
    id: z.uuid(),
    sku: z.string(),
    name: z.string(),
    components: z.strictObject({ fabricSku: z.string(), hardwareSku: z.string(), trimSku: z.string().nullable() }),
  })
  .meta({ id: 'V1Product' });
export const ProductPage = v1Page(Product, 'V1ProductPage');
export const PageQuery = V1PageQuery;
export const CustomerListQuery = V1PageQuery.extend({ q: SearchParam.meta({ description: 'Text in the name or the email, case-insensitive', example: 'rivera' }) });

export const Customer = z.strictObject({ id: z.uuid(), name: z.string(), email: z.string().nullable(), createdAt: Timestamp }).meta({ id: 'V1Customer' });
export const CustomerPage = v1Page(Customer, 'V1CustomerPage');
export const CustomerBody = z.strictObject({ name: z.string().trim().min(1).max(200), email: z.email().max(320).optional() }).meta({ id: 'V1CustomerRequest' });

export const Pricebook = z.strictObject({ id: z.uuid(), revision: Timestamp, currency: z.literal('CAD') }).meta({ id: 'V1Pricebook' });
export const PricebookList = z.strictObject({ data: z.array(Pricebook) }).meta({ id: 'V1PricebookList' });
