import { decideTransition, TERMINAL_STATUSES, type WorkOrderStatus } from './status-table';

/**
 * What editing a work order's day, site or notes (`PATCH /api/v1/work-orders/{id}`) does. A
 * work order that is final (completed or cancelled) is history: it is not edited. A dispatched
 * work order moved to another day goes back to PENDING (section 3.2's DISPATCHED to PENDING,
 * the job's dispatched to scheduled, D11): the crew was sent for the old day and must be
 * dispatched again for the new one, so the move records the same events and history entries as
 * that status change would (`work_order.pending`, `job.status_changed`). A new site or new notes
 * change no status.
 */

export interface WorkOrderDetails {
  scheduledDate: string | null;
  siteAddress: string | null;
  notes: string | null;
}

export type WorkOrderEdit = Partial<WorkOrderDetails>;

export type EditDecision =
  | { kind: 'refused'; reason: string }
  /** `changed`: the fields whose value differs, in a stable order; `to`: the status to move to first, if any. */
  | { kind: 'apply'; changed: (keyof WorkOrderDetails)[]; to: WorkOrderStatus | null };

const FIELDS: readonly (keyof WorkOrderDetails)[] = ['scheduledDate', 'siteAddress', 'notes'];

export function decideEdit(status: WorkOrderStatus, current: WorkOrderDetails, edit: WorkOrderEdit): EditDecision {
  if (TERMINAL_STATUSES.includes(status)) return { kind: 'refused', reason: `The work order is ${status}, which is final: it is not edited.` };
  const changed = FIELDS.filter((field) => edit[field] !== undefined && edit[field] !== current[field]);
  const redispatch = status === 'DISPATCHED' && changed.includes('scheduledDate');
  if (redispatch && decideTransition(status, 'PENDING').kind !== 'move') return { kind: 'refused', reason: 'A dispatched work order cannot go back to PENDING.' };
  return { kind: 'apply', changed, to: redispatch ? 'PENDING' : null };
}

const LABELS: Record<keyof WorkOrderDetails, string> = { scheduledDate: 'date', siteAddress: 'site', notes: 'notes' };
const shown = (value: string | null) => (value === null ? 'none' : value);

/** The history entry's text of an edit: each changed field, from and to ("date 2026-12-09 → 2026-12-10"). */
export function describeEdit(current: WorkOrderDetails, edit: WorkOrderEdit, changed: readonly (keyof WorkOrderDetails)[]): string {
  return `Edited: ${changed.map((field) => `${LABELS[field]} ${shown(current[field])} → ${shown(edit[field] ?? null)}`).join('; ')}`.slice(0, 2000);
}
