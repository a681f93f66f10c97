import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, sandboxUser, type Tenant } from '../../scripts/harness/owner-db';
import { SANDBOX_ROUTE_DATE } from '../../db/routing-sandbox';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { OsrmFake } from '../../scripts/sandboxes/osrm-fake';
import { VroomFake } from '../../scripts/sandboxes/vroom-fake';
import { faults, type FaultAction, type FaultHandle } from '../../scripts/sandboxes/faults';
import { routeSolver } from '../../infra/routing/solver';
import { GREAT_CIRCLE_TRAVEL } from '../../infra/routing/routing-day';
import { RoutePlans } from '../../infra/temporal/route-plans';
import { PlanAnswer, Route, RoutesDay } from '../../api/fsm/routing-schemas';
import type { Problem } from '../../api/v1/problem';

// D23: plans through the API and the routing workflow, against the real Temporal and PostgreSQL.
// A Thursday in Toronto; the depot is downtown, the sites around it.
const DATE = '2026-12-03';
const DEPOT = { lat: 43.6532, lon: -79.3832 };
const PLACES = [
  { lat: 43.6677, lon: -79.3948 },
  { lat: 43.6426, lon: -79.3871 },
  { lat: 43.7001, lon: -79.4163 },
  { lat: 43.6629, lon: -79.3957 },
  { lat: 43.6465, lon: -79.4637 },
  { lat: 43.7615, lon: -79.4111 },
];

let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let a: Tenant;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  owner = ownerPool();
  temporal = await startTemporalHarness();
  await temporal.startWorker();
  api = await startApi({ routePlans: new RoutePlans(temporal.client, { taskQueue: temporal.taskQueue, routingTaskQueue: temporal.routingTaskQueue, subdomains: temporal.subdomains }) });
  a = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', north: 'TECHNICIAN', south: 'TECHNICIAN', east: 'TECHNICIAN' });
  await owner.query(`update organizations set plan = 'enterprise', depot_lat = $2, depot_lon = $3 where id = $1`, [a.id, DEPOT.lat, DEPOT.lon]);
  for (const [name, user] of Object.entries(a.users)) tokens[name] = await api.tokenFor(user);
}, 120_000);
afterAll(async () => {
  await api.close();
  await temporal.close();
  await owner.end();
});

let requests = 0;
const call = (method: string, path: string, who: string, json?: unknown) => {
  requests += 1;
  return api.request(path, { method, token: tokens[who], headers: { 'x-forwarded-for': `198.18.9.${(requests % 250) + 1}` }, ...(json === undefined ? {} : { json }) });
};
async function ok<T>(res: Response, status = 200): Promise<T> {
  const body = await res.text();
  expect({ status: res.status, body: res.status === status ? '' : body }).toEqual({ status, body: '' });
  return JSON.parse(body) as T;
}

/** A job on `date` led by `tech`'s crew, at `place` (null: a site without coordinates). */
async function job(tech: string, place: { lat: number; lon: number } | null, schedule: Record<string, unknown> = {}, date = DATE): Promise<string> {
  const created = await ok<{ id: string }>(await call('POST', '/api/v1/work-orders', 'admin', { assignedTechnicianId: a.users[tech]!.id, scheduledDate: date, siteAddress: `${requests} Route Test Rd` }), 201);
  const detail = await ok<{ site: { site_id: string } }>(await call('GET', `/v1/fsm/jobs/${created.id}`, 'admin'));
  if (place) await ok(await call('PATCH', `/v1/fsm/sites/${detail.site.site_id}`, 'admin', place));
  await ok(await call('PATCH', `/v1/fsm/jobs/${created.id}/schedule`, 'admin', { duration_minutes: 60, ...schedule }));
  return created.id;
}
const crewOf = async (tech: string) => (await owner.query<{ id: string }>('select id from crews where foreman_user_id = $1', [a.users[tech]!.id])).rows[0]!.id;
const plan = (body: Record<string, unknown>, date = DATE) => call('POST', `/v1/fsm/routes/${date}/plan`, 'admin', body);

