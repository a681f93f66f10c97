import type { z } from 'zod';
import { priceQuote } from '../../domain/pricing/engine';
import { buildRateCardSnapshot } from '../../domain/pricing/rate-card';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import type { ApprovedQuote, CalculateBody, CalculationResult, QuoteDetail, QuotePage, QuoteSummary, SentQuote } from './schemas';
import { SANDBOX_ADMIN_ID } from '../auth/examples';

/**
 * Examples for the OpenAPI document, on the sandbox's rate card (D1). The calculate request is
 * one a client can send as it is (a test sends it to a tenant with that card), and the result
 * shown is what the pricing engine makes of it, not figures typed by hand.
 */
export const CALCULATE_EXAMPLE = {
  laborTierCode: 'STANDARD',
  lineItems: [
    { reference: 'Living room', widthInches: 72.5, dropInches: 60, quantity: 2, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD', motorSkuCode: 'MTR-BATTERY' },
    { reference: 'Bedroom', widthInches: 35.25, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD', trimSkuCode: 'TRIM-CASSETTE' },
  ],
  targetMargin: 0.4,
  customer: { name: 'Jordan Rivera', email: 'jordan@example.test' },
  persist: true,
} satisfies z.input<typeof CalculateBody>;

export const EXAMPLE_QUOTE_ID = '3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e';
export const EXAMPLE_QUOTE_NUMBER = 1042;
export const EXAMPLE_CREATED_AT = '2026-11-20T15:04:05.000Z';

const sandboxCard = buildRateCardSnapshot({
  revision: '2026-11-01T00:00:00.000Z',
  settings: SANDBOX_RATE_CARD.settings,
  skus: SANDBOX_RATE_CARD.skus,
  labourTiers: SANDBOX_RATE_CARD.labourTiers,
});
const priced = priceQuote({ request: CALCULATE_EXAMPLE, rateCard: sandboxCard, overrideAuthorised: false });

export const CALCULATION_RESULT_EXAMPLE: z.input<typeof CalculationResult> = {
  ...priced,
  quote_id: EXAMPLE_QUOTE_ID,
  quote_number: EXAMPLE_QUOTE_NUMBER,
  status: 'DRAFT',
  persisted: true,
};

export const QUOTE_SUMMARY_EXAMPLE: z.input<typeof QuoteSummary> = {
  id: EXAMPLE_QUOTE_ID,
  quote_number: EXAMPLE_QUOTE_NUMBER,
  status: 'DRAFT',
  total_amount_cents: priced.totals.amount_cents,
  margin_percent: priced.totals.margin_percent,
  customer_name: CALCULATE_EXAMPLE.customer.name,
  created_at: EXAMPLE_CREATED_AT,
  created_by: { id: SANDBOX_ADMIN_ID, name: 'Avery Admin', email: 'admin@sandbox.test' },
};

export const QUOTE_PAGE_EXAMPLE: z.input<typeof QuotePage> = {
  data: [
    QUOTE_SUMMARY_EXAMPLE,
    { ...QUOTE_SUMMARY_EXAMPLE, id: '9e2d4b6f-8a1c-4e3d-b5f7-0c2e4a6b8d1f', quote_number: 1041, status: 'APPROVED', total_amount_cents: 186_415, margin_percent: '0.3500', customer_name: 'Morgan Lee', created_at: '2026-11-19T10:22:31.000Z' },
  ],
  next_cursor: '9e2d4b6f-8a1c-4e3d-b5f7-0c2e4a6b8d1f',
};

export const APPROVED_QUOTE_EXAMPLE: z.input<typeof ApprovedQuote> = {
  id: EXAMPLE_QUOTE_ID,
  quote_number: EXAMPLE_QUOTE_NUMBER,
  status: 'APPROVED',
  approved_at: '2026-11-21T16:45:00.000Z',
};

export const SENT_QUOTE_EXAMPLE: z.input<typeof SentQuote> = {
  ...QUOTE_SUMMARY_EXAMPLE,
  status: 'SENT',
  page_url: 'http://localhost:3000/q/7mQx2Vb9KpLr4TnY8wZc1HdF6sJa3GeU0oBiNkPqRvS',
};

export const QUOTE_DETAIL_EXAMPLE: z.input<typeof QuoteDetail> = {
  ...QUOTE_SUMMARY_EXAMPLE,
  status: 'APPROVED',
  customer_email: CALCULATE_EXAMPLE.customer.email,
  override_reason: null,
  sent_at: '2026-11-20T15:30:00.000Z',
  approved_at: APPROVED_QUOTE_EXAMPLE.approved_at,
  rejected_at: null,
  expired_at: null,
  paid_at: null,
  acceptance: {
    name: 'Morgan Lee',
    accepted_at: APPROVED_QUOTE_EXAMPLE.approved_at!,
    client_address: '203.0.113.24',
    user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  },
  customer_decline: null,
  lines: CALCULATE_EXAMPLE.lineItems.map((line, position) => ({
    position,
    reference: line.reference,
    width_inches: line.widthInches,
    drop_inches: line.dropInches,
    quantity: line.quantity,
    fabric_sku_code: line.fabricSkuCode,
    hardware_sku_code: line.hardwareSkuCode,
    motor_sku_code: ('motorSkuCode' in line ? line.motorSkuCode : undefined) ?? null,
    trim_sku_code: ('trimSkuCode' in line ? line.trimSkuCode : undefined) ?? null,
    cost_cents: priced.line_items[position]!.cost_cents,
    price_cents: priced.line_items[position]!.price_cents,
  })),
  calculation: { ...CALCULATION_RESULT_EXAMPLE, status: 'APPROVED' },
};
