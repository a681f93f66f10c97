import { describe, expect, it } from '@jest/globals';
import { decideEdit, describeEdit } from '../../domain/work-orders/edit';
import { WORK_ORDER_STATUSES } from '../../domain/work-orders/status-table';

const current = { scheduledDate: '2026-12-09', siteAddress: '14 Reading Lane', notes: null };

describe('editing a work order (PATCH /api/v1/work-orders/{id})', () => {
  it('a final work order is not edited, whatever the change', () => {
    for (const status of ['COMPLETED', 'CANCELLED'] as const) {
      expect(decideEdit(status, current, { notes: 'late' })).toEqual({ kind: 'refused', reason: `The work order is ${status}, which is final: it is not edited.` });
    }
  });

  it('a dispatched work order moved to another day goes back to PENDING; a pending one stays', () => {
    expect(decideEdit('DISPATCHED', current, { scheduledDate: '2026-12-10' })).toEqual({ kind: 'apply', changed: ['scheduledDate'], to: 'PENDING' });
    expect(decideEdit('DISPATCHED', current, { scheduledDate: null })).toEqual({ kind: 'apply', changed: ['scheduledDate'], to: 'PENDING' });
    expect(decideEdit('PENDING', current, { scheduledDate: '2026-12-10' })).toEqual({ kind: 'apply', changed: ['scheduledDate'], to: null });
  });

  it('a new site or notes, or the same day again, moves no status; only what differs counts as changed', () => {
    expect(decideEdit('DISPATCHED', current, { siteAddress: '9 Elm St', notes: 'Side gate' })).toEqual({ kind: 'apply', changed: ['siteAddress', 'notes'], to: null });
    expect(decideEdit('DISPATCHED', current, { scheduledDate: '2026-12-09', notes: null })).toEqual({ kind: 'apply', changed: [], to: null });
  });

  it('every status is decided (no status falls through)', () => {
    for (const status of WORK_ORDER_STATUSES) expect(['refused', 'apply']).toContain(decideEdit(status, current, { notes: 'x' }).kind);
  });

  it('the history entry names each change, from and to', () => {
    expect(describeEdit(current, { scheduledDate: '2026-12-10', notes: 'Side gate' }, ['scheduledDate', 'notes'])).toBe('Edited: date 2026-12-09 → 2026-12-10; notes none → Side gate');
    expect(describeEdit(current, { siteAddress: null }, ['siteAddress'])).toBe('Edited: site 14 Reading Lane → none');
    expect(describeEdit(current, { notes: 'n'.repeat(2000) }, ['notes'])).toHaveLength(2000);
  });
});
