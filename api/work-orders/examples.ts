import type { z } from 'zod';
import type { CreateWorkOrderBody, UpdateWorkOrderStatusBody, WorkOrder, WorkOrderCreated, WorkOrderList, WorkOrderStatusResult } from './schemas';
import { EXAMPLE_QUOTE_ID } from '../quotes/examples';

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
