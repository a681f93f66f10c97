// D23: the VROOM implementation of the route solver against a local VROOM (vroom-express) fake on
// 127.0.0.1: the fake checks requests as VROOM does, the client maps the problem onto VROOM's
// API (allowed crews as skills, breaks, the overtime cap as the vehicle's window) and names VROOM
// in every failure.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError } from '../../domain/errors/errors';
import type { RoutingProblem, RoutingSolution } from '../../domain/routing/problem';
import { scheduleRoute } from '../../domain/routing/route-schedule';
import { VroomSolver, vroomRequest } from '../../infra/routing/vroom-solver';
import { ThreadedSolver } from '../../infra/routing/threaded-solver';
import { routeSolver, routeSolverFromSettings } from '../../infra/routing/solver';
import { loadSettings } from '../../infra/runtime/settings';
import { contractorDay } from '../../scripts/harness/contractor-day';
import { faults } from '../../scripts/sandboxes/faults';
import { VroomFake } from '../../scripts/sandboxes/vroom-fake';

let fake: VroomFake;
let close: () => Promise<void>;
beforeAll(async () => {
  fake = new VroomFake();
  ({ close } = await fake.start());
});
afterAll(async () => {
  await close();
});

/** The settings a process cannot start without, with loopback values. */
const BASE_ENV = { NODE_ENV: 'test', DATABASE_URL: 'postgres://app@127.0.0.1:5432/shade', AUTH_TOKEN_SECRET: 'a-test-secret-of-at-least-32-characters!' };
const options = { seed: 1, timeBudgetMs: 500, now: () => Date.now() };
const post = (body: unknown) => fetch(fake.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const twoJobs = {
  vehicles: [{ id: 1, start_index: 0, end_index: 0, time_window: [0, 10_000], skills: [1] }],
  jobs: [{ id: 1, location_index: 1, service: 60, time_windows: [[0, 5000]], skills: [1] }, { id: 2, location_index: 2, service: 60 }],
  matrices: { car: { durations: [[0, 100, 200], [100, 0, 150], [200, 150, 0]] } },
};

function expectFeasible(problem: RoutingProblem, solution: RoutingSolution): void {
  const crewIndex = new Map(problem.crews.map((crew, index) => [crew.id, index]));
  const jobIndex = new Map(problem.jobs.map((job, index) => [job.id, index]));
  const seen = [...solution.unassigned];
  for (const route of solution.routes) {
    const crew = crewIndex.get(route.crewId)!;
    const jobs = route.jobIds.map((id) => jobIndex.get(id)!);
    expect(scheduleRoute(problem, crew, jobs).violations).toEqual([]);
    for (const job of jobs) expect(problem.allowed[job]![crew]).toBe(true);
    seen.push(...route.jobIds);
  }
  expect(seen.sort()).toEqual(problem.jobs.map((job) => job.id).sort());
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('the VROOM fake', () => {
  it('answers a problem in VROOM\'s output: code, summary, routes with steps, unassigned', async () => {
    const response = await post(twoJobs);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { code: number; summary: { routes: number; unassigned: number; cost: number }; routes: { vehicle: number; steps: { type: string; id?: number; arrival: number }[] }[]; unassigned: unknown[] };
    expect(answer.code).toBe(0);
    expect(answer.summary).toMatchObject({ routes: 1, unassigned: 0, cost: 450 });
    expect(answer.routes[0]!.steps.map((step) => step.type)).toEqual(['start', 'job', 'job', 'end']);
    expect(answer.unassigned).toEqual([]);
  });

  it('refuses what VROOM refuses with code 2 and HTTP 400, naming the key', async () => {
    const cases: [unknown, RegExp][] = [
      [{ jobs: [] }, /add vehicles and jobs/],
      [{ ...twoJobs, jobs: [twoJobs.jobs[0], { ...twoJobs.jobs[1], id: 1 }] }, /Duplicate job id: 1/],
      [{ ...twoJobs, jobs: [{ ...twoJobs.jobs[0], location_index: 7 }] }, /location_index for job 1/],
      [{ ...twoJobs, jobs: [{ ...twoJobs.jobs[0], time_windows: [[50, 10]] }] }, /start is after end/],
      [{ ...twoJobs, matrices: { car: { durations: [[0, 1], [1, 0, 2]] } } }, /not a square matrix/],
      [{ ...twoJobs, vehicles: [{ id: 1, time_window: [0, 10] }] }, /start_index or end_index for vehicle 1/],
    ];
    for (const [body, message] of cases) {
      const response = await post(body);
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { code: number; error: string };
      expect(answer.code).toBe(2);
      expect(answer.error).toMatch(message);
    }
  });

  it('leaves out a job whose skill no vehicle has', async () => {
    const response = await post({ ...twoJobs, jobs: [...twoJobs.jobs, { id: 3, location_index: 2, skills: [9] }] });
    const answer = (await response.json()) as { unassigned: { id: number; type: string }[] };
    expect(answer.unassigned).toEqual([{ id: 3, location_index: 2, type: 'job' }]);
  });
});

describe('the VROOM solver (D23)', () => {
  it('is chosen when ROUTING_VROOM_URL is set, and the built-in solver otherwise', () => {
    expect(routeSolver({ vroomUrl: fake.url })).toBeInstanceOf(VroomSolver);
    expect(routeSolver({ vroomUrl: undefined })).toBeInstanceOf(ThreadedSolver);
    expect(routeSolverFromSettings(loadSettings({ ...BASE_ENV, ROUTING_VROOM_URL: fake.url }))).toBeInstanceOf(VroomSolver);
    expect(routeSolverFromSettings(loadSettings({ ...BASE_ENV, ROUTING_VROOM_URL: '' }))).toBeInstanceOf(ThreadedSolver);
  });

  it('maps allowed crews onto skills: a vehicle has every skill of a job exactly when the crew may take it', () => {
    const problem = contractorDay({ crews: 6, jobs: 30, seed: 4 });
    problem.allowed[3] = problem.allowed[3]!.map(() => false);
    const { body, notSent } = vroomRequest(problem, 60);
    expect(notSent).toEqual([3]);
    for (const job of body.jobs) {
      for (const [crew, vehicle] of body.vehicles.entries()) {
        const has = (job.skills ?? []).every((skill) => (vehicle.skills ?? []).includes(skill));
        expect(has).toBe(problem.allowed[job.id - 1]![crew]);
      }
    }
    // Minutes become seconds; the break starts between mid-shift and the latest return (17:00 + 60 min).
    expect(body.vehicles[0]).toMatchObject({ time_window: [480 * 60, 1080 * 60], breaks: [{ id: 1, time_windows: [[750 * 60, 1080 * 60]], service: 30 * 60 }] });
  });

  it('plans a contractor day through the fake: every route feasible by scheduleRoute, every crew allowed', async () => {
    const problem = contractorDay({ crews: 5, jobs: 25, seed: 8 });
    const solver = new VroomSolver({ url: fake.url, secondsPerUnit: 60, timeoutMs: 5000 });
    const solution = await solver.solve(problem, options);
    expectFeasible(problem, solution);
    expect(solution.routes.length).toBeGreaterThan(0);
    expect(fake.problems.at(-1)).toMatchObject({ matrices: { car: { durations: expect.any(Array) } } });
  });

  it('names VROOM as the source when it is down', async () => {
    const gone = new VroomFake();
    const { url, close: stop } = await gone.start();
    await stop();
    const error = await refusal(new VroomSolver({ url, timeoutMs: 2000 }).solve(contractorDay({ crews: 2, jobs: 3, seed: 1 }), options));
    expect(error.kind).toBe('provider_unavailable');
    expect(error.message).toBe(`VROOM at ${url} is unreachable (ECONNREFUSED).`);
  });

  it('gives up after its timeout', async () => {
    fake.faults.inject({ method: 'POST', path: '/', action: faults.hang(3000) });
    const error = await refusal(new VroomSolver({ url: fake.url, timeoutMs: 200 }).solve(contractorDay({ crews: 2, jobs: 3, seed: 1 }), options));
    expect(error.kind).toBe('provider_unavailable');
    expect(error.message).toBe(`VROOM at ${fake.url} did not answer within 200 ms.`);
  });

  it('says so when VROOM closes the connection without answering', async () => {
    fake.faults.inject({ method: 'POST', path: '/', action: faults.reset() });
    const error = await refusal(new VroomSolver({ url: fake.url, timeoutMs: 2000 }).solve(contractorDay({ crews: 2, jobs: 3, seed: 1 }), options));
    expect(error.kind).toBe('provider_unavailable');
    expect(error.message).toBe(`VROOM at ${fake.url} closed the connection without an answer.`);
  });

  it('fails with provider_failed, naming VROOM, on an error or an answer that is not a solution', async () => {
    const problem = contractorDay({ crews: 2, jobs: 4, seed: 2 });
    const solver = new VroomSolver({ url: fake.url, timeoutMs: 5000 });
    fake.faults.inject({ method: 'POST', path: '/', action: faults.status(500) });
    expect((await refusal(solver.solve(problem, options))).message).toBe(`VROOM at ${fake.url} answered HTTP 500, VROOM code 1: Internal error`);
    const garbage: [string, string][] = [
      ['<html>Bad gateway</html>', 'answered HTTP 200 with something that is not JSON.'],
      ['{"code":0,"routes":"none","unassigned":[]}', 'answered something that is not a VROOM solution (routes: '],
      ['{"code":0,"routes":[{"vehicle":1,"steps":[{"type":"job","id":99}]}],"unassigned":[]}', 'answered a plan that names job 99, which was not sent.'],
      ['{"code":0,"routes":[],"unassigned":[{"id":1}]}', 'answered a plan that leaves 3 job(s) neither in a route nor unassigned.'],
    ];
    for (const [body, message] of garbage) {
      fake.answerNextWith(body);
      const error = await refusal(solver.solve(problem, options));
      expect(error.kind).toBe('provider_failed');
      expect(error.message).toContain(`VROOM at ${fake.url} ${message}`);
    }
  });
});