describe('a day planned (D23)', () => {
  let jobs: string[];
  let motorJob: string;
  let unlocated: string;
  beforeAll(async () => {
    jobs = [await job('north', PLACES[0]!), await job('north', PLACES[1]!), await job('south', PLACES[2]!), await job('south', PLACES[3]!, { window_start: '13:00', window_end: '15:00' })];
    await call('PUT', `/v1/fsm/technicians/${a.users.north!.id}/skills`, 'admin', { skills: ['motorisation'] });
    motorJob = await job('south', PLACES[4]!, { required_skills: ['motorisation'] });
    unlocated = await job('north', null);
    // east works no Thursdays: its crew has no hours that day.
    await job('east', PLACES[5]!);
    await ok(await call('PUT', `/v1/fsm/technicians/${a.users.east!.id}/availability`, 'admin', { weekly: [{ day: 'mon', start: '08:00', end: '17:00', break_minutes: 30 }], time_off: [] }));
  }, 60_000);

  it('a dry run answers routes and the reasons of every exclusion, and stores nothing', async () => {
    const answer = PlanAnswer.parse(await ok(await plan({ mode: 'optimize', dry_run: true })));
    expect(answer).toMatchObject({ date: DATE, mode: 'optimize', dry_run: true, applied: false, travelTimeSource: 'great_circle', solver: 'built-in' });
    const routed = answer.data.flatMap((r) => r.stops.map((s) => s.jobId));
    for (const id of [...jobs, motorJob]) expect(routed).toContain(id);
    // Only the crew with motorisation takes the motor job.
    expect(answer.data.find((r) => r.stops.some((s) => s.jobId === motorJob))!.crewId).toBe(await crewOf('north'));
    expect(answer.exclusions).toContainEqual({ jobId: motorJob, crewId: await crewOf('south'), reasons: [{ code: 'SKILL_MISSING', detail: 'Requires [motorisation]; the crew has []; missing [motorisation].' }] });
    expect(answer.exclusions).toContainEqual(expect.objectContaining({ jobId: jobs[0], crewId: await crewOf('east'), reasons: [expect.objectContaining({ code: 'OUTSIDE_SHIFT' })] }));
    expect(answer.unassigned).toEqual(expect.arrayContaining([expect.objectContaining({ jobId: unlocated, reasons: expect.arrayContaining([expect.objectContaining({ code: 'SITE_NOT_LOCATED' })]) })]));
    for (const route of answer.data) {
      expect(route.violations).toEqual([]);
      expect(route.revision).toBeNull();
      const window = route.stops.find((s) => s.jobId === jobs[3]);
      if (window) expect(window.etaLocal <= `${DATE}T15:00`).toBe(true);
    }
    const day = RoutesDay.parse(await ok(await call('GET', `/v1/fsm/routes?date=${DATE}`, 'sales')));
    expect(day.data).toEqual([]);
  });

  it('applying moves job crews and sequences in one transaction, with history; revisions rise only with a change', async () => {
    const first = PlanAnswer.parse(await ok(await plan({ mode: 'optimize' })));
    expect(first.applied).toBe(true);
    const motorRoute = first.data.find((r) => r.stops.some((s) => s.jobId === motorJob))!;
    expect(motorRoute.revision).toBe(1);
    const { rows } = await owner.query<{ crew_id: string }>('select crew_id from work_orders where id = $1', [motorJob]);
    expect(rows[0]!.crew_id).toBe(await crewOf('north'));
    const history = await owner.query<{ kind: string }>(`select kind from job_history where work_order_id = $1 and kind in ('crew', 'route') order by sequence`, [motorJob]);
    expect(history.rows.map((r) => r.kind)).toEqual(expect.arrayContaining(['crew', 'route']));

    const stored = RoutesDay.parse(await ok(await call('GET', `/v1/fsm/routes?date=${DATE}`, 'admin')));
    expect(stored.data.map((r) => r.crewId).sort()).toEqual(first.data.map((r) => r.crewId).sort());
    expect(stored.unassigned.map((u) => u.jobId)).toContain(unlocated);

    // The solver runs to a time budget, so a second plan may sequence otherwise: a route's revision
    // rises exactly when what it shows changed.
    const again = PlanAnswer.parse(await ok(await plan({ mode: 'optimize' })));
    for (const route of again.data) {
      const before = first.data.find((r) => r.crewId === route.crewId);
      const same = before && JSON.stringify([before.stops, before.totalDriveMinutes, before.overtimeMinutes, before.shift]) === JSON.stringify([route.stops, route.totalDriveMinutes, route.overtimeMinutes, route.shift]);
      expect(route.revision).toBe(same ? before.revision : (before?.revision ?? 0) + 1);
    }

    const checked = PlanAnswer.parse(await ok(await plan({ mode: 'check' })));
    expect(checked).toMatchObject({ mode: 'check', applied: false, solver: null });
    // The routes as they are: each stored sequence, then the crew's other jobs of the day (the
    // site without coordinates among them, reported).
    for (const route of again.data) {
      const checkedRoute = checked.data.find((r) => r.crewId === route.crewId)!;
      expect(checkedRoute.stops.slice(0, route.stops.length).map((s) => s.jobId)).toEqual(route.stops.map((s) => s.jobId));
    }
    expect(checked.data.flatMap((r) => r.violations)).toContainEqual({ jobId: unlocated, code: 'SITE_NOT_LOCATED', minutes: 0 });
  });

  it('a hand sequence is stored with its ETAs and violations, reported, not refused; its jobs leave their other route', async () => {
    const south = await crewOf('south');
    // The 13:00-15:00 job first and the motor job (south lacks motorisation) after it.
    const hand = Route.parse(await ok(await call('PUT', `/v1/fsm/routes/${DATE}/${south}`, 'admin', { stops: [jobs[3], motorJob, jobs[2]] })));
    expect(hand.stops.map((s) => s.jobId)).toEqual([jobs[3], motorJob, jobs[2]]);
    expect(hand.violations).toContainEqual({ jobId: motorJob, code: 'SKILL_MISSING', minutes: 0 });
    expect(hand.stops[0]!.etaLocal < hand.stops[1]!.etaLocal).toBe(true);
    // The same sequence again changes nothing: the same revision.
    const same = Route.parse(await ok(await call('PUT', `/v1/fsm/routes/${DATE}/${south}`, 'admin', { stops: [jobs[3], motorJob, jobs[2]] })));
    expect(same.revision).toBe(hand.revision);
    const reordered = Route.parse(await ok(await call('PUT', `/v1/fsm/routes/${DATE}/${south}`, 'admin', { stops: [motorJob, jobs[3], jobs[2]] })));
    expect(reordered.revision).toBe(hand.revision! + 1);
    const back = Route.parse(await ok(await call('PUT', `/v1/fsm/routes/${DATE}/${south}`, 'admin', { stops: [jobs[3], motorJob, jobs[2]] })));
    expect(back.revision).toBe(hand.revision! + 2);
    const north = Route.parse(await ok(await call('GET', `/v1/fsm/routes/${DATE}/${await crewOf('north')}`, 'admin')));
    expect(north.stops.map((s) => s.jobId)).not.toContain(motorJob);
    expect(north.stops.map((s) => s.sequence)).toEqual(north.stops.map((_, i) => i + 1));
    const bad = await call('PUT', `/v1/fsm/routes/${DATE}/${south}`, 'admin', { stops: [jobs[0], '0f1e2d3c-4b5a-4697-8877-665544332211'] });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as Problem & { errors: Record<string, string> }).errors).toHaveProperty(['stops.1']);
  });

  it('a TECHNICIAN sees only their crews\' routes; SALES may not plan', async () => {
    const day = RoutesDay.parse(await ok(await call('GET', `/v1/fsm/routes?date=${DATE}`, 'north')));
    expect(day.data.every((r) => r.assigneeId === a.users.north!.id)).toBe(true);
    expect((await call('GET', `/v1/fsm/routes/${DATE}/${await crewOf('south')}`, 'north')).status).toBe(404);
    expect((await plan({ mode: 'optimize' })).status).toBe(200);
    expect((await call('POST', `/v1/fsm/routes/${DATE}/plan`, 'sales', { mode: 'optimize' })).status).toBe(403);
  });

  it('GraphQL routes(date:) reads the same day, with its cost', async () => {
    const rest = RoutesDay.parse(await ok(await call('GET', `/v1/fsm/routes?date=${DATE}`, 'admin')));
    const query = `{ routes(date: "${DATE}") { date routes(first: 10) { crewId assigneeId revision stops(first: 50) { jobId etaLocal } } unassigned(first: 50) { jobId reasons(first: 20) { code crewId } } } }`;
    const body = await ok<{ data: { routes: { date: string; routes: { crewId: string; assigneeId: string; revision: number; stops: { jobId: string; etaLocal: string }[] }[]; unassigned: { jobId: string; reasons: { code: string }[] }[] } }; extensions: { cost: { requestedQueryCost: number; actualQueryCost: number } } }>(
      await call('POST', '/v1/graphql', 'admin', { query }),
    );
    expect(body.data.routes.routes).toEqual(rest.data.map((r) => ({ crewId: r.crewId, assigneeId: r.assigneeId, revision: r.revision, stops: r.stops.map((s) => ({ jobId: s.jobId, etaLocal: s.etaLocal })) })));
    expect(body.data.routes.unassigned.map((u) => u.jobId)).toEqual(rest.unassigned.map((u) => u.jobId));
    expect(body.extensions.cost.requestedQueryCost).toBeGreaterThanOrEqual(body.extensions.cost.actualQueryCost);
    expect(body.extensions.cost.actualQueryCost).toBeGreaterThan(0);
  });

  it('GET /v1/fsm/routes answers the dated versions: technicianId before 2026-01-20, no exclusions or reasons before 2026-07-01', async () => {
    const read = async (version?: string) => {
      const res = await api.request(`/v1/fsm/routes?date=${DATE}`, { token: tokens.admin, headers: { 'x-forwarded-for': '198.18.9.251', ...(version ? { 'Service-Version': version } : {}) } });
      expect(res.headers.get('service-version')).toBe(version ?? '2026-07-01');
      return ok<Record<string, unknown> & { data: Record<string, unknown>[]; unassigned: Record<string, unknown>[] }>(res);
    };
    const current = await read();
    // The day holds routes and a job left out with its reasons (the site without coordinates).
    expect(current.data.length).toBeGreaterThan(0);
    expect(current.unassigned).toContainEqual(expect.objectContaining({ jobId: unlocated, reasons: expect.arrayContaining([expect.objectContaining({ code: 'SITE_NOT_LOCATED' })]) }));
    expect(current.exclusions).toEqual(expect.arrayContaining([expect.objectContaining({ crewId: await crewOf('south') })]));
    for (const route of current.data) expect(Object.keys(route)).toContain('assigneeId');

    const beforeReasons = await read('2026-04-15');
    expect(beforeReasons).not.toHaveProperty('exclusions');
    expect(beforeReasons.unassigned).toEqual(current.unassigned.map((u) => ({ jobId: u.jobId })));
    expect(beforeReasons.data).toEqual(current.data);

    const beforeAssignee = await read('2025-10-08');
    expect(beforeAssignee).not.toHaveProperty('exclusions');
    expect(beforeAssignee.unassigned).toEqual(current.unassigned.map((u) => ({ jobId: u.jobId })));
    expect(beforeAssignee.data).toEqual(current.data.map(({ assigneeId, ...rest }) => ({ ...rest, technicianId: assigneeId })));
    for (const route of beforeAssignee.data) expect(route).not.toHaveProperty('assigneeId');
    expect(beforeAssignee.data.map((r) => r.technicianId)).toContain(a.users.north!.id);
  });

  it('a date without jobs is an empty plan, not an error', async () => {
    const answer = PlanAnswer.parse(await ok(await plan({ mode: 'optimize' }, '2026-12-06')));
    expect(answer).toMatchObject({ data: [], unassigned: [], exclusions: [] });
  });
});

