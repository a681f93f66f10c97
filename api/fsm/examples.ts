import type { z } from 'zod';
import type { ChangeOrder, Crew, Job, JobDetail, JobHistoryPage, JobPage } from './schemas';

export const JOB_EXAMPLE: z.input<typeof Job> = {
  job_id: '5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c',
  quote_ref: 'Q-1042',
  status: 'in_progress',
  project_type: 'install',
  site: { site_id: '0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4', name: '12 Elm St', region: 'CA-ON' },
  crew: { crew_id: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f', foreman: 'Taylor Tech', headcount: 2 },
  scheduled_start: '2026-12-03T13:00:00.000Z',
  actual_start: '2026-12-03T13:12:40.000Z',
  hours_logged: 3.5,
  hours_estimated: 6.25,
  percent_complete: 0.56,
  open_change_orders: 1,
  updated_at: '2026-12-03T16:45:02.123456Z',
};

export const JOB_PAGE_EXAMPLE: z.input<typeof JobPage> = { data: [JOB_EXAMPLE], next_cursor: 'WyIyMDI2LTEyLTAzVDE2OjQ1OjAyLjEyMzQ1NloiLCI1YTFmM2M3ZS05YjJkLTRlNmYtYThjMC0xZDNlNWY3YTliMmMiXQ', has_more: false };

const DISPATCHER_ID = '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a';
const TECHNICIAN_ID = '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e';

export const JOB_HISTORY_EXAMPLE: z.input<typeof JobHistoryPage> = {
  data: [
    { kind: 'created', from_status: null, to_status: 'scheduled', detail: {}, changed_by: DISPATCHER_ID, changed_at: '2026-11-28T15:02:11.000Z' },
    { kind: 'crew', from_status: null, to_status: null, detail: { from_crew_id: null, to_crew_id: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f', foreman_user_id: TECHNICIAN_ID }, changed_by: DISPATCHER_ID, changed_at: '2026-12-02T09:30:00.000Z' },
    { kind: 'status', from_status: 'scheduled', to_status: 'dispatched', detail: {}, changed_by: DISPATCHER_ID, changed_at: '2026-12-02T09:30:05.000Z' },
    { kind: 'status', from_status: 'dispatched', to_status: 'in_progress', detail: { notes: 'On site, customer present' }, changed_by: TECHNICIAN_ID, changed_at: '2026-12-03T13:12:40.000Z' },
  ],
  next_cursor: 'WyI0Il0',
  has_more: false,
};

export const CHANGE_ORDER_EXAMPLE: z.input<typeof ChangeOrder> = {
  change_order_id: '8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b',
  job_id: JOB_EXAMPLE.job_id,
  quote_ref: 'Q-1042',
  sequence: 1,
  status: 'submitted',
  reason: 'Customer added a bedroom window on site',
  delta: { labour_hours: 1.1667, material_cost: 126.44, direct_cost: 243.11, sell: 374.02, currency: 'CAD' },
  revised_contract_value: { previous: 2480.5, current: 2854.52, currency: 'CAD' },
  margin: { applied: 0.35, floor_engaged: false },
  approved_by: null,
  rejected_by: null,
  rejection_reason: null,
  created_at: '2026-12-03T15:02:11.000Z',
  decided_at: null,
};

export const JOB_DETAIL_EXAMPLE: z.input<typeof JobDetail> = {
  ...JOB_EXAMPLE,
  // A job with a quote is invoiced to its quote's customer; it completes later (completion_invoice then).
  customer_id: null,
  completion_invoice: null,
  change_orders: [CHANGE_ORDER_EXAMPLE],
  time_entries: [
    {
      id: '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a',
      technician_id: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
      started_at: '2026-12-03T13:15:00.000Z',
      ended_at: '2026-12-03T16:45:00.000Z',
      hours: 3.5,
      notes: 'Brackets and two rollers',
      created_at: '2026-12-03T16:45:02.000Z',
    },
  ],
  material_draws: [
    { id: '2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b', sku: 'HW-ROLLER-STD', quantity: '2', unit: 'each', van_id: 'VAN-3', drawn_by: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a', created_at: '2026-12-03T13:20:00.000Z' },
  ],
  schedule: { window_start: '09:00', window_end: '12:00', duration_minutes: 105, required_skills: ['motorisation'], defaults: ['duration_minutes'] },
};

export const CREW_EXAMPLE: z.input<typeof Crew> = {
  crew_id: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
  name: 'Crew North',
  foreman: { user_id: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a', name: 'Taylor Tech' },
  member_ids: ['9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a', 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d'],
  headcount: 2,
};
