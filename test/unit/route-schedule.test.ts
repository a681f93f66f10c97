import { describe, expect, it } from '@jest/globals';
import type { RoutingCrew, RoutingJob, RoutingProblem } from '../../domain/routing/problem';
import { scheduleRoute } from '../../domain/routing/route-schedule';

// D23: one evaluation of a crew's sequence. Place 0 is the depot; places 1..3 sit on a line, ten
// minutes apart.
const line = (size: number): number[][] => Array.from({ length: size }, (_, a) => Array.from({ length: size }, (_, b) => Math.abs(a - b) * 10));
const job = (id: string, location: number, windowStart: number, windowEnd: number, serviceTime = 30, demand = 0): RoutingJob => ({ id, location, windowStart, windowEnd, serviceTime, demand });
const crew = (overrides: Partial<RoutingCrew> = {}): RoutingCrew => ({ id: 'c', depot: 0, shiftStart: 480, shiftEnd: 1020, breakTime: 0, overtimeCap: 60, capacity: Infinity, ...overrides });
const problem = (jobs: RoutingJob[], crews: RoutingCrew[]): RoutingProblem => ({
  jobs,
  crews,
  travel: line(4),
  allowed: jobs.map(() => crews.map(() => true)),
  objective: { perVehicle: 0, perTravel: 1, perOvertime: 1 },
});

describe('scheduleRoute (D23)', () => {
  it('leaves at shift start, waits for a window and drives back', () => {
    const day = problem([job('a', 1, 480, 600), job('b', 3, 600, 660)], [crew()]);
    const schedule = scheduleRoute(day, 0, [0, 1]);
    expect(schedule.stops).toEqual([
      { jobIndex: 0, arrival: 490, start: 490, departure: 520, travelFromPrevious: 10 },
      { jobIndex: 1, arrival: 540, start: 600, departure: 630, travelFromPrevious: 20 },
    ]);
    expect(schedule).toMatchObject({ returnAt: 660, travel: 60, overtime: 0, load: 0, violations: [] });
  });

  it('counts waiting toward the break first, and takes the rest after the stop that ends past the middle of the shift', () => {
    const day = problem([job('a', 1, 480, 1000, 200), job('b', 2, 700, 1000, 60), job('c', 3, 480, 1000, 30)], [crew({ breakTime: 30 })]);
    // Middle of 480..1020 is 750. a: 490..690, b: arrives 700, starts 700 (no wait), departs 760 >= 750 -> +30 break.
    const schedule = scheduleRoute(day, 0, [0, 1, 2]);
    expect(schedule.stops.map((s) => [s.arrival, s.start, s.departure])).toEqual([[490, 490, 690], [700, 700, 790], [800, 800, 830]]);
    // With a window that makes the crew wait 20 minutes, only 10 remain to be taken.
    const waiting = problem([job('a', 1, 480, 1000, 200), job('b', 2, 720, 1000, 60), job('c', 3, 480, 1000, 30)], [crew({ breakTime: 30 })]);
    const waited = scheduleRoute(waiting, 0, [0, 1, 2]);
    expect(waited.stops.map((s) => [s.arrival, s.start, s.departure])).toEqual([[490, 490, 690], [700, 720, 790], [800, 800, 830]]);
    // A day that ends before the middle of the shift takes its break after returning: nothing moves.
    const short = scheduleRoute(day, 0, [2]);
    expect(short.returnAt).toBe(480 + 30 + 30 + 30);
  });

  it('reports a stop that starts after its window, and keeps scheduling', () => {
    const day = problem([job('a', 3, 480, 600, 200), job('b', 1, 480, 700)], [crew()]);
    const schedule = scheduleRoute(day, 0, [0, 1]);
    expect(schedule.violations).toEqual([{ jobIndex: 1, code: 'TIME_WINDOW_UNREACHABLE', amount: 730 - 700 }]);
    expect(schedule.stops[1]).toMatchObject({ arrival: 730, start: 730, departure: 760 });
  });

  it('measures overtime past shift end and reports a return past the overtime cap', () => {
    const inCap = scheduleRoute(problem([job('a', 3, 900, 1000, 60)], [crew()]), 0, [0]);
    expect(inCap).toMatchObject({ returnAt: 990, overtime: 0, violations: [] });
    const over = scheduleRoute(problem([job('a', 3, 1000, 1000, 40)], [crew()]), 0, [0]);
    expect(over).toMatchObject({ returnAt: 1070, overtime: 50, violations: [] });
    const pastCap = scheduleRoute(problem([job('a', 3, 1000, 1000, 80)], [crew()]), 0, [0]);
    expect(pastCap).toMatchObject({ returnAt: 1110, overtime: 90, violations: [{ jobIndex: 0, code: 'OVERTIME_CAP', amount: 30 }] });
  });

  it('reports the stop at which the load first goes over capacity', () => {
    const day = problem([job('a', 1, 0, 2000, 0, 6), job('b', 2, 0, 2000, 0, 5), job('c', 3, 0, 2000, 0, 1)], [crew({ capacity: 10 })]);
    const schedule = scheduleRoute(day, 0, [0, 1, 2]);
    expect(schedule.load).toBe(12);
    expect(schedule.violations).toEqual([{ jobIndex: 1, code: 'CAPACITY', amount: 1 }]);
    expect(scheduleRoute(day, 0, [0, 2]).violations).toEqual([]);
  });

  it('is an empty day for an empty sequence', () => {
    expect(scheduleRoute(problem([], [crew()]), 0, [])).toEqual({ stops: [], returnAt: 480, travel: 0, overtime: 0, load: 0, violations: [] });
  });
});