describe('keep_assignments (D23)', () => {
  // Another Thursday. North holds four dispatched jobs that zig-zag between a place ~11 km north of
  // the depot and one ~11 km west of it, their windows forcing the order N, W, N, W. One crew can
  // drive that day (132 minutes), but two crews each keeping to one side drive 84 between them.
  const date = '2026-12-17';
  const NORTH = { lat: 43.75, lon: -79.3832 };
  const WEST = { lat: 43.6532, lon: -79.52 };
  let dispatched: string[];
  beforeAll(async () => {
    const windows = [['08:30', '09:00', NORTH], ['10:45', '11:15', WEST], ['13:00', '13:30', NORTH], ['15:15', '15:45', WEST]] as const;
    dispatched = [];
    for (const [start, end, place] of windows) dispatched.push(await job('north', place, { window_start: start, window_end: end }, date));
    for (const id of dispatched) await ok(await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'dispatched' }));
    // North's stored route of the day, by hand, in the worst order: last window first.
    await ok(await call('PUT', `/v1/fsm/routes/${date}/${await crewOf('north')}`, 'admin', { stops: [...dispatched].reverse() }));
  }, 60_000);

  it('keeps every dispatched job on its crew and only resequences it; without it, the plan moves jobs to another crew', async () => {
    const north = await crewOf('north');
    const hand = Route.parse(await ok(await call('GET', `/v1/fsm/routes/${date}/${north}`, 'admin')));
    expect(hand.violations.map((v) => v.code)).toContain('TIME_WINDOW_UNREACHABLE');

    const kept = PlanAnswer.parse(await ok(await plan({ mode: 'optimize', keep_assignments: true }, date)));
    expect(kept.applied).toBe(true);
    expect(kept.unassigned).toEqual([]);
    // One route, north's, with every job, in the order the windows allow: resequenced, not reassigned.
    expect(kept.data.map((r) => r.crewId)).toEqual([north]);
    expect(kept.data[0]!.stops.map((s) => s.jobId)).toEqual(dispatched);
    expect(kept.data[0]!.violations).toEqual([]);
    const crews = await owner.query<{ crew_id: string }>('select crew_id from work_orders where id = any($1)', [dispatched]);
    expect(crews.rows.map((r) => r.crew_id)).toEqual(dispatched.map(() => north));

    const free = PlanAnswer.parse(await ok(await plan({ mode: 'optimize', dry_run: true }, date)));
    expect(free.unassigned).toEqual([]);
    const holder = (id: string) => free.data.find((r) => r.stops.some((s) => s.jobId === id))!.crewId;
    expect(dispatched.some((id) => holder(id) !== north)).toBe(true);
    expect(free.data.reduce((sum, r) => sum + r.totalDriveMinutes, 0)).toBeLessThan(kept.data[0]!.totalDriveMinutes);
  });
});

