import type { WorkOrderStatus } from '../work-orders/status-table';

/** D11 / document 001 section 3: the six job statuses. */
export const JOB_STATUSES = ['scheduled', 'dispatched', 'in_progress', 'on_hold', 'complete', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** D11: the section 3.2 work-order status is the projection of the job status. */
export const PROJECTION: Readonly<Record<JobStatus, WorkOrderStatus>> = {
  scheduled: 'PENDING',
  dispatched: 'DISPATCHED',
  in_progress: 'DISPATCHED',
  on_hold: 'DISPATCHED',
  complete: 'COMPLETED',
  cancelled: 'CANCELLED',
};

/** The job status a section 3.2 PATCH moves a job to (D11: the projection read backwards). */
export const JOB_STATUS_OF_WORK_ORDER: Readonly<Record<WorkOrderStatus, JobStatus>> = {
  PENDING: 'scheduled',
  DISPATCHED: 'dispatched',
  COMPLETED: 'complete',
  CANCELLED: 'cancelled',
};

/**
 * D11's table for `PATCH /v1/fsm/jobs/{id}`: every allowed (from, to). `needsCrew`: the move is
 * allowed only when a crew is assigned (scheduled to dispatched).
 */
export const JOB_TRANSITIONS: readonly { from: JobStatus; to: JobStatus; needsCrew?: true }[] = [
  { from: 'scheduled', to: 'dispatched', needsCrew: true },
  { from: 'scheduled', to: 'cancelled' },
  { from: 'dispatched', to: 'in_progress' },
  { from: 'dispatched', to: 'scheduled' },
  { from: 'dispatched', to: 'complete' },
  { from: 'dispatched', to: 'cancelled' },
  { from: 'in_progress', to: 'on_hold' },
  { from: 'in_progress', to: 'complete' },
  { from: 'in_progress', to: 'cancelled' },
  { from: 'on_hold', to: 'in_progress' },
  { from: 'on_hold', to: 'cancelled' },
];

export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['complete', 'cancelled'];

export type JobDecision = { kind: 'unchanged' } | { kind: 'move' } | { kind: 'refused'; reason: string };

/** What a PATCH from `from` to `to` does: a repeated status is unchanged; otherwise D11's table decides. */
export function decideJobTransition(from: JobStatus, to: JobStatus, hasCrew: boolean): JobDecision {
  if (from === to) return { kind: 'unchanged' };
  const rule = JOB_TRANSITIONS.find((t) => t.from === from && t.to === to);
  if (!rule) {
    if (TERMINAL_JOB_STATUSES.includes(from)) return { kind: 'refused', reason: `The job is ${from}, which is final.` };
    return { kind: 'refused', reason: `A ${from} job cannot move to ${to}.` };
  }
  if (rule.needsCrew && !hasCrew) return { kind: 'refused', reason: `A job is dispatched to a crew: assign one first (PUT /v1/fsm/jobs/{job_id}/crew).` };
  return { kind: 'move' };
}

/**
 * D11: the job status a section 3.2 move leaves the job in. DISPATCHED to COMPLETED completes a
 * job that is in_progress or on_hold too; the 3.2 table alone has judged the move.
 */
export const jobStatusAfterWorkOrderMove = (to: WorkOrderStatus): JobStatus => JOB_STATUS_OF_WORK_ORDER[to];
