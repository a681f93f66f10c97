import { SearchParam } from '../http/common-schemas';
import { v1Page, V1PageQuery } from '../v1/page';
import { z } from 'zod';
import { instant } from '../http/date-schemas';
import { JOB_STATUSES } from '../../domain/jobs/job-status-table';
import { JOB_HISTORY_KINDS } from '../../db/fsm/jobs';
import { CalculateBody } from '../quotes/schemas';
import { ChangeOrderDelta, ChangeOrderMargin, RevisedContractValue } from '../../domain/events/event-data';
import { JobSchedule } from './routing-schemas';

/** Document 001 sections 2 and 4, D10-D12: the field-sync interface's shapes, one source for validation, types and OpenAPI. */

export const Rfc3339 = instant('RFC 3339 timestamp');
const JobStatus = z.enum(JOB_STATUSES);

export const JobIdParams = z.strictObject({ job_id: z.uuid() });
export const CrewIdParams = z.strictObject({ crew_id: z.uuid() });
export const ChangeOrderIdParams = z.strictObject({ change_order_id: z.uuid() });

export const JobListQuery = z.strictObject({
  status: z
    .union([JobStatus, z.array(JobStatus).max(6)])
    .optional()
    .meta({ description: 'One of the six job statuses; repeat the parameter for several.' }),
  crew_id: z.uuid().optional(),
  site_id: z.uuid().optional(),
  q: SearchParam.meta({ description: 'Text in the site’s name or the customer’s name, case-insensitive', example: 'queen st' }),
  updated_since: Rfc3339.optional().meta({ description: 'Strict: only jobs whose state changed after this instant.' }),
  cursor: z.string().max(512).optional().meta({ description: 'Opaque: the previous page\'s next_cursor.' }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type JobListQuery = z.output<typeof JobListQuery>;

export const Job = z
  .strictObject({
    job_id: z.uuid(),
    quote_ref: z.string().nullable().meta({ description: 'The quote\'s proposal reference `Q-<quote number>`; null without a quote.' }),
    status: JobStatus,
    project_type: z.enum(['install', 'service']),
    site: z.strictObject({ site_id: z.uuid(), name: z.string(), region: z.string() }).nullable(),
    crew: z.strictObject({ crew_id: z.uuid(), foreman: z.string(), headcount: z.number().int() }).nullable(),
    scheduled_start: Rfc3339.nullable(),
    actual_start: Rfc3339.nullable(),
    hours_logged: z.number(),
    hours_estimated: z.number(),
    percent_complete: z.number().meta({ description: 'hours_logged / hours_estimated, below 1 until complete, 1 then.' }),
    open_change_orders: z.number().int(),
    updated_at: Rfc3339.meta({ description: 'The last change of anything the job shows, to the microsecond; strictly increasing per tenant in commit order.' }),
  })
  .meta({ id: 'Job' });
export type Job = z.infer<typeof Job>;

export const JobPage = z.strictObject({ data: z.array(Job), next_cursor: z.string().nullable(), has_more: z.boolean() }).meta({ id: 'JobPage' });

export const JobHistoryQuery = z.strictObject({
  cursor: z.string().max(512).optional().meta({ description: 'Opaque: the previous page\'s next_cursor.' }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type JobHistoryQuery = z.output<typeof JobHistoryQuery>;

export const JobHistoryEntry = z
  .strictObject({
    kind: z.enum(JOB_HISTORY_KINDS),
    from_status: z.string().nullable().meta({ description: 'The status before the change: the job\'s for `status`, the change order\'s for `change_order`; null otherwise.' }),
    to_status: z.string().nullable().meta({ description: 'The status after it: the job\'s for `created` and `status`, the change order\'s for `change_order`; null otherwise.' }),
    detail: z.record(z.string(), z.unknown()).meta({ description: 'What changed besides the status: the crew, the time entry, the draw or the change order, by id.' }),
    changed_by: z.uuid().meta({ description: 'The user who made the change.' }),
    changed_at: Rfc3339,
  })
  .meta({ id: 'JobHistoryEntry' });

export type JobHistoryEntry = z.infer<typeof JobHistoryEntry>;

export const JobHistoryPage = z
  .strictObject({ data: z.array(JobHistoryEntry), next_cursor: z.string().nullable(), has_more: z.boolean() })
  .meta({ id: 'JobHistoryPage' });

export const TimeEntry = z
  .strictObject({
    id: z.uuid(),
    technician_id: z.uuid(),
    started_at: Rfc3339,
    ended_at: Rfc3339,
    hours: z.number(),
    notes: z.string().nullable(),
    created_at: Rfc3339,
  })
  .meta({ id: 'TimeEntry' });

export const MaterialDraw = z
  .strictObject({
    id: z.uuid(),
    sku: z.string(),
    quantity: z.string().meta({ description: 'Exact decimal string, in the SKU\'s unit' }),
    unit: z.string(),
    van_id: z.string().nullable(),
    drawn_by: z.uuid(),
    created_at: Rfc3339,
  })
  .meta({ id: 'MaterialDraw' });

export const ChangeOrder = z
  .strictObject({
    change_order_id: z.uuid(),
    job_id: z.uuid(),
    quote_ref: z.string().nullable(),
    sequence: z.number().int(),
    status: z.enum(['submitted', 'approved', 'rejected']),
    reason: z.string(),
    // The same shapes as the change-order events carry (domain/events/event-data.ts).
    delta: ChangeOrderDelta,
    revised_contract_value: RevisedContractValue,
    margin: ChangeOrderMargin,
    approved_by: z.strictObject({ name: z.string(), role: z.string(), method: z.string() }).nullable(),
    rejected_by: z.strictObject({ name: z.string(), role: z.string() }).nullable(),
    rejection_reason: z.string().nullable(),
    created_at: Rfc3339,
    decided_at: Rfc3339.nullable(),
  })
  .meta({ id: 'ChangeOrder' });
export type ChangeOrder = z.infer<typeof ChangeOrder>;

const Dollars = z.number().meta({ description: 'Dollars, at most two decimals, computed from integer cents' });

/**
 * D11: the money of a completed job, its completion invoice: what it bills (or, waiting for a
 * customer, would bill) and where its payments call stands. Null until the job completes, and for
 * a job whose completion bills nothing (its quote not approved).
 */
export const CompletionInvoice = z
  .strictObject({
    status: z.enum(['awaiting_price', 'awaiting_customer', 'pending', 'failed', 'issued']).meta({
      description:
        '`awaiting_price`: the price book lacked what the invoice bills (`missing_prices` says what; no lines yet); fixed, an operator prices it again on the price book then current and issues it (`npm run ops -- retry --job`). `awaiting_customer`: a job without a quote completed without a customer; the invoice is issued once an ADMIN sets `customer_id`. `pending`: its workflow has not settled the payments call; `failed`: the call FAILED and waits for its repair (`npm run ops -- retry --job`); `issued`: written.',
    }),
    kind: z.enum(['beyond_quote', 'time_and_materials']).nullable().meta({ description: 'Time and materials (no quote), the draws beyond the quote, or null when a quoted job drew nothing beyond it (its quote’s invoice is only reconciled)' }),
    customer_id: z.uuid().nullable().meta({ description: 'Who a job without a quote is billed to; null while waiting for a customer, and for a quoted job (its quote’s customer)' }),
    lines: z.array(z.strictObject({ description: z.string(), sku: z.string().nullable().meta({ description: 'null for labour' }), quantity: z.string().meta({ description: 'Exact decimal: the SKU’s quantity, or the hours' }), amount: Dollars })),
    subtotal: Dollars,
    tax_lines: z.array(z.strictObject({ code: z.enum(['GST', 'HST', 'PST', 'QST']), rate: z.number().meta({ description: 'A fraction: 0.13 is 13 %' }), amount: Dollars })).meta({ description: 'The tax of the quote’s region, or without a quote of the job site’s' }),
    tax_total: Dollars,
    total: Dollars,
    currency: z.literal('CAD'),
    invoice_id: z.string().nullable().meta({ description: 'The payments provider’s invoice once issued (a quoted job that billed nothing more: the quote’s invoice it reconciled)' }),
    missing_prices: z
      .strictObject({
        price_book: z.boolean().meta({ description: 'The workspace has no price book' }),
        labour_tier: z.string().nullable().meta({ description: 'The labour tier a job without a quote bills its time at, when the price book lacks it' }),
        skus: z.array(z.string()).meta({ description: 'Drawn SKUs to bill that no price book revision prices' }),
      })
      .nullable()
      .meta({ description: 'What the price book lacks to price the invoice, while `awaiting_price`; null otherwise' }),
  })
  .meta({ id: 'CompletionInvoice' });
export type CompletionInvoice = z.infer<typeof CompletionInvoice>;

export const JobDetail = Job.extend({
  customer_id: z.uuid().nullable().meta({ description: 'The job\'s own customer, set by an ADMIN: a job without a quote is invoiced to it at completion (a job with a quote is invoiced to its quote\'s customer and has none)' }),
  completion_invoice: CompletionInvoice.nullable(),
  change_orders: z.array(ChangeOrder),
  time_entries: z.array(TimeEntry),
  material_draws: z.array(MaterialDraw),
  schedule: JobSchedule.meta({ description: 'The window, duration and required skills routing uses, with the defaults where the office set nothing.' }),
}).meta({ id: 'JobDetail' });
export type JobDetail = z.infer<typeof JobDetail>;

/** D11's move of a job (the REST PATCH's status, GraphQL's moveJob). */
export const MoveJobBody = z.strictObject({
  status: JobStatus,
  completed_at: Rfc3339.optional().meta({ description: 'The device\'s sign-off time: only with `complete`; not in the future (60 s of skew), not before actual_start.' }),
});
export type MoveJobBody = z.output<typeof MoveJobBody>;

/** PATCH /v1/fsm/jobs/{id}: a move, the job's customer (ADMIN), or both (the customer first). */
export const PatchJobBody = z
  .strictObject({
    status: JobStatus.optional(),
    completed_at: MoveJobBody.shape.completed_at,
    customer_id: z.uuid().nullable().optional().meta({
      description: 'ADMIN only: the customer a job without a quote is invoiced to (null clears it before completion). Sent with `complete`, it is set first. On a complete job whose invoice waits for a customer, it releases that invoice.',
    }),
  })
  .refine((body) => body.status !== undefined || body.customer_id !== undefined, { message: 'Send status, customer_id or both.', path: ['status'] })
  .meta({ id: 'PatchJobRequest' });
export type PatchJobBody = z.output<typeof PatchJobBody>;

export const Crew = z
  .strictObject({
    crew_id: z.uuid(),
    name: z.string(),
    foreman: z
      .strictObject({ user_id: z.uuid(), name: z.string() })
      .nullable()
      .meta({ description: 'Null once every member has left the crew (its last technician was deactivated).' }),
    member_ids: z.array(z.uuid()),
    headcount: z.number().int(),
  })
  .meta({ id: 'Crew' });
export type Crew = z.infer<typeof Crew>;
export const CrewList = v1Page(Crew, 'CrewList');
export const CrewListQuery = V1PageQuery;

export const CrewBody = z
  .strictObject({
    name: z.string().trim().min(1).max(120),
    foreman_id: z.uuid(),
    member_ids: z.array(z.uuid()).max(50).default([]).meta({ description: 'Technicians besides the foreman (the foreman is always a member).' }),
  })
  .meta({ id: 'CrewRequest' });
export type CrewBody = z.output<typeof CrewBody>;

export const CrewPatchBody = z
  .strictObject({ name: z.string().trim().min(1).max(120).optional(), foreman_id: z.uuid().optional(), member_ids: z.array(z.uuid()).max(50).optional() })
  .meta({ id: 'CrewPatchRequest' });
export type CrewPatchBody = z.output<typeof CrewPatchBody>;

export const AssignCrewBody = z.strictObject({ crew_id: z.uuid() }).meta({ id: 'AssignCrewRequest' });

export const TimeEntryBody = z
  .strictObject({
    started_at: Rfc3339,
    ended_at: Rfc3339,
    notes: z.string().max(2000).optional(),
    technician_id: z.uuid().optional().meta({ description: 'ADMIN only: whose time it is (a technician logs their own).' }),
  })
  .meta({ id: 'TimeEntryRequest' });
export type TimeEntryBody = z.output<typeof TimeEntryBody>;

export const MaterialDrawBody = z
  .strictObject({
    sku: z.string().min(1).max(64),
    quantity: z
      .string()
      .regex(/^\d{1,9}(\.\d{1,4})?$/, 'a positive decimal string, e.g. "2.5"')
      .refine((q) => Number(q) > 0, 'must be greater than 0'),
    van_id: z.string().min(1).max(64).optional(),
  })
  .meta({ id: 'MaterialDrawRequest' });
export type MaterialDrawBody = z.output<typeof MaterialDrawBody>;

/** D12: lines in the calculate line-item shape of section 4.3, extra labour hours, a reason. */
export const ChangeOrderBody = z
  .strictObject({
    reason: z.string().trim().min(10).max(500),
    line_items: CalculateBody.shape.lineItems.element.array().max(50).default([]),
    labour_hours: z
      .number()
      .min(-1000)
      .max(1000)
      .refine((h) => Number(h.toFixed(4)) === h, 'at most 4 decimals')
      .default(0)
      .meta({ description: 'Extra labour hours beyond the lines\' own; negative for work no longer needed.' }),
  })
  .refine((body) => body.line_items.length > 0 || body.labour_hours !== 0, { message: 'A change order adds lines or labour hours.', path: ['line_items'] })
  .meta({ id: 'ChangeOrderRequest' });
export type ChangeOrderBody = z.output<typeof ChangeOrderBody>;

export const APPROVAL_METHODS = ['on_device_signature', 'in_person', 'email', 'phone'] as const;
export const ApproveChangeOrderBody = z
  .strictObject({
    approved_by: z.strictObject({ name: z.string().trim().min(1).max(200), role: z.string().trim().min(1).max(100), method: z.enum(APPROVAL_METHODS) }),
  })
  .meta({ id: 'ApproveChangeOrderRequest' });
export type ApproveChangeOrderBody = z.output<typeof ApproveChangeOrderBody>;

export const RejectChangeOrderBody = z.strictObject({ reason: z.string().trim().min(1).max(500) }).meta({ id: 'RejectChangeOrderRequest' });