describe('the plan\'s route limit through the API (D15, D23)', () => {
  // A workspace on the smallest plan (4 routes a day) with five crews of one, one job each.
  const date = '2026-12-03';
  let small: Tenant;
  const smallTokens: Record<string, string> = {};
  const names = ['crew_a', 'crew_b', 'crew_c', 'crew_d', 'crew_e'];
  let jobs: string[];
  const as = (method: string, path: string, json?: unknown) =>
    api.request(path, { method, token: smallTokens.admin, headers: { 'x-forwarded-for': `198.18.10.${(++requests % 250) + 1}` }, ...(json === undefined ? {} : { json }) });
  const crewsByName = async () =>
    new Map((await owner.query<{ id: string; foreman_user_id: string }>('select id, foreman_user_id from crews where organization_id = $1', [small.id])).rows.map((r) => [Object.keys(small.users).find((n) => small.users[n]!.id === r.foreman_user_id)!, r.id]));
  beforeAll(async () => {
    small = await createTenant(owner, { admin: 'ADMIN', ...Object.fromEntries(names.map((n) => [n, 'TECHNICIAN' as const])) });
    await owner.query(`update organizations set plan = 'starter', depot_lat = $2, depot_lon = $3 where id = $1`, [small.id, DEPOT.lat, DEPOT.lon]);
    smallTokens.admin = await api.tokenFor(small.users.admin!);
    jobs = [];
    for (const [i, name] of names.entries()) {
      const created = await ok<{ id: string }>(await as('POST', '/api/v1/work-orders', { assignedTechnicianId: small.users[name]!.id, scheduledDate: date, siteAddress: `${i + 1} Limit Test Rd` }), 201);
      const detail = await ok<{ site: { site_id: string } }>(await as('GET', `/v1/fsm/jobs/${created.id}`));
      await ok(await as('PATCH', `/v1/fsm/sites/${detail.site.site_id}`, PLACES[i]));
      await ok(await as('PATCH', `/v1/fsm/jobs/${created.id}/schedule`, { duration_minutes: 60 }));
      jobs.push(created.id);
    }
  }, 60_000);

  it('on the smallest plan a fifth crew is excluded from every job with PLAN_ROUTE_LIMIT and holds no route; its job goes to a crew within the limit', async () => {
    const crews = await crewsByName();
    expect(crews.size).toBe(5);
    const answer = PlanAnswer.parse(await ok(await as('POST', `/v1/fsm/routes/${date}/plan`, { mode: 'optimize' })));
    // No crew holds a route yet, so the limit takes them by name: crew_e is the fifth.
    const beyond = crews.get('crew_e')!;
    for (const id of jobs) {
      expect(answer.exclusions).toContainEqual({ jobId: id, crewId: beyond, reasons: [{ code: 'PLAN_ROUTE_LIMIT', detail: 'The plan holds 4 routes a day and this crew is beyond them.' }] });
    }
    expect(answer.exclusions!.filter((e) => e.reasons.some((r) => r.code === 'PLAN_ROUTE_LIMIT')).map((e) => e.crewId)).toEqual(jobs.map(() => beyond));
    expect(answer.data.length).toBeLessThanOrEqual(4);
    expect(answer.data.map((r) => r.crewId)).not.toContain(beyond);
    expect(answer.unassigned).toEqual([]);
    expect(answer.data.flatMap((r) => r.stops.map((s) => s.jobId)).sort()).toEqual([...jobs].sort());
    const stored = RoutesDay.parse(await ok(await as('GET', `/v1/fsm/routes?date=${date}`)));
    expect(stored.data.map((r) => r.crewId)).not.toContain(beyond);
    expect(stored.exclusions).toEqual(answer.exclusions);
  });

  it('on a larger plan the same day has no route limit to name', async () => {
    await owner.query(`update organizations set plan = 'growth' where id = $1`, [small.id]);
    const answer = PlanAnswer.parse(await ok(await as('POST', `/v1/fsm/routes/${date}/plan`, { mode: 'optimize', dry_run: true })));
    expect(answer.exclusions!.flatMap((e) => e.reasons.map((r) => r.code))).not.toContain('PLAN_ROUTE_LIMIT');
    expect(answer.unassigned).toEqual([]);
  });
});

