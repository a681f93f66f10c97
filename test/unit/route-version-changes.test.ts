import { describe, expect, it } from '@jest/globals';
import { change20260120 } from '../../domain/versions/changes/2026-01-20';
import { change20260701 } from '../../domain/versions/changes/2026-07-01';
import { shapeFor } from '../../domain/versions/versions';

// D16 with D23: route responses in the versions before 2026-01-20 and 2026-07-01.
const route = { id: 'r-1', date: '2026-12-03', crewId: 'c-1', assigneeId: 'u-7', stops: [], revision: 2 };
const day = {
  date: '2026-12-03',
  data: [route],
  unassigned: [{ jobId: 'j-9', reasons: [{ code: 'SKILL_MISSING', detail: 'Requires [motorisation]; the crew has []; missing [motorisation].', crewId: 'c-1' }] }],
  exclusions: [{ jobId: 'j-9', crewId: 'c-1', reasons: [{ code: 'SKILL_MISSING', detail: '...' }] }],
};

describe('route responses across versions (D16, D23)', () => {
  it('before 2026-01-20 a route names its foreman technicianId', () => {
    const { assigneeId, ...rest } = route;
    expect(change20260120.transform({ kind: 'response', route: '/v1/fsm/routes/:date/:crew_id' }, route)).toEqual({ ...rest, technicianId: assigneeId });
    for (const path of ['/v1/fsm/routes', '/v1/fsm/routes/:date/plan']) {
      expect((change20260120.transform({ kind: 'response', route: path }, day) as { data: unknown[] }).data).toEqual([{ ...rest, technicianId: assigneeId }]);
    }
    expect(change20260120.transform({ kind: 'response', route: '/v1/fsm/crews' }, route)).toBe(route);
    expect(route.assigneeId).toBe('u-7'); // the input is left as it was
  });

  it('before 2026-07-01 route responses carry no exclusions and no reasons', () => {
    for (const path of ['/v1/fsm/routes', '/v1/fsm/routes/:date/plan']) {
      expect(change20260701.transform({ kind: 'response', route: path }, day)).toEqual({ date: day.date, data: day.data, unassigned: [{ jobId: 'j-9' }] });
    }
    expect(day.exclusions).toHaveLength(1);
  });

  it('the chain applies both for a pin before both', () => {
    const old = shapeFor('2025-10-08', { kind: 'response', route: '/v1/fsm/routes' }, day) as Record<string, unknown>;
    expect(old).toEqual({ date: day.date, data: [{ id: 'r-1', date: '2026-12-03', crewId: 'c-1', technicianId: 'u-7', stops: [], revision: 2 }], unassigned: [{ jobId: 'j-9' }] });
  });
});
