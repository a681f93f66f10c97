import { z } from 'zod';
import { SearchParam, Timestamp } from '../http/common-schemas';
import { compileAcceptor } from '../http/compiled-acceptor';
import { QUOTE_STATUSES, type QuoteStatus } from '../../domain/quotes/quote-status';
import { CalculateBody, CalculationResult } from '../../domain/pricing/calculation-schemas';

/** A 200-line body is checked by ajv first; zod words what it refuses (api/http/compiled-acceptor.ts). */
export const acceptCalculateBody = compileAcceptor(CalculateBody);

export type { QuoteStatus };
export { CalculateBody, CalculationResult };

const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/).meta({ description: 'Exact decimal as a string' });
const Cents = z.number().int();

export const QuoteSummary = z
  .strictObject({
    id: z.uuid(),
    quote_number: z.number().int(),
    status: z.enum(QUOTE_STATUSES),
    total_amount_cents: Cents,
    margin_percent: DecimalString,
    customer_name: z.string().nullable(),
    created_at: Timestamp,
    created_by: z.strictObject({ id: z.uuid(), name: z.string(), email: z.string() }).nullable(),
  })
  .meta({ id: 'QuoteSummary' });
export type QuoteSummary = z.infer<typeof QuoteSummary>;

export const QuotePage = z.strictObject({ data: z.array(QuoteSummary), next_cursor: z.uuid().nullable() }).meta({ id: 'QuotePage' });

export const QuoteListQuery = z.strictObject({
  status: z.enum(QUOTE_STATUSES).optional(),
  number: z.coerce.number().int().min(1).max(2_147_483_647).optional().meta({ description: 'The quote of this number (at most one)', example: 12 }),
  q: SearchParam.meta({ description: 'Text in the customer’s name or the reference (Q-<number>), case-insensitive', example: 'rivera' }),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.uuid().optional(),
});
export type QuoteListQuery = z.output<typeof QuoteListQuery>;

/** Section 2.3 ApprovedQuote. */
export const ApprovedQuote = z
  .strictObject({ id: z.uuid(), quote_number: z.number().int(), status: z.enum(QUOTE_STATUSES), approved_at: Timestamp.nullable() })
  .meta({ id: 'ApprovedQuote' });
export type ApprovedQuote = z.infer<typeof ApprovedQuote>;

/** D24: a quote just sent, with the link to its page (emailed to the customer when they have an email). */
export const SentQuote = z
  .strictObject({
    ...QuoteSummary.shape,
    page_url: z.url().meta({ description: "The quote's page for the customer, `<PUBLIC_BASE_URL>/q/<token>`; a new send voids it" }),
  })
  .meta({ id: 'SentQuote' });
export type SentQuote = z.infer<typeof SentQuote>;

/** One line as it was asked for: dimensions and SKU codes, with its cost and price. */
export const QuoteLine = z.strictObject({
  position: z.number().int().min(0),
  reference: z.string().nullable(),
  width_inches: z.number(),
  drop_inches: z.number(),
  quantity: z.number().int(),
  fabric_sku_code: z.string(),
  hardware_sku_code: z.string(),
  motor_sku_code: z.string().nullable(),
  trim_sku_code: z.string().nullable(),
  cost_cents: Cents,
  price_cents: Cents,
});

/**
 * GET /api/v1/quotes/{id}: the QuoteSummary's fields, then what a client needs to show or
 * reprice the quote: its lines, its calculation as it was priced, and when it moved.
 */
export const QuoteDetail = z
  .strictObject({
    ...QuoteSummary.shape,
    customer_email: z.string().nullable(),
    override_reason: z.string().nullable().meta({ description: 'Why an ADMIN priced it below the margin floor; null otherwise' }),
    sent_at: Timestamp.nullable(),
    approved_at: Timestamp.nullable(),
    rejected_at: Timestamp.nullable(),
    expired_at: Timestamp.nullable(),
    paid_at: Timestamp.nullable(),
    acceptance: z
      .strictObject({
        name: z.string().meta({ description: 'The name the customer typed to accept' }),
        accepted_at: Timestamp,
        client_address: z.string().meta({ description: 'The address the acceptance came from' }),
        user_agent: z.string().nullable(),
      })
      .nullable()
      .meta({ description: "The customer's acceptance on the quote's page; null unless they accepted there" }),
    customer_decline: z
      .strictObject({ declined_at: Timestamp, reason: z.string().nullable() })
      .nullable()
      .meta({ description: "The customer's decline on the quote's page, with their reason if they gave one; null otherwise" }),
    lines: z.array(QuoteLine),
    // As calculate answered it when the quote was persisted, with the quote's current status.
    calculation: CalculationResult,
  })
  .meta({ id: 'QuoteDetail' });
export type QuoteDetail = z.infer<typeof QuoteDetail>;
