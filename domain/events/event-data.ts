import { z } from 'zod';
import { JOB_STATUSES } from '../jobs/job-status-table';
import { QUOTE_STATUSES } from '../quotes/quote-status';
import type { WorkOrderStatus } from '../work-orders/status-table';
import type { OutboxEventName } from './catalogue';
import { DISPATCH_CHANGE_REASONS, DISPATCH_STOP_STATUSES } from '../dispatch/dispatch-update';

/**
 * The one definition of every event's `data`, one zod schema per name of every catalogue (D13):
 * what the services record in the outbox, so `recordEvent` is typed by the event's name and the
 * OpenAPI document publishes exactly these. The core format sends `data` in document 000
 * section 6.1's envelope; `field` sends it as `data` (document 001 section 6.1), `events` as
 * `data.object` (document 001 section 6.2): one shape per name whatever the format.
 */

/** Document 000 section 6: timestamps of the core events (the descriptions are the document's words). */
const Timestamp = z.iso.datetime({ offset: true }).meta({ description: 'ISO-8601, UTC' });
const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/).meta({ description: 'Exact decimal as a string' });
/** Document 001: RFC 3339 timestamps, money as a JSON number of dollars made from integer cents (domain/money.ts). */
const Rfc3339 = z.iso.datetime({ offset: true }).meta({ description: 'RFC 3339 timestamp' });
const Money = z.number().meta({ description: 'Dollars, at most two decimals, computed from integer cents' });
const Currency = z.literal('CAD');

// --- core (document 000 section 6.2) ---

const QuoteApprovedData = z.strictObject({
  quote_id: z.uuid(),
  quote_number: z.number().int(),
  status: z.literal('APPROVED'),
  total_amount_cents: z.number().int(),
  total_cost_cents: z.number().int(),
  margin_percent: DecimalString.meta({ description: 'A fraction: "0.4000" is 40 %' }),
  customer_name: z.string().nullable().meta({ description: 'null when the quote names no customer' }),
  customer_email: z.string().nullable().meta({ description: 'null when the quote’s customer has no email' }),
  approved_at: Timestamp,
  approved_by_user_id: z.uuid(),
});

/** Work-order events carry no cost, margin or quote total (section 6.2). */
const workOrderData = <S extends WorkOrderStatus>(status: S) =>
  z.strictObject({
    work_order_id: z.uuid(),
    status: z.literal(status),
    quote_id: z.uuid().nullable(),
    assigned_technician_id: z.uuid().nullable(),
    changed_by_user_id: z.uuid(),
    changed_at: Timestamp,
  });

// --- field (document 001 section 6.1, D11 and D12) ---

const JobStatus = z.enum(JOB_STATUSES);

const JobDispatchedData = z.strictObject({
  job_id: z.uuid(),
  crew_id: z.uuid().nullable().meta({ description: 'null when the job was dispatched through /api/ without a crew' }),
  assigned_technician_id: z.uuid().nullable(),
  dispatched_at: Rfc3339,
});

const JobStatusChangedData = z.strictObject({
  job_id: z.uuid(),
  from: JobStatus,
  to: JobStatus,
  changed_by_user_id: z.uuid(),
  changed_at: Rfc3339,
});

const JobCompletedData = z.strictObject({
  job_id: z.uuid(),
  hours_logged: z.number().meta({ description: 'Hours of the job’s time entries, two decimals' }),
  hours_estimated: z.number().meta({ description: 'Labour hours of the quote’s lines and approved change orders, two decimals' }),
  completed_at: Rfc3339.meta({ description: 'The device’s sign-off time when one was sent, the server’s otherwise' }),
});

/** D11: the office gave a job its customer (PATCH /api/v1/work-orders/{id} `customerId`, PATCH /v1/fsm/jobs/{id} `customer_id`). */
const JobCustomerChangedData = z.strictObject({
  job_id: z.uuid(),
  customer_id: z.uuid().nullable().meta({ description: 'The job’s customer now; null when the office cleared it' }),
  previous_customer_id: z.uuid().nullable().meta({ description: 'The customer before; null when it had none' }),
  invoice_released: z.boolean().meta({ description: 'Whether this change released the invoice of the completed job, which waited for a customer: it is issued next (`invoice.generated`)' }),
  changed_by_user_id: z.uuid(),
  changed_at: Rfc3339,
});

