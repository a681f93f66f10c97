import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { checkPair, routingCrew, routingJob, EXCLUSION_CODES, type CheckContext, type CheckedCrew, type CheckedJob, type ExclusionCode } from '../../domain/routing/constraints';
import { scheduleRoute } from '../../domain/routing/route-schedule';
import { crewDay, DEFAULT_WEEK } from '../../domain/routing/availability';
import { minutesOf } from '../../domain/routing/clock';
import { crewsWithinLimit, planDay, routingProblem, type DayInput, type PlanResult } from '../../domain/routing/plan';
import { BuiltInSolver } from '../../domain/routing/solver';

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

// ---- whole days: every reason a plan gives holds in the plan's own context ----

const DAY_PLACES = 8;
const dayTravelArb = fc
  .array(fc.integer({ min: 0, max: 300 }), { minLength: DAY_PLACES, maxLength: DAY_PLACES })
  .map((positions) => positions.map((a) => positions.map((b) => Math.abs(a - b) / 2)));
const dayJobArb = fc
  .record({
    location: fc.option(fc.integer({ min: 1, max: DAY_PLACES - 1 }), { freq: 10 }),
    windowStart: fc.integer({ min: 420, max: 1080 }),
    length: fc.integer({ min: 0, max: 480 }),
    duration: fc.integer({ min: 30, max: 240 }),
    requiredSkills: fc.subarray(SKILLS, { maxLength: 1 }),
  })
  .map((j) => ({ location: j.location, windowStart: j.windowStart, windowEnd: Math.min(1439, j.windowStart + j.length), duration: j.duration, requiredSkills: j.requiredSkills }));
const dayArb = fc
  .record({
    travel: dayTravelArb,
    jobs: fc.array(dayJobArb, { minLength: 1, maxLength: 9 }),
    crews: fc.array(crewArb, { minLength: 1, maxLength: 4 }),
    overtimeCap: fc.integer({ min: 0, max: 120 }),
    routeLimit: fc.integer({ min: 1, max: 4 }),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
  })
  .map((d): { day: DayInput; seed: number } => ({
    seed: d.seed,
    day: {
      date: DATE,
      jobs: d.jobs.map((j, i) => ({ ...j, id: `job-${i}`, status: 'scheduled', crewId: null })),
      crews: d.crews.map((c, i) => ({ id: `crew-${i}`, name: `Crew ${i}`, foremanId: `tech-${i}`, skills: c.skills, day: c.day, currentStops: [] })),
      travel: d.travel,
      depot: 0,
      overtimeCap: d.overtimeCap,
      routeLimit: d.routeLimit,
      travelTimeSource: 'great_circle',
    },
  }));

/** A crew of the day as the checker judges it, the plan's route limit applied as D15 orders it. */
const checkedOf = (day: DayInput, crewId: string): CheckedCrew => {
  const crew = day.crews.find((c) => c.id === crewId)!;
  return { id: crew.id, skills: crew.skills, day: crew.day, beyondRouteLimit: !crewsWithinLimit(day.crews, day.routeLimit).has(crew.id) };
};
const contextOfDay = (day: DayInput): CheckContext => ({ date: day.date, depot: day.depot, travel: day.travel, overtimeCap: day.overtimeCap, routeLimit: day.routeLimit });

/**
 * A reason given in the context of a crew's day (the solver left a feasible job out): lifted in
 * that day as an office would, by opening the windows of the day, the job's and those of the
 * crew's planned stops it would push late (TIME_WINDOW_UNREACHABLE), removing
 * the overtime cap (OVERTIME_CAP) or the crew's time off that ends its day early (ON_TIME_OFF).
 * Then the job fits somewhere in the crew's planned route.
 */
