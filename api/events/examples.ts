import type { z } from 'zod';
import type { EventEnvelope, EventName, EventsEventName, FieldEventName, OutboxEventName } from '../../domain/events/catalogue';
import type { EventData } from '../../domain/events/event-data';
import { renderBody } from '../../domain/webhooks/formats';
import { CURRENT_VERSION } from '../../domain/versions/versions';
import { dollars, percentOf } from '../../domain/money';
import { quoteTax } from '../../domain/tax/quote-tax';
import type { EVENT_SCHEMAS } from './schemas';
import { SANDBOX_ADMIN_ID, SANDBOX_ORGANIZATION_ID } from '../auth/examples';
import { APPROVED_QUOTE_EXAMPLE, CALCULATE_EXAMPLE, CALCULATION_RESULT_EXAMPLE, EXAMPLE_CREATED_AT, EXAMPLE_QUOTE_ID, EXAMPLE_QUOTE_NUMBER } from '../quotes/examples';
import { EXAMPLE_WORK_ORDER_ID, SANDBOX_TECHNICIAN_ID } from '../work-orders/examples';
import { CHANGE_ORDER_EXAMPLE, CREW_EXAMPLE } from '../fsm/examples';

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
  'dispatch.updated': {
    event: 'dispatch.updated',
    id: 'f2b4d6e8-1a3c-4e5f-9b7d-2c4e6a8b0d1f',
    organization_id: SANDBOX_ORGANIZATION_ID,
    created_at: '2026-12-03T14:05:12.000Z',
    data: {
      id: '3c5e7a9b-1d3f-4a5c-8e7a-9b1d3f5a7c9e',
      date: '2026-12-03',
      assigneeId: SANDBOX_TECHNICIAN_ID,
      totalDriveMinutes: 74,
      overtimeMinutes: 0,
      stops: [
        { sequence: 1, jobId: EXAMPLE_WORK_ORDER_ID, etaLocal: '2026-12-03T08:25', status: 'planned' },
        { sequence: 2, jobId: '8a0c2e4b-6d8f-4a1c-9e3b-5d7f9a1c3e5b', etaLocal: '2026-12-03T11:40', status: 'planned' },
      ],
      changeReason: 'resequencing',
      revision: 4,
      previousAttributes: {
        totalDriveMinutes: 81,
        stops: [
          { sequence: 1, jobId: '8a0c2e4b-6d8f-4a1c-9e3b-5d7f9a1c3e5b', etaLocal: '2026-12-03T08:30', status: 'planned' },
          { sequence: 2, jobId: EXAMPLE_WORK_ORDER_ID, etaLocal: '2026-12-03T11:10', status: 'planned' },
        ],
      },
    },
  },
  'pricebook.published': {
    event: 'pricebook.published',
    id: 'e1a3c5e7-0b2d-4f4a-8c6e-1a3c5e7f9b2d',
    organization_id: SANDBOX_ORGANIZATION_ID,
    created_at: '2026-11-30T05:00:00.000Z',
    data: { pricebook_id: SANDBOX_ORGANIZATION_ID, revision: '2026-11-26T15:04:05.123Z', effective_from: '2026-11-30T05:00:00.000Z', published_by_user_id: SANDBOX_ADMIN_ID },
  },
};

/**
 * The data of the field catalogue's events (document 001 sections 6.1 and 6.2), for the same
 * story: the example quote created, its job dispatched to a crew, a change order raised, decided
 * and invoiced, the job completed.
 */
const CUSTOMER_ID = '6e8a0c2e-4b6d-4f8a-9c1e-3b5d7f9a1c2e';
const subtotalCents = CALCULATION_RESULT_EXAMPLE.totals.amount_cents;
// D25: a quote without a region is taxed as Ontario's.
const tax = quoteTax(null, subtotalCents);
const taxCents = tax.total_cents;
const { change_order_id, job_id, quote_ref, sequence, reason, delta, revised_contract_value, margin } = CHANGE_ORDER_EXAMPLE;
const changeOrder = { change_order_id, job_id, quote_ref, sequence, reason, delta, revised_contract_value, margin };

