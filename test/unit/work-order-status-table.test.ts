import { describe, expect, it } from '@jest/globals';
import { WORK_ORDER_STATUSES, decideTransition, type WorkOrderStatus } from '../../domain/work-orders/status-table';

// Section 3.2 written out by hand: the outcome of every one of the 16 (from, to) pairs.
const EXPECTED: Record<WorkOrderStatus, Record<WorkOrderStatus, string>> = {
  PENDING: { PENDING: 'unchanged', DISPATCHED: 'work_order.dispatched', COMPLETED: 'refused', CANCELLED: 'work_order.cancelled' },
  DISPATCHED: { PENDING: 'work_order.pending', DISPATCHED: 'unchanged', COMPLETED: 'work_order.completed', CANCELLED: 'work_order.cancelled' },
  COMPLETED: { PENDING: 'refused', DISPATCHED: 'refused', COMPLETED: 'unchanged', CANCELLED: 'refused' },
  CANCELLED: { PENDING: 'refused', DISPATCHED: 'refused', COMPLETED: 'refused', CANCELLED: 'unchanged' },
};

describe('work order transition table (3.2)', () => {
  const pairs = WORK_ORDER_STATUSES.flatMap((from) => WORK_ORDER_STATUSES.map((to) => [from, to] as const));
  it('has 16 pairs', () => expect(pairs).toHaveLength(16));
  it.each(pairs)('%s -> %s', (from, to) => {
    const decision = decideTransition(from, to);
    const outcome = decision.kind === 'move' ? decision.event : decision.kind;
    expect(outcome).toBe(EXPECTED[from][to]);
  });
});