/** D12: the change alone, the job after it, and the margin it was priced at. */
export const ChangeOrderDelta = z.strictObject({ labour_hours: z.number(), material_cost: Money, direct_cost: Money, sell: Money, currency: Currency });
export const RevisedContractValue = z.strictObject({ previous: Money, current: Money, currency: Currency });
export const ChangeOrderMargin = z.strictObject({ applied: z.number(), floor_engaged: z.boolean() });

const changeOrderIdentity = {
  change_order_id: z.uuid(),
  job_id: z.uuid(),
  quote_ref: z.string().nullable().meta({ description: 'The quote’s proposal reference `Q-<quote number>`; null without a quote' }),
  sequence: z.number().int(),
};

const ChangeOrderSubmittedData = z.strictObject({
  ...changeOrderIdentity,
  reason: z.string(),
  raised_by_user_id: z.uuid(),
  delta: ChangeOrderDelta,
  revised_contract_value: RevisedContractValue,
  margin: ChangeOrderMargin,
});

const ChangeOrderApprovedData = z.strictObject({
  ...changeOrderIdentity,
  reason: z.string(),
  approved_by: z.strictObject({ name: z.string(), role: z.string(), method: z.string() }),
  delta: ChangeOrderDelta,
  revised_contract_value: RevisedContractValue,
  margin: ChangeOrderMargin,
  quote_id: z.uuid().nullable(),
  invoice: z.boolean().meta({ description: 'Whether the payments leg runs: the quote is approved and the price changes (an invoice for more, a credit note for less)' }),
});

const ChangeOrderRejectedData = z.strictObject({
  ...changeOrderIdentity,
  rejected_by: z.strictObject({ name: z.string(), role: z.string() }),
  reason: z.string(),
});

// --- field and events (document 001 section 6.2's objects, D13) ---

/** A quote's status as the document 001 interfaces write it: in lower case. */
const QUOTE_STATUSES_IN_EVENTS = QUOTE_STATUSES.map((s) => s.toLowerCase() as Lowercase<typeof s>);
export const quoteStatusInEvents = (status: (typeof QUOTE_STATUSES)[number]) => status.toLowerCase() as Lowercase<typeof status>;

const QuoteCreatedData = z.strictObject({
  id: z.uuid(),
  reference: z.string().meta({ description: 'The proposal reference `Q-<quote number>`' }),
  revision: z.number().int(),
  status: z.enum(QUOTE_STATUSES_IN_EVENTS),
  customerId: z.uuid().nullable(),
  ownerId: z.uuid(),
  currency: Currency,
  totals: z.strictObject({
    subtotal: Money,
    taxTotal: Money,
    grandTotal: Money,
    marginPct: z.number().meta({ description: 'The margin in percent, two decimals' }),
    currency: Currency,
  }),
  pricebookRevision: Rfc3339,
  approval: z.strictObject({
    required: z.boolean().meta({ description: 'Whether the price is below the tenant’s margin floor and needed an ADMIN’s override' }),
    reason: z.string().nullable(),
  }),
});

/**
 * The accounting leg's status as an invoice event carries it: lower case, `pending` while the leg
 * has not settled, `skipped` when accounting was not connected at approval, `not_applicable` for an
 * invoice accounting never receives (db/events/quote-events.ts decides which).
 */
const ErpSync = z.strictObject({
  target: z.literal('accounting'),
  status: z.string().meta({
    description: 'The accounting leg’s status in lower case (pending, succeeded, failed, skipped); not_applicable for an invoice accounting never receives (a change order’s, a completed job’s)',
  }),
});

const InvoiceGeneratedData = z.strictObject({
  id: z.string().meta({ description: 'The payments provider’s invoice id' }),
  reference: z.string().meta({ description: 'The quote’s proposal reference `Q-<quote number>`, or `J-<job id>` for a job without a quote' }),
  revision: z
    .number()
    .int()
    .min(1)
    .meta({ description: 'The revision of this invoice’s event: 1 for the first, one more for each later one (an erpSync correction, a completed job announcing it again), so a receiver keeps the highest it has seen per invoice `id` and drops an older one' }),
  sourceType: z.enum(['quote', 'change_order', 'job']).meta({ description: 'What produced the invoice: the quote’s approval, a change order, or a completed job (its quote’s invoice reconciled, the draws beyond it, or a job without a quote billed for time and materials)' }),
  sourceId: z.uuid(),
  quoteId: z.uuid().nullable().meta({ description: 'Null for a job without a quote' }),
  customerId: z.uuid().nullable(),
  currency: Currency,
  status: z.literal('open'),
  totals: z.strictObject({ subtotal: Money, taxTotal: Money, grandTotal: Money, currency: Currency }),
  taxLines: z.array(z.strictObject({ code: z.string(), rate: z.number().meta({ description: 'A fraction: 0.13 is 13 %' }), amount: Money })),
  partsConsumed: z.array(z.strictObject({ sku: z.string(), quantity: DecimalString, vanId: z.string().nullable() })),
  erpSync: ErpSync,
  previousAttributes: z
    .strictObject({ erpSync: ErpSync })
    .optional()
    .meta({ description: 'On a later revision of the event only: the erpSync it corrects (the `events` format sends it as data.previousAttributes)' }),
});

