import { expect } from '@jest/globals';
import type { ApiHarness } from '../../scripts/harness/api-harness';
import { changeOrderInvoiceSettled } from '../../scripts/harness/approval-progress';
import { approvedQuote as approvedKeptQuote, type Customer } from '../../scripts/harness/approved-quote';
import type { TemporalHarness } from '../../scripts/harness/temporal-harness';
import type { ChangeOrderInvoiceProgress } from '../../infra/temporal/contracts';

/**
 * What the change-order tests share (D12): an approved `/api/` quote whose legs have settled, a
 * job made from it, and a change order raised and approved on that job. `admin` is an ADMIN
 * token, `technicianId` the technician the job is assigned to.
 */
export interface ChangeOrderCaller {
  api: ApiHarness;
  temporal: TemporalHarness;
  admin: string;
  technicianId: string;
}

/** An approved quote whose legs have settled (scripts/harness/approved-quote.ts), approved by the caller's ADMIN. */
export async function approvedQuote(caller: ChangeOrderCaller, customer?: Customer): Promise<{ quoteId: string; quoteNumber: number }> {
  const quote = await approvedKeptQuote({ api: caller.api, temporal: caller.temporal, sales: caller.admin }, customer);
  return { quoteId: quote.quote_id, quoteNumber: quote.quote_number };
}

export async function jobOf(caller: ChangeOrderCaller, quoteId: string): Promise<string> {
  const job = await caller.api.request('/api/v1/work-orders', { method: 'POST', token: caller.admin, json: { quoteId, assignedTechnicianId: caller.technicianId } });
  expect(job.status).toBe(201);
  return ((await job.json()) as { id: string }).id;
}

/** Raises a change order of `labourHours` alone and approves it; answers it and its invoice's settled progress. */
export async function approvedChangeOrder(
  caller: ChangeOrderCaller,
  jobId: string,
  labourHours: number,
  reason = 'The customer changed the scope on site',
): Promise<{ changeOrder: { change_order_id: string; delta: { sell: number } }; settled: ChangeOrderInvoiceProgress }> {
  const raised = await caller.api.request(`/v1/fsm/jobs/${jobId}/change-orders`, { method: 'POST', token: caller.admin, json: { reason, labour_hours: labourHours } });
  expect(raised.status).toBe(201);
  const changeOrder = (await raised.json()) as { change_order_id: string; delta: { sell: number } };
  const approved = await caller.api.request(`/v1/fsm/change-orders/${changeOrder.change_order_id}/approve`, {
    method: 'POST',
    token: caller.admin,
    json: { approved_by: { name: 'Robin Park', role: 'Homeowner', method: 'in_person' } },
  });
  expect(approved.status).toBe(200);
  // A refused call waits for a repair (D19); either way its outcome is settled here.
  return { changeOrder, settled: await changeOrderInvoiceSettled(caller.temporal.client, changeOrder.change_order_id) };
}
