import { z } from 'zod';
import { QUOTE_STATUSES } from '../quotes/quote-status';

/**
 * The calculate request (section 4.3) and the CalculationResult (section 2.3) the engine is typed
 * by: the API validates with them and documents them, the engine takes and answers them.
 */
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
    customer: z
      .strictObject({ name: z.string().min(1).max(200), email: z.email().max(320).optional() })
      .optional()
      .meta({ description: 'A new customer (or, with an email the workspace has, that customer renamed); send `customerId` instead to quote an existing one' }),
    customerId: z.uuid().optional().meta({ description: 'An existing customer of the workspace (GET /v1/customers); not together with `customer`' }),
    persist: z.boolean().default(false),
  })
  .meta({ id: 'CalculateRequest' });
export type CalculateBody = z.output<typeof CalculateBody>;
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
