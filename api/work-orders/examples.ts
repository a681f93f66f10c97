import type { z } from 'zod';
import type { CreateWorkOrderBody, UpdateWorkOrderStatusBody, WorkOrder, WorkOrderCreated, WorkOrderHistory, WorkOrderList, WorkOrderStatusResult } from './schemas';
import { EXAMPLE_QUOTE_ID } from '../quotes/examples';
import { SANDBOX_ADMIN_ID } from '../auth/examples';

/** Examples for the OpenAPI document: the sandbox's technician installing the example quote. */
export const EXAMPLE_WORK_ORDER_ID = '5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c';
export const SANDBOX_TECHNICIAN_ID = '2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3b5d7f';

export const CREATE_WORK_ORDER_EXAMPLE: z.input<typeof CreateWorkOrderBody> = {
  quoteId: EXAMPLE_QUOTE_ID,
  assignedTechnicianId: SANDBOX_TECHNICIAN_ID,
  scheduledDate: '2026-12-03',
  siteAddress: '12 Elm St, Toronto ON M5V 2T6',
  notes: 'Side gate code 4512; two windows on the second floor.',
};

export const WORK_ORDER_CREATED_EXAMPLE: z.input<typeof WorkOrderCreated> = {
  id: EXAMPLE_WORK_ORDER_ID,
  status: 'PENDING',
  scheduled_date: '2026-12-03T00:00:00.000Z',
  assigned_technician_id: SANDBOX_TECHNICIAN_ID,
};

export const WORK_ORDER_EXAMPLE: z.input<typeof WorkOrder> = {
  id: EXAMPLE_WORK_ORDER_ID,
  status: 'DISPATCHED',
  scheduled_date: '2026-12-03T00:00:00.000Z',
  site_address: CREATE_WORK_ORDER_EXAMPLE.siteAddress!,
  notes: CREATE_WORK_ORDER_EXAMPLE.notes!,
  assigned_technician_id: SANDBOX_TECHNICIAN_ID,
  quote_id: EXAMPLE_QUOTE_ID,
  customer_id: null,
  dispatched_at: '2026-12-02T17:10:00.000Z',
  completed_at: null,
};

export const WORK_ORDER_LIST_EXAMPLE: z.input<typeof WorkOrderList> = {
  data: [
    WORK_ORDER_EXAMPLE,
    { ...WORK_ORDER_EXAMPLE, id: 'c7e9a1b3-5d7f-4a2c-8e4b-6d8f0a2c4e6a', status: 'PENDING', scheduled_date: '2026-12-04T00:00:00.000Z', site_address: '88 Queen St W, Toronto ON M5H 2N2', notes: null, quote_id: null, dispatched_at: null },
  ],
};

export const UPDATE_STATUS_EXAMPLE: z.input<typeof UpdateWorkOrderStatusBody> = { status: 'COMPLETED', notes: 'Installed, customer happy' };

export const STATUS_RESULT_EXAMPLE: z.input<typeof WorkOrderStatusResult> = { id: EXAMPLE_WORK_ORDER_ID, status: 'COMPLETED', unchanged: false };

export const HISTORY_EXAMPLE: z.input<typeof WorkOrderHistory> = {
  data: [
    { id: 'd1e3f5a7-b9c1-4d3e-8f5a-7b9c1d3e5f7a', from_status: null, to_status: 'PENDING', changed_by: { id: SANDBOX_ADMIN_ID, name: 'Avery Admin' }, changed_at: '2026-11-21T17:02:10.000Z', notes: CREATE_WORK_ORDER_EXAMPLE.notes! },
    { id: 'e2f4a6b8-c0d2-4e4f-9a6b-8c0d2e4f6a8b', from_status: 'PENDING', to_status: 'DISPATCHED', changed_by: { id: SANDBOX_ADMIN_ID, name: 'Avery Admin' }, changed_at: '2026-12-02T17:10:00.000Z', notes: null },
    { id: 'f3a5b7c9-d1e3-4f5a-8b7c-9d1e3f5a7b9c', from_status: 'DISPATCHED', to_status: 'DISPATCHED', changed_by: { id: SANDBOX_TECHNICIAN_ID, name: 'Taylor Tech' }, changed_at: '2026-12-03T13:20:45.000Z', notes: 'On site; the bedroom bracket needs a longer screw.' },
    { id: 'a4b6c8d0-e2f4-4a6b-9c8d-0e2f4a6b8c0d', from_status: 'DISPATCHED', to_status: 'COMPLETED', changed_by: { id: SANDBOX_TECHNICIAN_ID, name: 'Taylor Tech' }, changed_at: '2026-12-03T15:42:18.000Z', notes: UPDATE_STATUS_EXAMPLE.notes! },
  ],
};
