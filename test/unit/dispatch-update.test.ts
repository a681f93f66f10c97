import { describe, expect, it } from '@jest/globals';
import { dispatchChange, emptyDispatchState, previousAttributes, withCrewStatus, type DispatchState } from '../../domain/dispatch/dispatch-update';

// D23: what `dispatch.updated` says of a route's change, from the route before and after.
const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const C = '33333333-3333-4333-8333-333333333333';
const FOREMAN = '44444444-4444-4444-8444-444444444444';
const OTHER_FOREMAN = '55555555-5555-4555-8555-555555555555';

const stop = (sequence: number, jobId: string, eta: string, status: DispatchState['stops'][number]['status'] = 'planned') => ({ sequence, jobId, etaLocal: `2026-12-03T${eta}`, status });
const day: DispatchState = { assigneeId: FOREMAN, totalDriveMinutes: 40, overtimeMinutes: 0, stops: [stop(1, A, '08:20'), stop(2, B, '10:05')] };

describe('dispatch.updated: the change of a route (D23)', () => {
  it('the same route twice is no change: a repeated trigger fires nothing', () => {
    expect(dispatchChange(day, structuredClone(day))).toBeNull();
  });

  it('fields a stored stop has beyond the event (departures, windows) change nothing the event shows', () => {
    const stored = { ...day, stops: day.stops.map((s) => ({ ...s, departLocal: '2026-12-03T09:00', windowStart: '08:00' })) };
    expect(dispatchChange(day, stored)).toBeNull();
  });

  it('previousAttributes holds the prior values of exactly what changed', () => {
    const after = { ...day, totalDriveMinutes: 55, stops: [stop(1, B, '08:30'), stop(2, A, '10:40')] };
    expect(previousAttributes(day, after)).toEqual({ totalDriveMinutes: 40, stops: day.stops });
    expect(dispatchChange(day, after)).toEqual({ changeReason: 'resequencing', previousAttributes: { totalDriveMinutes: 40, stops: day.stops } });
  });

  it('a job joining or leaving the route is a reassignment', () => {
    const joined = { ...day, stops: [...day.stops, stop(3, C, '13:00')] };
    expect(dispatchChange(day, joined)?.changeReason).toBe('reassignment');
    const left = { ...day, stops: [stop(1, B, '08:40')] };
    expect(dispatchChange(day, left)).toEqual({ changeReason: 'reassignment', previousAttributes: { stops: day.stops } });
  });

  it('another foreman is a reassignment, carrying the prior assigneeId', () => {
    expect(dispatchChange(day, { ...day, assigneeId: OTHER_FOREMAN })).toEqual({ changeReason: 'reassignment', previousAttributes: { assigneeId: FOREMAN } });
  });

  it('a new route is compared with an empty day of its foreman', () => {
    expect(dispatchChange(emptyDispatchState(FOREMAN), day)).toEqual({ changeReason: 'reassignment', previousAttributes: { totalDriveMinutes: 0, stops: [] } });
  });

  it('the same order with other arrival times is ETA drift', () => {
    const later = { ...day, stops: [stop(1, A, '08:20'), stop(2, B, '10:35')] };
    expect(dispatchChange(day, later)).toEqual({ changeReason: 'eta_drift', previousAttributes: { stops: day.stops } });
  });

  it("only the stops' statuses changing is a technician status change", () => {
    const onSite = { ...day, stops: [stop(1, A, '08:20', 'on_site'), stop(2, B, '10:05')] };
    expect(dispatchChange(day, onSite)?.changeReason).toBe('technician_status');
  });
});

describe("a crew's status on its stops (D23)", () => {
  const three = [stop(1, A, '08:20'), stop(2, B, '10:05'), stop(3, C, '13:00')];
  it('sets the named stop, in any order', () => {
    expect(withCrewStatus(three, 'on_site', B)?.map((s) => s.status)).toEqual(['planned', 'on_site', 'planned']);
  });
  it('without a job, the current stop: the last reported, else the first', () => {
    expect(withCrewStatus(three, 'en_route')?.map((s) => s.status)).toEqual(['en_route', 'planned', 'planned']);
    const reported = withCrewStatus(three, 'on_site', B)!;
    expect(withCrewStatus(reported, 'on_break')?.map((s) => s.status)).toEqual(['planned', 'on_break', 'planned']);
  });
  it('off_duty with stops left marks them too', () => {
    expect(withCrewStatus(three, 'off_duty', A)?.map((s) => s.status)).toEqual(['off_duty', 'off_duty', 'off_duty']);
  });
  it('a job not on the route is null', () => {
    expect(withCrewStatus(three, 'on_site', OTHER_FOREMAN)).toBeNull();
  });
});