describe('travel times from OSRM (D23)', () => {
  let fake: OsrmFake;
  let closeFake: () => Promise<void>;
  let fakeUrl: string;
  const date = '2026-12-10';
  beforeAll(async () => {
    fake = new OsrmFake();
    const started = await fake.start();
    closeFake = started.close;
    fakeUrl = started.url;
    await temporal.stopWorker();
    await temporal.startWorker({ routing: { travel: { osrmUrl: started.url, osrmTimeoutMs: 1500 } } });
    await job('north', PLACES[0]!, {}, date);
    await job('south', PLACES[2]!, {}, date);
  }, 60_000);
  afterAll(async () => {
    await temporal.stopWorker();
    await temporal.startWorker();
    await closeFake();
  });

  it('prices the plan with the table service, coordinates longitude first, and names it', async () => {
    const answer = PlanAnswer.parse(await ok(await plan({ mode: 'optimize', dry_run: true }, date)));
    expect(answer.travelTimeSource).toBe('osrm');
    const asked = fake.requests.at(-1)!;
    expect(asked[0]).toEqual([Number(DEPOT.lon.toFixed(6)), Number(DEPOT.lat.toFixed(6))]);
  });

  it.each(['garbage', 'wrong-shape', 'no-table', 'slow'] as const)('an OSRM that answers %s fails the plan with a 502 naming it, nothing applied', async (mode) => {
    fake.mode = mode;
    fake.delayMs = 4000;
    try {
      const res = await plan({ mode: 'optimize' }, date);
      expect(res.status).toBe(502);
      const problem = (await res.json()) as Problem;
      expect(problem.detail).toMatch(/Travel times from osrm failed: .*Nothing was applied\./);
      const stored = await owner.query('select 1 from routes r join crews c on c.id = r.crew_id where r.route_date = $1 and c.organization_id = $2', [date, a.id]);
      expect(stored.rowCount).toBe(0);
    } finally {
      fake.mode = 'ok';
    }
  });

  it('an OSRM server that is down (connection refused) fails the plan with a 502 naming it and the refusal, nothing applied', async () => {
    // A port that was just bound and closed on loopback: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await temporal.stopWorker();
    await temporal.startWorker({ routing: { travel: { osrmUrl: downUrl, osrmTimeoutMs: 1500 } } });
    try {
      const before = fake.requests.length;
      const res = await plan({ mode: 'optimize' }, date);
      expect(res.status).toBe(502);
      const problem = (await res.json()) as Problem;
      expect(problem.detail).toBe(`Travel times from osrm failed: ${downUrl} unreachable (ECONNREFUSED). Nothing was applied.`);
      const stored = await owner.query('select 1 from routes r join crews c on c.id = r.crew_id where r.route_date = $1 and c.organization_id = $2', [date, a.id]);
      expect(stored.rowCount).toBe(0);
      // No silent fallback: the plan did not go to another source either.
      expect(fake.requests.length).toBe(before);
    } finally {
      await temporal.stopWorker();
      await temporal.startWorker({ routing: { travel: { osrmUrl: fakeUrl, osrmTimeoutMs: 1500 } } });
    }
  });

  it('a second plan while one runs answers its status, not a second run', async () => {
    fake.mode = 'slow';
    fake.delayMs = 1000;
    try {
      const first = plan({ mode: 'optimize', dry_run: true }, date);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = await plan({ mode: 'optimize', dry_run: true }, date);
      expect(second.status).toBe(202);
      expect(await second.json()).toMatchObject({ status: 'running', stage: 'loading', workflow_id: `route-plan-${a.id}-${date}` });
      expect((await first).status).toBe(200);
    } finally {
      fake.mode = 'ok';
    }
  });
});

