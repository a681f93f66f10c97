import { z } from 'zod';
import { calendarDate } from '../http/date-schemas';
import { Timestamp } from '../http/common-schemas';
import { CursorParam } from '../http/pagination';
import { WORK_ORDER_STATUSES } from '../../domain/work-orders/status-table';

const CalendarDate = calendarDate('YYYY-MM-DD');

/** Section 4.4, and `cursor` for the pages after the first (the Link header gives it). */
export const WorkOrderListQuery = z.strictObject({
  status: z.enum(WORK_ORDER_STATUSES).optional(),
  scheduledOn: CalendarDate.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: CursorParam,
});
export type WorkOrderListQuery = z.output<typeof WorkOrderListQuery>;

export const CreateWorkOrderBody = z
  .strictObject({
    quoteId: z.uuid().optional(),
    customerId: z.uuid().optional().meta({ description: 'The customer a job without a quote is invoiced to at completion; required before such a job completes' }),
    assignedTechnicianId: z.uuid().optional(),
    scheduledDate: CalendarDate.optional(),
    siteAddress: z.string().max(400).optional(),
    notes: z.string().max(2000).optional(),
  })
  .meta({ id: 'CreateWorkOrderRequest' });
export type CreateWorkOrderBody = z.output<typeof CreateWorkOrderBody>;

/** PATCH /api/v1/work-orders/{id}: any of the day, the site, the notes and the customer; null clears one. */
export const EditWorkOrderBody = z
  .strictObject({
    customerId: z.uuid().nullable().optional().meta({
      description:
        'The customer a work order without a quote is invoiced to at completion; null clears it before completion. Also on a COMPLETED work order whose invoice waits for a customer: setting it issues that invoice. 404 for a customer not of the workspace; 409 for a work order with a quote, a CANCELLED one, or a COMPLETED one already billed.',
    }),
    scheduledDate: CalendarDate.nullable().optional().meta({ description: 'The day; null unschedules. A DISPATCHED work order moved to another day goes back to PENDING.' }),
    siteAddress: z.string().trim().min(1).max(400).nullable().optional().meta({ description: 'The site’s address; null clears it' }),
    notes: z.string().max(2000).nullable().optional().meta({ description: 'Replaces the notes; null clears them' }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'Send at least one of scheduledDate, siteAddress, notes, customerId' })
  .meta({ id: 'EditWorkOrderRequest' });
export type EditWorkOrderBody = z.output<typeof EditWorkOrderBody>;

export const UpdateWorkOrderStatusBody = z
  .strictObject({ status: z.enum(WORK_ORDER_STATUSES), notes: z.string().max(2000).optional() })
  .meta({ id: 'UpdateWorkOrderStatusRequest', description: 'The completion time is set by the service; a completedAt key is refused.' });
export type UpdateWorkOrderStatusBody = z.output<typeof UpdateWorkOrderStatusBody>;

/** No cost, margin or quote total: technicians read these. */
export const WorkOrder = z
  .strictObject({
    id: z.uuid(),
    status: z.enum(WORK_ORDER_STATUSES),
    scheduled_date: Timestamp.nullable().meta({ description: 'Midnight UTC of the scheduled day' }),
    site_address: z.string().nullable(),
    notes: z.string().nullable(),
    assigned_technician_id: z.uuid().nullable(),
    quote_id: z.uuid().nullable(),
    customer_id: z.uuid().nullable().meta({ description: 'The customer a work order without a quote is invoiced to at completion; null when it has none' }),
    dispatched_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable(),
  })
  .meta({ id: 'WorkOrder' });
export type WorkOrder = z.infer<typeof WorkOrder>;

export const WorkOrderList = z.strictObject({ data: z.array(WorkOrder) }).meta({ id: 'WorkOrderList' });

export const WorkOrderCreated = z
  .strictObject({
    id: z.uuid(),
    status: z.enum(WORK_ORDER_STATUSES),
    scheduled_date: Timestamp.nullable(),
    assigned_technician_id: z.uuid().nullable(),
  })
  .meta({ id: 'WorkOrderCreated' });

export const WorkOrderStatusResult = z
  .strictObject({ id: z.uuid(), status: z.enum(WORK_ORDER_STATUSES), unchanged: z.boolean() })
  .meta({ id: 'WorkOrderStatusResult' });

/** GET /api/v1/work-orders/{id}/history: oldest first, paged like the lists. */
export const WorkOrderHistoryQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(100),
  cursor: CursorParam,
});
export type WorkOrderHistoryQuery = z.output<typeof WorkOrderHistoryQuery>;

export const WorkOrderHistoryEntry = z
  .strictObject({
    id: z.uuid(),
    from_status: z.enum(WORK_ORDER_STATUSES).nullable().meta({ description: 'null for the creation entry' }),
    to_status: z.enum(WORK_ORDER_STATUSES).meta({ description: 'Equal to from_status for notes sent with a repeated status' }),
    changed_by: z.strictObject({ id: z.uuid(), name: z.string() }),
    changed_at: Timestamp,
    notes: z.string().nullable(),
  })
  .meta({ id: 'WorkOrderHistoryEntry' });
export type WorkOrderHistoryEntry = z.infer<typeof WorkOrderHistoryEntry>;

export const WorkOrderHistory = z.strictObject({ data: z.array(WorkOrderHistoryEntry) }).meta({ id: 'WorkOrderHistory' });