// --- core and events (D21) ---

/** A price book revision became current: at its publication, or at its `effective_from` when that was in the future. */
const PricebookPublishedData = z.strictObject({
  pricebook_id: z.uuid().meta({ description: 'The price book (GET /v1/pricebooks/{id})' }),
  revision: Timestamp.meta({ description: 'The revision that became current (a quote’s `pricebookRevision`)' }),
  effective_from: Timestamp.meta({ description: 'When it became current' }),
  published_by_user_id: z.uuid().nullable().meta({ description: 'The ADMIN who published it' }),
});

// --- every format (D23, document 001 section 6.2) ---

const DispatchStop = z.strictObject({
  sequence: z.number().int().min(1),
  jobId: z.uuid(),
  etaLocal: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/).meta({ description: 'The arrival, local to the tenant’s time zone (`YYYY-MM-DDTHH:mm`)' }),
  status: z.enum(DISPATCH_STOP_STATUSES),
});

const dispatchAttributes = {
  assigneeId: z.uuid().meta({ description: 'The crew’s foreman (`technicianId` for versions before 2026-01-20)' }),
  totalDriveMinutes: z.number().int(),
  overtimeMinutes: z.number().int(),
  stops: z.array(DispatchStop),
};

/** One crew's day changed: the route as it is now, its revision, and the prior values of what changed. */
const DispatchUpdatedData = z.strictObject({
  id: z.uuid().meta({ description: 'The route (GET /v1/fsm/routes/{date}/{crewId})' }),
  date: z.iso.date(),
  ...dispatchAttributes,
  changeReason: z.enum(DISPATCH_CHANGE_REASONS),
  revision: z.number().int().min(1).meta({ description: 'The route’s revision: it increases with every change of the route, so a receiver drops an event older than one it has seen' }),
  previousAttributes: z
    .strictObject(dispatchAttributes)
    .partial()
    .optional()
    .meta({ description: 'The prior values of exactly the attributes that changed; always sent by this service (the `events` format sends it as data.previousAttributes, beside the object)' }),
});

/** Every name the outbox may carry, with its data schema. */
export const EVENT_DATA_SCHEMAS = {
  'quote.approved': QuoteApprovedData,
  'work_order.dispatched': workOrderData('DISPATCHED'),
  'work_order.completed': workOrderData('COMPLETED'),
  'work_order.pending': workOrderData('PENDING'),
  'work_order.cancelled': workOrderData('CANCELLED'),
  'job.dispatched': JobDispatchedData,
  'job.status_changed': JobStatusChangedData,
  'job.completed': JobCompletedData,
  'job.customer_changed': JobCustomerChangedData,
  'change_order.submitted': ChangeOrderSubmittedData,
  'change_order.approved': ChangeOrderApprovedData,
  'change_order.rejected': ChangeOrderRejectedData,
  'quote.created': QuoteCreatedData,
  'invoice.generated': InvoiceGeneratedData,
  'pricebook.published': PricebookPublishedData,
  'dispatch.updated': DispatchUpdatedData,
} as const satisfies { readonly [N in OutboxEventName]: z.ZodObject };

/** The `data` an event of name `N` carries. */
export type EventData<N extends OutboxEventName> = z.input<(typeof EVENT_DATA_SCHEMAS)[N]>;

/**
 * An event decided but not yet recorded: its name, its data and when it happened. A union over
 * the names, so a name and a data of different events cannot be paired.
 */
export type PendingEvent = { [N in OutboxEventName]: { event: N; data: EventData<N>; at: Date } }[OutboxEventName];