describe('plans solved by VROOM (D23): its failures answer as the travel source\'s do', () => {
  let vroom: VroomFake;
  let closeVroom: () => Promise<void>;
  const date = '2026-12-31';
  const VROOM_TIMEOUT_MS = 1500;
  const useVroom = async (url: string) => {
    await temporal.stopWorker();
    await temporal.startWorker({ routing: { travel: GREAT_CIRCLE_TRAVEL, solver: routeSolver({ vroomUrl: url, vroomTimeoutMs: VROOM_TIMEOUT_MS }) } });
  };
  const storedRoutes = async () => (await owner.query('select 1 from routes r join crews c on c.id = r.crew_id where r.route_date = $1 and c.organization_id = $2', [date, a.id])).rowCount;
  /**
   * The plan's answer while VROOM fails every time (`breakIt` until `mend`): a 502 problem naming
   * VROOM, nothing applied, and the server asked once (the plan does not retry it).
   */
  async function failsNamingVroom(breakIt: () => void, mend: () => void, detail: RegExp): Promise<void> {
    const asked = vroom.requests.count('POST', '/');
    breakIt();
    try {
      const res = await plan({ mode: 'optimize' }, date);
      const problem = (await res.json()) as Problem;
      expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status: 502, type: expect.stringMatching(/^application\/problem\+json/) });
      expect(problem).toMatchObject({ type: 'internal-error', title: 'A provider answered with an error.', status: 502 });
      expect(problem.detail).toMatch(detail);
      expect(problem.detail).toMatch(/ Nothing was applied\.$/);
      expect(await storedRoutes()).toBe(0);
      expect(vroom.requests.count('POST', '/') - asked).toBe(1);
    } finally {
      mend();
    }
  }
  /** A fault rule on every problem POSTed until mended. */
  const always = (action: FaultAction) => {
    let handle: FaultHandle | undefined;
    const breakIt = () => {
      handle = vroom.faults.inject({ method: 'POST', path: '/', times: Infinity, action });
    };
    return [breakIt, () => handle?.cancel()] as const;
  };
  const everyAnswer = (body: string) => [() => vroom.answerEveryWith(body), () => vroom.answerEveryWith(undefined)] as const;

  beforeAll(async () => {
    vroom = new VroomFake();
    ({ close: closeVroom } = await vroom.start());
    await useVroom(vroom.url);
    await job('north', PLACES[0]!, {}, date);
    await job('south', PLACES[2]!, {}, date);
  }, 60_000);
  afterAll(async () => {
    await temporal.stopWorker();
    await temporal.startWorker();
    await closeVroom();
  });

  it('plans with VROOM and names it', async () => {
    const answer = PlanAnswer.parse(await ok(await plan({ mode: 'optimize', dry_run: true }, date)));
    expect(answer.solver).toBe('vroom');
    expect(answer.data.flatMap((r) => r.stops)).toHaveLength(2);
    expect(vroom.problems.length).toBeGreaterThan(0);
  });

  it('a VROOM that answers something that is not JSON fails the plan with a 502 naming it, nothing applied', () =>
    failsNamingVroom(...everyAnswer('<html><body>502 Bad Gateway</body></html>'), /^VROOM at http:\/\/127\.0\.0\.1:\d+ answered HTTP 200 with something that is not JSON\./));

  it('a VROOM that answers JSON that is not a solution fails the plan with a 502 naming it, nothing applied', () =>
    failsNamingVroom(...everyAnswer('{"code":0,"routes":"none"}'), /^VROOM at http:\/\/127\.0\.0\.1:\d+ answered something that is not a VROOM solution/));

  it('a VROOM that answers its own error fails the plan with a 502 naming it and the error, nothing applied', () =>
    failsNamingVroom(...always(faults.status(500)), /^VROOM at http:\/\/127\.0\.0\.1:\d+ answered HTTP 500, VROOM code 1: Internal error/));

  it(`a VROOM that answers nothing fails the plan with a 502 once its timeout (${VROOM_TIMEOUT_MS} ms) passes, not retried, nothing applied`, async () => {
    const started = Date.now();
    await failsNamingVroom(...always(faults.hang(VROOM_TIMEOUT_MS * 4)), new RegExp(`^VROOM at http://127\\.0\\.0\\.1:\\d+ did not answer within ${VROOM_TIMEOUT_MS} ms\\.`));
    // One wait, not three attempts of it.
    expect(Date.now() - started).toBeLessThan(VROOM_TIMEOUT_MS * 3);
  });

  it('a VROOM that closes the connection without an answer fails the plan with a 502 naming it, nothing applied', () =>
    failsNamingVroom(...always(faults.reset()), /^VROOM at http:\/\/127\.0\.0\.1:\d+ closed the connection without an answer\./));

  it('a VROOM server that is down (connection refused) fails the plan with a 502 naming it, nothing applied', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await useVroom(downUrl);
    try {
      const res = await plan({ mode: 'optimize' }, date);
      expect(res.status).toBe(502);
      expect(((await res.json()) as Problem).detail).toBe(`VROOM at ${downUrl} is unreachable (ECONNREFUSED). Nothing was applied.`);
      expect(await storedRoutes()).toBe(0);
    } finally {
      await useVroom(vroom.url);
    }
  });
});

