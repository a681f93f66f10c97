import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { checkPair, routingCrew, routingJob, EXCLUSION_CODES, type CheckContext, type CheckedCrew, type CheckedJob, type ExclusionCode } from '../../domain/routing/constraints';
import { scheduleRoute } from '../../domain/routing/route-schedule';
import { crewDay, DEFAULT_WEEK } from '../../domain/routing/availability';
import { minutesOf } from '../../domain/routing/clock';

// D23: the constraint checker. A Thursday; place 0 is the depot, places 1..4 sit on a line, twenty minutes apart.
const DATE = '2026-12-03';
const line = (size: number): number[][] => Array.from({ length: size }, (_, a) => Array.from({ length: size }, (_, b) => Math.abs(a - b) * 20));
const context = (overrides: Partial<CheckContext> = {}): CheckContext => ({ date: DATE, depot: 0, travel: line(5), overtimeCap: 60, routeLimit: 4, ...overrides });
const job = (overrides: Partial<CheckedJob> = {}): CheckedJob => ({ id: 'j', location: 1, windowStart: 480, windowEnd: 1020, duration: 60, requiredSkills: [], ...overrides });
const crew = (overrides: Partial<CheckedCrew> = {}): CheckedCrew => ({
  id: 'c',
  skills: ['motorisation'],
  day: { shift: { start: 480, end: 1020, breakMinutes: 30 }, timeOff: [] },
  beyondRouteLimit: false,
  ...overrides,
});
const codes = (j: CheckedJob, c: CheckedCrew, ctx = context()) => checkPair(j, c, ctx).map((r) => r.code);

describe('each reason, with its values (D23)', () => {
  it('finds a plain pair feasible', () => {
    expect(checkPair(job(), crew(), context())).toEqual([]);
  });

  it('SKILL_MISSING names required vs has', () => {
    const [reason] = checkPair(job({ requiredSkills: ['large_format', 'motorisation'] }), crew(), context());
    expect(reason).toEqual({ code: 'SKILL_MISSING', detail: 'Requires [large_format, motorisation]; the crew has [motorisation]; missing [large_format].' });
  });

  it('OUTSIDE_SHIFT for a crew without hours that day (a member off on Thursdays)', () => {
    const day = crewDay([{ weekly: null, timeOff: [] }, { weekly: DEFAULT_WEEK.filter((d) => d.day !== 'thu'), timeOff: [] }], DATE);
    expect(day.shift).toBeNull();
    expect(codes(job(), crew({ day }))).toEqual(['OUTSIDE_SHIFT']);
  });

  it('ON_TIME_OFF when time off covers the shift or leaves a stretch the job does not fit', () => {
    const allDay = crewDay([{ weekly: null, timeOff: [{ start: DATE, end: DATE, reason: 'Appointment' }] }], DATE);
    expect(checkPair(job(), crew({ day: allDay }), context())).toEqual([{ code: 'ON_TIME_OFF', detail: 'Time off 00:00-24:00 (Appointment) covers the shift.' }]);
    const morning = crewDay([{ weekly: null, timeOff: [{ start: `${DATE}T07:00`, end: `${DATE}T13:00` }] }], DATE);
    expect(codes(job({ windowStart: 480, windowEnd: 600 }), crew({ day: morning }))).toEqual(['ON_TIME_OFF']);
    expect(codes(job({ windowStart: 780, windowEnd: 900 }), crew({ day: morning }))).toEqual([]);
  });

  it('TIME_WINDOW_UNREACHABLE names the earliest arrival and the window', () => {
    expect(checkPair(job({ location: 4, windowStart: 420, windowEnd: 500 }), crew(), context())).toEqual([
      { code: 'TIME_WINDOW_UNREACHABLE', detail: 'Earliest arrival 09:20 (leaving the depot at 08:00); the window is 07:00-08:20.' },
    ]);
  });

  it('OVERTIME_CAP names the return, the shift end and the cap', () => {
    expect(checkPair(job({ location: 4, windowStart: 960, windowEnd: 1000, duration: 90 }), crew(), context())).toEqual([
      { code: 'OVERTIME_CAP', detail: 'Back at the depot at 18:50; the shift ends 17:00 and the overtime cap is 60 minutes.' },
    ]);
  });

  it('SITE_NOT_LOCATED and PLAN_ROUTE_LIMIT', () => {
    expect(codes(job({ location: null }), crew())).toEqual(['SITE_NOT_LOCATED']);
    expect(codes(job(), crew({ beyondRouteLimit: true }), context({ routeLimit: 4 }))).toEqual(['PLAN_ROUTE_LIMIT']);
  });
});

// ---- the property: lifting the constraint a reason names makes that pair feasible ----

const SKILLS = ['motorisation', 'large_format', 'high_reach'];
const PLACES = 6;

const travelArb = fc
  .array(fc.integer({ min: 0, max: 400 }), { minLength: PLACES, maxLength: PLACES })
  .map((positions) => positions.map((a) => positions.map((b) => Math.abs(a - b) / 2)));
