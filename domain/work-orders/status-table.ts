import type { EventName } from '../events/catalogue';

export const WORK_ORDER_STATUSES = ['PENDING', 'DISPATCHED', 'COMPLETED', 'CANCELLED'] as const;
export type WorkOrderStatus = (typeof WORK_ORDER_STATUSES)[number];

/** The events of section 3.2's moves. */
export type WorkOrderEventName = Extract<EventName, `work_order.${string}`>;

/** Section 3.2 as a table: every allowed (from, to) and the event it emits. */
export const WORK_ORDER_TRANSITIONS: readonly { from: WorkOrderStatus; to: WorkOrderStatus; event: WorkOrderEventName }[] = [
  { from: 'PENDING', to: 'DISPATCHED', event: 'work_order.dispatched' },
  { from: 'PENDING', to: 'CANCELLED', event: 'work_order.cancelled' },
  { from: 'DISPATCHED', to: 'COMPLETED', event: 'work_order.completed' },
  { from: 'DISPATCHED', to: 'PENDING', event: 'work_order.pending' },
  { from: 'DISPATCHED', to: 'CANCELLED', event: 'work_order.cancelled' },
];

export const TERMINAL_STATUSES: readonly WorkOrderStatus[] = ['COMPLETED', 'CANCELLED'];

export type TransitionDecision =
  | { kind: 'unchanged' }
  | { kind: 'move'; event: WorkOrderEventName }
  | { kind: 'refused'; reason: string };

/** What a PATCH from `from` to `to` does: the same status is unchanged; otherwise the table decides. */
export function decideTransition(from: WorkOrderStatus, to: WorkOrderStatus): TransitionDecision {
  if (from === to) return { kind: 'unchanged' };
  const rule = WORK_ORDER_TRANSITIONS.find((t) => t.from === from && t.to === to);
  if (rule) return { kind: 'move', event: rule.event };
  if (TERMINAL_STATUSES.includes(from)) return { kind: 'refused', reason: `The work order is ${from}, which is final.` };
  return { kind: 'refused', reason: `A ${from} work order cannot move to ${to}.` };
}