describe('the sandbox\'s seeded day (D1, D23; docs/routes.md, "A worked day")', () => {
  it('plans on a fresh database, and names the reasons the worked day describes', async () => {
    const admin = await sandboxUser(owner, 'sandbox', 'admin@sandbox.test');
    tokens.sandbox = await api.tokenFor(admin);
    const answer = PlanAnswer.parse(await ok(await call('POST', `/v1/fsm/routes/${SANDBOX_ROUTE_DATE}/plan`, 'sandbox', { mode: 'optimize', dry_run: true })));
    const jobs = (await owner.query<{ id: string; site_address: string }>(`select id, site_address from work_orders where organization_id = $1 and scheduled_date = $2`, [admin.organizationId, SANDBOX_ROUTE_DATE])).rows;
    const crews = (await owner.query<{ id: string; name: string }>('select id, name from crews where organization_id = $1', [admin.organizationId])).rows;
    const jobAt = (prefix: string) => jobs.find((j) => j.site_address.startsWith(prefix))!.id;
    const crew = (name: string) => crews.find((c) => c.name === name)!.id;
    expect(jobs).toHaveLength(10);
    expect(answer.unassigned).toEqual([]);
    expect(answer.data.flatMap((r) => r.stops)).toHaveLength(10);
    expect(answer.data.every((r) => r.violations.length === 0)).toBe(true);
    const reasons = (job: string, crewId: string) => answer.exclusions?.find((e) => e.jobId === job && e.crewId === crewId)?.reasons.map((r) => r.code) ?? [];
    expect(reasons(jobAt('300 Borough'), crew('Crew North'))).toEqual(['SKILL_MISSING']);
    expect(reasons(jobAt('100 City Centre'), crew('Crew South'))).toEqual(['SKILL_MISSING']);
    expect(reasons(jobAt('1 Bloor'), crew('Crew South'))).toEqual(['SKILL_MISSING']);
    const holder = (job: string) => answer.data.find((r) => r.stops.some((s) => s.jobId === job))!.crewId;
    expect(holder(jobAt('100 City Centre'))).toBe(crew('Crew North'));
    expect(holder(jobAt('300 Borough'))).toBe(crew('Crew South'));
  });
});
