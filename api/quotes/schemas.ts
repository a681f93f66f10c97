import { z } from 'zod';
import { Timestamp } from '../http/common-schemas';
import { compileAcceptor } from '../http/compiled-acceptor';
import { QUOTE_STATUSES, type QuoteStatus } from '../../db/quotes/quote-status';

/** Section 4.3 body of POST /api/v1/quotes/calculate (limits of section 8). */
const SkuCode = z.string().min(1).max(64);
export const CalculateBody = z
  .strictObject({
    laborTierCode: z.string().min(1).max(32),
    lineItems: z
      .array(
        z.strictObject({
          reference: z.string().max(120).optional(),
          widthInches: z.number().positive(),
          dropInches: z.number().positive(),
          quantity: z.number().int().min(1).max(500),
          fabricSkuCode: SkuCode,
          hardwareSkuCode: SkuCode,
          motorSkuCode: SkuCode.optional(),
          trimSkuCode: SkuCode.optional(),
        }),
      )
      .min(1)
      .max(200),
    targetMargin: z.number().min(0).lt(1).optional().meta({ description: 'A fraction in [0, 1), never a percentage; omitted prices at the floor' }),
    marginOverride: z.strictObject({ reason: z.string().min(10).max(500) }).optional(),
    customer: z.strictObject({ name: z.string().min(1).max(200), email: z.email().max(320).optional() }).optional(),
    persist: z.boolean().default(false),
  })
  .meta({ id: 'CalculateRequest' });
export type CalculateBody = z.output<typeof CalculateBody>;
/** Issue 19: a 200-line body is checked by ajv first; zod words what it refuses (api/http/compiled-acceptor.ts). */
export const acceptCalculateBody = compileAcceptor(CalculateBody);

export type { QuoteStatus };

const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/).meta({ description: 'Exact decimal as a string' });
const Cents = z.number().int();

const Component = z.strictObject({
  component: z.enum(['fabric', 'hardware', 'motor', 'trim', 'labour']),
  sku_code: z.string().nullable(),
  description: z.string(),
  quantity: DecimalString,
  unit: z.string(),
  unit_cost_cents: DecimalString,
  extended_cost_cents: Cents,
});

const LineItem = z.strictObject({
  reference: z.string().nullable(),
  width_inches: z.number(),
  drop_inches: z.number(),
  quantity: z.number().int(),
  opening_square_feet: DecimalString,
  fabric_square_feet_with_waste: DecimalString,
  labour_hours: DecimalString,
  cut_list: z.strictObject({
    tube_length_inches: DecimalString,
    hembar_length_inches: DecimalString,
    fabric_width_inches: DecimalString,
    fabric_drop_inches: DecimalString,
    fabric_square_feet: DecimalString,
  }),
  components: z.array(Component),
  cost_cents: Cents,
  price_cents: Cents,
});

/** Section 2.3 CalculationResult. */
export const CalculationResult = z
  .strictObject({
    currency: z.literal('CAD'),
    labor_tier: z.strictObject({ code: z.string(), name: z.string(), hourly_rate_cents: Cents, multiplier: DecimalString }),
    margin_floor: DecimalString,
    applied_margin: DecimalString,
    floor_overridden: z.boolean(),
    target_margin: DecimalString.meta({ description: 'Deprecated alias of applied_margin', deprecated: true }),
    line_items: z.array(LineItem),
    totals: z.strictObject({ cost_cents: Cents, amount_cents: Cents, profit_cents: Cents, margin_percent: DecimalString }),
    assumptions: z.strictObject({
      fabric_waste_factor: DecimalString,
      labour_base_hours_per_unit: DecimalString,
      labour_hours_per_square_foot: DecimalString,
      labour_motorisation_hours: DecimalString,
    }),
    quote_id: z.uuid().nullable(),
    quote_number: z.number().int().nullable(),
    status: z.enum(QUOTE_STATUSES).nullable(),
    persisted: z.boolean(),
  })
  .meta({ id: 'CalculationResult' });

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
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.uuid().optional(),
});
export type QuoteListQuery = z.output<typeof QuoteListQuery>;

/** Section 2.3 ApprovedQuote. */
export const ApprovedQuote = z
  .strictObject({ id: z.uuid(), quote_number: z.number().int(), status: z.enum(QUOTE_STATUSES), approved_at: Timestamp.nullable() })
  .meta({ id: 'ApprovedQuote' });
export type ApprovedQuote = z.infer<typeof ApprovedQuote>;

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
    lines: z.array(QuoteLine),
    // As calculate answered it when the quote was persisted, with the quote's current status.
    calculation: CalculationResult,
  })
  .meta({ id: 'QuoteDetail' });
export type QuoteDetail = z.infer<typeof QuoteDetail>;