function fitsAfterLifting(day: DayInput, plan: PlanResult, jobId: string, crewId: string, codes: ReadonlySet<ExclusionCode>): boolean {
  const stops = (plan.routes.find((r) => r.crewId === crewId)?.stops ?? []).map((s) => s.jobId);
  const lifted: DayInput = {
    ...day,
    overtimeCap: codes.has('OVERTIME_CAP') ? Number.POSITIVE_INFINITY : day.overtimeCap,
    crews: day.crews.map((c) => (c.id === crewId && codes.has('ON_TIME_OFF') ? { ...c, day: { ...c.day, timeOff: [] } } : c)),
    jobs: day.jobs.map((j) => (codes.has('TIME_WINDOW_UNREACHABLE') && (j.id === jobId || stops.includes(j.id)) ? { ...j, windowStart: 0, windowEnd: Number.POSITIVE_INFINITY } : j)),
  };
  const problem = routingProblem(lifted, lifted.jobs.map(() => lifted.crews.map(() => true)));
  const crewIndex = day.crews.findIndex((c) => c.id === crewId);
  const jobIndex = day.jobs.findIndex((j) => j.id === jobId);
  const route = stops.map((id) => day.jobs.findIndex((j) => j.id === id));
  for (let position = 0; position <= route.length; position++) {
    if (scheduleRoute(problem, crewIndex, [...route.slice(0, position), jobIndex, ...route.slice(position)]).violations.length === 0) return true;
  }
  return false;
}

describe('the reasons of a planned day hold (D23 property)', () => {
  it('every job left out is explained for every crew, and lifting the constraints named for a job and crew makes that pair feasible, in the day as planned', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(dayArb, async ({ day, seed }) => {
        const plan = await planDay(day, { mode: 'optimize', keepAssignments: false, solver: new BuiltInSolver(), seed, timeBudgetMs: 60_000, maxIterations: 60, now: () => 0 });
        const routed = plan.routes.flatMap((r) => r.stops.map((s) => s.jobId));
        expect([...routed, ...plan.unassigned.map((u) => u.jobId)].sort()).toEqual(day.jobs.map((j) => j.id).sort());
        for (const route of plan.routes) expect(route.violations).toEqual([]);
        const ctx = contextOfDay(day);
        // Pairs the checker excluded: their reasons, lifted in the data, make the pair feasible.
        for (const exclusion of plan.exclusions) {
          const pair: { job: CheckedJob; crew: CheckedCrew; context: CheckContext } = { job: day.jobs.find((j) => j.id === exclusion.jobId)!, crew: checkedOf(day, exclusion.crewId), context: ctx };
          let all = pair;
          for (const reason of exclusion.reasons) {
            seen.add(`excluded ${reason.code}`);
            const one = lift(reason.code, pair);
            expect(checkPair(one.job, one.crew, one.context).map((r) => r.code)).not.toContain(reason.code);
            all = lift(reason.code, all);
          }
          expect(checkPair(all.job, all.crew, all.context)).toEqual([]);
          expect(feasible(all)).toBe(true);
        }
        for (const left of plan.unassigned) {
          for (const crew of day.crews) {
            const named = left.reasons.filter((r) => r.crewId === crew.id);
            // Every crew is explained: no job is left out without a reason per crew.
            expect(named.length).toBeGreaterThan(0);
            const excluded = plan.exclusions.find((e) => e.jobId === left.jobId && e.crewId === crew.id);
            if (excluded) {
              expect(named.map(({ code, detail }) => ({ code, detail }))).toEqual(excluded.reasons);
              continue;
            }
            // A feasible pair the solver left out: the reason is the day's, and only a day's codes.
            const codes = new Set(named.map((r) => r.code));
            for (const code of codes) {
              expect(['TIME_WINDOW_UNREACHABLE', 'OVERTIME_CAP', 'ON_TIME_OFF']).toContain(code);
              seen.add(`in the day ${code}`);
            }
            expect(fitsAfterLifting(day, plan, left.jobId, crew.id, codes)).toBe(true);
          }
        }
      }),
      { numRuns: 250, seed: 20261217 },
    );
    // The days reach every reason of the checker and both reasons of a crew's day.
    expect([...seen].sort()).toEqual([...EXCLUSION_CODES.map((c) => `excluded ${c}`), 'in the day ON_TIME_OFF', 'in the day OVERTIME_CAP', 'in the day TIME_WINDOW_UNREACHABLE'].sort());
  }, 120_000);
});