const jobArb: fc.Arbitrary<CheckedJob> = fc
  .record({
    location: fc.option(fc.integer({ min: 1, max: PLACES - 1 }), { freq: 6 }),
    windowStart: fc.integer({ min: 300, max: 1200 }),
    length: fc.integer({ min: 0, max: 600 }),
    duration: fc.integer({ min: 15, max: 400 }),
    requiredSkills: fc.subarray(SKILLS),
  })
  .map((j) => ({ id: 'j', location: j.location, windowStart: j.windowStart, windowEnd: Math.min(1439, j.windowStart + j.length), duration: j.duration, requiredSkills: j.requiredSkills }));
const timeOffArb = fc.array(
  fc.record({ start: fc.integer({ min: 0, max: 1380 }), length: fc.integer({ min: 30, max: 900 }) }).map((t) => ({ start: t.start, end: Math.min(1440, t.start + t.length) })),
  { maxLength: 2 },
);
const crewArb: fc.Arbitrary<CheckedCrew> = fc
  .record({
    skills: fc.subarray(SKILLS),
    shift: fc.option(
      fc.record({ start: fc.integer({ min: 300, max: 720 }), length: fc.integer({ min: 120, max: 720 }), breakMinutes: fc.integer({ min: 0, max: 60 }) }),
      { freq: 5 },
    ),
    timeOff: timeOffArb,
    beyondRouteLimit: fc.boolean(),
  })
  .map((c) => ({
    id: 'c',
    skills: c.skills,
    day: { shift: c.shift ? { start: c.shift.start, end: Math.min(1439, c.shift.start + c.shift.length), breakMinutes: c.shift.breakMinutes } : null, timeOff: [...c.timeOff].sort((a, b) => a.start - b.start) },
    beyondRouteLimit: c.beyondRouteLimit,
  }));
const contextArb: fc.Arbitrary<CheckContext> = fc
  .record({ travel: travelArb, overtimeCap: fc.integer({ min: 0, max: 180 }) })
  .map((c) => ({ date: DATE, depot: 0, travel: c.travel, overtimeCap: c.overtimeCap, routeLimit: 4 }));

/** Lifts a constraint in the data itself, as an office would: no flag the checker reads. */
function lift(code: ExclusionCode, pair: { job: CheckedJob; crew: CheckedCrew; context: CheckContext }): typeof pair {
  const { job: j, crew: c, context: ctx } = pair;
  switch (code) {
    case 'SKILL_MISSING':
      return { ...pair, crew: { ...c, skills: [...new Set([...c.skills, ...j.requiredSkills])] } };
    case 'OUTSIDE_SHIFT':
      return { ...pair, crew: { ...c, day: { ...c.day, shift: { start: minutesOf('08:00'), end: minutesOf('17:00'), breakMinutes: 30 } } } };
    case 'ON_TIME_OFF':
      return { ...pair, crew: { ...c, day: { ...c.day, timeOff: [] } } };
    case 'TIME_WINDOW_UNREACHABLE':
      return { ...pair, job: { ...j, windowStart: 0, windowEnd: Number.POSITIVE_INFINITY } };
    case 'OVERTIME_CAP':
      return { ...pair, context: { ...ctx, overtimeCap: Number.POSITIVE_INFINITY } };
    case 'SITE_NOT_LOCATED':
      return { ...pair, job: { ...j, location: ctx.depot } };
    case 'PLAN_ROUTE_LIMIT':
      return { ...pair, crew: { ...c, beyondRouteLimit: false } };
  }
}

/** Feasible by the definition, judged without the checker: everything in place and the job alone in the day on time and back within the cap. */
function feasible(pair: { job: CheckedJob; crew: CheckedCrew; context: CheckContext }): boolean {
  const { job: j, crew: c, context: ctx } = pair;
  if (j.location === null || c.beyondRouteLimit || !j.requiredSkills.every((s) => c.skills.includes(s))) return false;
  const routed = routingCrew(c, ctx);
  const routedJob = routingJob(j, ctx);
  if (!routed || !routedJob) return false;
  return scheduleRoute({ jobs: [routedJob], crews: [routed], travel: ctx.travel, allowed: [[true]], objective: { perVehicle: 0, perTravel: 1, perOvertime: 0 } }, 0, [0]).violations.length === 0;
}

describe('the reasons hold (D23 property)', () => {
  it('a pair with no reason is feasible; lifting every reason named makes it feasible; lifting one removes that one', () => {
    const seen = new Set<ExclusionCode>();
    fc.assert(
      fc.property(jobArb, crewArb, contextArb, (j, c, ctx) => {
        const pair = { job: j, crew: c, context: ctx };
        const reasons = checkPair(j, c, ctx).map((r) => r.code);
        expect(new Set(reasons).size).toBe(reasons.length);
        expect(feasible(pair)).toBe(reasons.length === 0);
        let all = pair;
        for (const code of reasons) {
          seen.add(code);
          const one = lift(code, pair);
          expect(checkPair(one.job, one.crew, one.context).map((r) => r.code)).not.toContain(code);
          all = lift(code, all);
        }
        expect(checkPair(all.job, all.crew, all.context)).toEqual([]);
        expect(feasible(all)).toBe(true);
      }),
      { numRuns: 800, seed: 20261203 },
    );
    // The generator reaches every reason, so the property speaks for each.
    expect([...seen].sort()).toEqual([...EXCLUSION_CODES].sort());
  });
});
