import { describe, expect, it } from '@jest/globals';
import { etaDriftMinutes, driftsBeyond, minutesOnDate, progressAnchor, type StopProgress } from '../../domain/dispatch/eta-drift';
import { handRoute, progressedRoute, type DayInput } from '../../domain/routing/plan';
import { scheduleRoute } from '../../domain/routing/route-schedule';

// D23's ETA recomputation. Place 0 is the depot; places 1..3 sit on a line, ten minutes apart.
const DATE = '2026-12-08';
const line = (size: number): number[][] => Array.from({ length: size }, (_, a) => Array.from({ length: size }, (_, b) => Math.abs(a - b) * 10));
const day: DayInput = {
  date: DATE,
  depot: 0,
  travel: line(4),
  overtimeCap: 120,
  routeLimit: 10,
  travelTimeSource: 'great_circle',
  jobs: [1, 2, 3].map((location) => ({ id: `j${location}`, status: 'dispatched', crewId: 'c', location, windowStart: 480, windowEnd: 1020, duration: 60, requiredSkills: [] })),
  crews: [{ id: 'c', name: 'C', foremanId: 'f', skills: [], day: { shift: { start: 480, end: 1020, breakMinutes: 30 }, timeOff: [] }, currentStops: [] }],
};
const planned = handRoute(day, 'c', ['j1', 'j2', 'j3']);
const progress = (entries: Record<string, StopProgress>) => new Map(Object.entries(entries));
const duration = () => 60;

describe('progressAnchor (D23)', () => {
  it('is null while no stop has started: the plan stands', () => {
    expect(progressAnchor(DATE, planned.stops, progress({ j1: { status: 'dispatched', startedAt: null, lastEndedAt: null } }), duration, null)).toBeNull();
  });

  it('an open job is left no earlier than its start plus its duration, its last time entry and now', () => {
    const ran = progress({ j1: { status: 'dispatched', startedAt: 490, lastEndedAt: 545 } });
    expect(progressAnchor(DATE, planned.stops, ran, duration, null)).toEqual({ index: 0, departure: 550 });
    expect(progressAnchor(DATE, planned.stops, progress({ j1: { status: 'in_progress', startedAt: 490, lastEndedAt: 660 } }), duration, null)).toEqual({ index: 0, departure: 660 });
    expect(progressAnchor(DATE, planned.stops, ran, duration, 700)).toEqual({ index: 0, departure: 700 });
  });

  it('a complete job was left at its last time entry; the last started stop is the anchor', () => {
    const two = progress({ j1: { status: 'complete', startedAt: 490, lastEndedAt: 530 }, j2: { status: 'in_progress', startedAt: null, lastEndedAt: null } });
    // j2 started without times on the date: from its planned arrival (540) for its 60 minutes.
    expect(progressAnchor(DATE, planned.stops, two, duration, null)).toEqual({ index: 1, departure: minutesOnDate(DATE, planned.stops[1]!.etaLocal) + 60 });
    expect(progressAnchor(DATE, planned.stops, progress({ j1: { status: 'complete', startedAt: 490, lastEndedAt: 530 } }), duration, null)).toEqual({ index: 0, departure: 530 });
  });
});

describe('progressedRoute (D23): the one schedule evaluation from the anchor', () => {
  it('leaving the first stop as planned changes nothing, drive minutes included', () => {
    const again = progressedRoute(day, planned, { index: 0, departure: minutesOnDate(DATE, planned.stops[0]!.departLocal) });
    expect(again).toEqual(planned);
  });

  it('leaving it two hours late moves the following stops by two hours (the break then taken after the third, past the middle of the shift)', () => {
    const late = progressedRoute(day, planned, { index: 0, departure: 550 + 120 });
    expect(late.stops[0]).toEqual(planned.stops[0]);
    expect(late.stops.map((s) => s.etaLocal)).toEqual([`${DATE}T08:10`, `${DATE}T11:20`, `${DATE}T12:30`]);
    // Equal to scheduleRoute from that place and time.
    const schedule = scheduleRoute({ jobs: day.jobs.map((j) => ({ id: j.id, location: j.location!, windowStart: 480, windowEnd: 1020, serviceTime: 60, demand: 0 })), crews: [{ id: 'c', depot: 0, shiftStart: 480, shiftEnd: 1020, breakTime: 30, overtimeCap: 120, capacity: Infinity }], travel: day.travel, allowed: [[true], [true], [true]], objective: { perVehicle: 0, perTravel: 1, perOvertime: 2 } }, 0, [1, 2], { location: 1, clock: 670, breakLeft: 30 });
    expect(late.stops.slice(1).map((s) => minutesOnDate(DATE, s.etaLocal))).toEqual(schedule.stops.map((s) => s.arrival));
    expect(etaDriftMinutes(planned.stops, late.stops)).toBe(120);
    expect(driftsBeyond(planned.stops, late.stops, 15)).toBe(true);
    expect(driftsBeyond(planned.stops, late.stops, 120)).toBe(false);
  });
});