const FIELD_DATA_EXAMPLES: { [N in Exclude<FieldEventName, 'dispatch.updated'>]: EventData<N> } = {
  'job.dispatched': { job_id: EXAMPLE_WORK_ORDER_ID, crew_id: CREW_EXAMPLE.crew_id, assigned_technician_id: SANDBOX_TECHNICIAN_ID, dispatched_at: '2026-12-02T17:10:00.000Z' },
  'job.status_changed': { job_id: EXAMPLE_WORK_ORDER_ID, from: 'dispatched', to: 'in_progress', changed_by_user_id: SANDBOX_TECHNICIAN_ID, changed_at: '2026-12-03T13:12:40.000Z' },
  'job.completed': { job_id: EXAMPLE_WORK_ORDER_ID, hours_logged: 6.5, hours_estimated: 7.42, completed_at: '2026-12-03T19:58:00.000Z' },
  'job.customer_changed': { job_id: EXAMPLE_WORK_ORDER_ID, customer_id: CUSTOMER_ID, previous_customer_id: null, invoice_released: true, changed_by_user_id: SANDBOX_ADMIN_ID, changed_at: '2026-12-04T14:30:00.000Z' },
  'change_order.submitted': { ...changeOrder, raised_by_user_id: SANDBOX_TECHNICIAN_ID },
  'change_order.approved': {
    ...changeOrder,
    approved_by: { name: CALCULATE_EXAMPLE.customer.name, role: 'Homeowner', method: 'on_device_signature' },
    quote_id: EXAMPLE_QUOTE_ID,
    invoice: true,
  },
  'change_order.rejected': {
    change_order_id: changeOrder.change_order_id,
    job_id: changeOrder.job_id,
    quote_ref: changeOrder.quote_ref,
    sequence: changeOrder.sequence,
    rejected_by: { name: 'Avery Admin', role: 'ADMIN' },
    reason: 'The customer keeps the bedroom blind for a later visit',
  },
  'quote.created': {
    id: EXAMPLE_QUOTE_ID,
    reference: `Q-${EXAMPLE_QUOTE_NUMBER}`,
    revision: 1,
    status: 'draft',
    customerId: CUSTOMER_ID,
    ownerId: SANDBOX_ADMIN_ID,
    currency: 'CAD',
    totals: {
      subtotal: dollars(subtotalCents),
      taxTotal: dollars(taxCents),
      grandTotal: dollars(subtotalCents + taxCents),
      marginPct: percentOf(subtotalCents - CALCULATION_RESULT_EXAMPLE.totals.cost_cents, subtotalCents),
      currency: 'CAD',
    },
    pricebookRevision: '2026-11-01T00:00:00.000Z',
    approval: { required: false, reason: null },
  },
  'invoice.generated': {
    id: 'in_1QexampleInvoice0042',
    reference: `Q-${EXAMPLE_QUOTE_NUMBER}`,
    revision: 1,
    sourceType: 'quote',
    sourceId: EXAMPLE_QUOTE_ID,
    quoteId: EXAMPLE_QUOTE_ID,
    customerId: CUSTOMER_ID,
    currency: 'CAD',
    status: 'open',
    totals: { subtotal: dollars(subtotalCents), taxTotal: dollars(taxCents), grandTotal: dollars(subtotalCents + taxCents), currency: 'CAD' },
    taxLines: tax.lines.map((line) => ({ code: line.code, rate: Number(line.rate), amount: dollars(line.amount_cents) })),
    partsConsumed: [],
    erpSync: { target: 'accounting', status: 'succeeded' },
  },
};

/** An example `data` of every event name. */
export const EVENT_DATA_EXAMPLES: { [N in OutboxEventName]: EventData<N> } = {
  'quote.approved': EVENT_EXAMPLES['quote.approved'].data,
  'work_order.dispatched': EVENT_EXAMPLES['work_order.dispatched'].data,
  'work_order.completed': EVENT_EXAMPLES['work_order.completed'].data,
  'work_order.pending': EVENT_EXAMPLES['work_order.pending'].data,
  'work_order.cancelled': EVENT_EXAMPLES['work_order.cancelled'].data,
  'pricebook.published': EVENT_EXAMPLES['pricebook.published'].data,
  'dispatch.updated': EVENT_EXAMPLES['dispatch.updated'].data,
  ...FIELD_DATA_EXAMPLES,
};

const FIELD_EVENT_TIMES: { [N in FieldEventName | EventsEventName]: { id: string; at: string } } = {
  'pricebook.published': { id: EVENT_EXAMPLES['pricebook.published'].id, at: EVENT_EXAMPLES['pricebook.published'].created_at },
  'dispatch.updated': { id: EVENT_EXAMPLES['dispatch.updated'].id, at: EVENT_EXAMPLES['dispatch.updated'].created_at },
  'quote.created': { id: 'c1d3e5f7-9a1b-4c3d-8e5f-7a9b1c3d5e7f', at: EXAMPLE_CREATED_AT },
  'invoice.generated': { id: 'd2e4f6a8-0b2c-4d4e-9f6a-8b0c2d4e6f8a', at: '2026-11-21T16:45:09.000Z' },
  'job.dispatched': { id: 'e3f5a7b9-1c3d-4e5f-8a7b-9c1d3e5f7a9b', at: '2026-12-02T17:10:00.000Z' },
  'job.status_changed': { id: 'f4a6b8c0-2d4e-4f6a-9b8c-0d2e4f6a8b0c', at: '2026-12-03T13:12:40.000Z' },
  'change_order.submitted': { id: 'a5b7c9d1-3e5f-4a7b-8c9d-1e3f5a7b9c1d', at: '2026-12-03T15:02:11.000Z' },
  'change_order.approved': { id: 'b6c8d0e2-4f6a-4b8c-9d0e-2f4a6b8c0d2e', at: '2026-12-03T15:20:45.000Z' },
  'change_order.rejected': { id: 'c7d9e1f3-5a7b-4c9d-8e1f-3a5b7c9d1e3f', at: '2026-12-03T15:21:30.000Z' },
  'job.completed': { id: 'd8e0f2a4-6b8c-4d0e-9f2a-4b6c8d0e2f4a', at: '2026-12-03T19:58:00.000Z' },
  'job.customer_changed': { id: 'e9f1a3b5-7c9d-4e1f-8a3b-5c7d9e1f3a5b', at: '2026-12-04T14:30:00.000Z' },
};

/**
 * The body a `field` or `events` endpoint receives for the example of `event`: rendered from the
 * stored envelope by the delivery's own renderer (domain/webhooks/formats.ts), so the example is
 * what is sent.
 */
export function renderedEventExample(format: 'field' | 'events', event: FieldEventName | EventsEventName): unknown {
  const stored: EventEnvelope = { event, id: FIELD_EVENT_TIMES[event].id, organization_id: SANDBOX_ORGANIZATION_ID, created_at: FIELD_EVENT_TIMES[event].at, data: EVENT_DATA_EXAMPLES[event] };
  return JSON.parse(renderBody(format, JSON.stringify(stored), { apiVersion: CURRENT_VERSION, livemode: false }));
}
