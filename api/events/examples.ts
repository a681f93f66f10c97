import type { z } from 'zod';
import type { EventName } from '../../domain/events/catalogue';
import type { EVENT_SCHEMAS } from './schemas';
import { SANDBOX_ADMIN_ID, SANDBOX_ORGANIZATION_ID } from '../auth/examples';
import { APPROVED_QUOTE_EXAMPLE, CALCULATE_EXAMPLE, CALCULATION_RESULT_EXAMPLE, EXAMPLE_QUOTE_ID, EXAMPLE_QUOTE_NUMBER } from '../quotes/examples';
import { EXAMPLE_WORK_ORDER_ID, SANDBOX_TECHNICIAN_ID } from '../work-orders/examples';

/** Examples for the OpenAPI document: the example quote approved, then its work order moving. */
const workOrderEvent = <S extends 'PENDING' | 'DISPATCHED' | 'COMPLETED' | 'CANCELLED'>(status: S, id: string, at: string, by: string) => ({
  event: `work_order.${status.toLowerCase()}` as `work_order.${Lowercase<S>}`,
  id,
  organization_id: SANDBOX_ORGANIZATION_ID,
  created_at: at,
  data: { work_order_id: EXAMPLE_WORK_ORDER_ID, status, quote_id: EXAMPLE_QUOTE_ID, assigned_technician_id: SANDBOX_TECHNICIAN_ID, changed_by_user_id: by, changed_at: at },
});

export const EVENT_EXAMPLES: { [E in EventName]: z.input<(typeof EVENT_SCHEMAS)[E]> } = {
  'quote.approved': {
    event: 'quote.approved',
    id: 'd4f6b8a0-2c4e-4d7f-a1b3-5d7f9a1c3e8b',
    organization_id: SANDBOX_ORGANIZATION_ID,
    created_at: APPROVED_QUOTE_EXAMPLE.approved_at!,
    data: {
      quote_id: EXAMPLE_QUOTE_ID,
      quote_number: EXAMPLE_QUOTE_NUMBER,
      status: 'APPROVED',
      total_amount_cents: CALCULATION_RESULT_EXAMPLE.totals.amount_cents,
      total_cost_cents: CALCULATION_RESULT_EXAMPLE.totals.cost_cents,
      margin_percent: CALCULATION_RESULT_EXAMPLE.totals.margin_percent,
      customer_name: CALCULATE_EXAMPLE.customer.name,
      customer_email: CALCULATE_EXAMPLE.customer.email,
      approved_at: APPROVED_QUOTE_EXAMPLE.approved_at!,
      approved_by_user_id: SANDBOX_ADMIN_ID,
    },
  },
  'work_order.dispatched': workOrderEvent('DISPATCHED', 'e7b9d1f3-5a7c-4e0b-92d4-6f8a0c2e4b9d', '2026-12-02T17:10:00.000Z', SANDBOX_ADMIN_ID),
  'work_order.completed': workOrderEvent('COMPLETED', 'f8c0e2a4-6b8d-4f1c-a3e5-7a9b1d3f5c0e', '2026-12-03T15:42:18.000Z', SANDBOX_TECHNICIAN_ID),
  'work_order.pending': workOrderEvent('PENDING', 'a9d1f3b5-7c9e-4a2d-b4f6-8b0c2e4a6d1f', '2026-12-02T18:05:00.000Z', SANDBOX_ADMIN_ID),
  'work_order.cancelled': workOrderEvent('CANCELLED', 'b0e2a4c6-8d0f-4b3e-85a7-9c1d3f5b7e2a', '2026-12-02T18:30:00.000Z', SANDBOX_ADMIN_ID),
};
