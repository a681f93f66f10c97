import type { PendingEvent } from '../events/event-data';
import type { WorkOrderStatus } from '../work-orders/status-table';
import { PROJECTION, type JobStatus } from './job-status-table';

/**
 * D11: what a job move records besides the job's own row and history, decided here and written
 * by db/fsm/jobs.ts `moveJob`. The move itself was judged already, by D11's table
 * (`decideJobTransition`) for /v1/fsm, by section 3.2's (`decideTransition`) for /api/.
 */

/** The job a move starts from, as its locked row holds it. */
export interface MovingJob {
  id: string;
  job_status: JobStatus;
  crew_id: string | null;
  quote_id: string | null;
  assigned_technician_id: string | null;
}

/** The section 3.2 move of the work order a job projects to (D11). */
export interface WorkOrderMove {
  from: WorkOrderStatus;
  to: WorkOrderStatus;
}

export interface JobMovePlan {
  /** The work order's move when the projection changes (its history gains an entry); null when it stays. */
  workOrder: WorkOrderMove | null;
  /** Whether the move completes the job: `job.completed` then carries the hours, read at the move. */
  completes: boolean;
}

/** What moving a job from `from` to `to` writes besides the job: the projected work order's move and whether the hours are read. */
export function planJobMove(from: JobStatus, to: JobStatus): JobMovePlan {
  const [fromProjection, toProjection] = [PROJECTION[from], PROJECTION[to]];
  return {
    workOrder: fromProjection === toProjection ? null : { from: fromProjection, to: toProjection },
    completes: to === 'complete',
  };
}

/** What the database answered while writing the move: the times of its history entries and the job's hours. */
export interface JobMoveFacts {
  job: MovingJob;
  to: JobStatus;
  userId: string;
  /** When the job history recorded the move: the time of the job's events. */
  changedAt: Date;
  /** The device's sign-off time sent with a move to complete, if any. */
  signedOffAt: Date | null;
  /** The job's hours at the move, exact decimals with two places; when the plan completes the job. */
  hours: { logged: string; estimated: string } | null;
  /** When the work-order history recorded the projected move; when the plan has one. */
  workOrderChangedAt: Date | null;
}

/**
 * D11's events of one job move, in the order they are recorded: `job.status_changed` always,
 * `job.dispatched` on a move to dispatched, `job.completed` on a move to complete, then the
 * section 3.2 work-order event when the projection changes (document 000 section 6.2: no cost,
 * margin or quote total in it).
 */
export function jobMoveEvents(plan: JobMovePlan, facts: JobMoveFacts): PendingEvent[] {
  const { job, to, userId, changedAt } = facts;
  const events: PendingEvent[] = [
    { event: 'job.status_changed', data: { job_id: job.id, from: job.job_status, to, changed_by_user_id: userId, changed_at: changedAt.toISOString() }, at: changedAt },
  ];
  if (to === 'dispatched') {
    events.push({
      event: 'job.dispatched',
      data: { job_id: job.id, crew_id: job.crew_id, assigned_technician_id: job.assigned_technician_id, dispatched_at: changedAt.toISOString() },
      at: changedAt,
    });
  }
  if (plan.completes) {
    if (!facts.hours) throw new Error('a move to complete records the job’s hours: read them first');
    events.push({
      event: 'job.completed',
      data: {
        job_id: job.id,
        hours_logged: Number(facts.hours.logged),
        hours_estimated: Number(facts.hours.estimated),
        completed_at: (facts.signedOffAt ?? changedAt).toISOString(),
      },
      at: changedAt,
    });
  }
  if (plan.workOrder) {
    if (!facts.workOrderChangedAt) throw new Error('a move of the projected work order records its history first');
    const at = facts.workOrderChangedAt;
    events.push(workOrderEvent(plan.workOrder.to, { work_order_id: job.id, quote_id: job.quote_id, assigned_technician_id: job.assigned_technician_id, changed_by_user_id: userId, changed_at: at.toISOString() }, at));
  }
  return events;
}

/**
 * The work-order event of a move to `to`: section 3.2 names one event per target status (its
 * table's `event` column); spelled out per status here so that the name and the `status` it
 * carries are checked together by the compiler.
 */
function workOrderEvent(
  to: WorkOrderStatus,
  data: { work_order_id: string; quote_id: string | null; assigned_technician_id: string | null; changed_by_user_id: string; changed_at: string },
  at: Date,
): PendingEvent {
  switch (to) {
    case 'PENDING':
      return { event: 'work_order.pending', data: { ...data, status: to }, at };
    case 'DISPATCHED':
      return { event: 'work_order.dispatched', data: { ...data, status: to }, at };
    case 'COMPLETED':
      return { event: 'work_order.completed', data: { ...data, status: to }, at };
    case 'CANCELLED':
      return { event: 'work_order.cancelled', data: { ...data, status: to }, at };
  }
}
