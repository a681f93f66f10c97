import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OwnDatabase } from '../support/own-database';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver, type Received } from '../../scripts/harness/webhook-receiver';
import { waitUntil } from '../../scripts/harness/wait-until';
import { RoutePlans } from '../../infra/temporal/route-plans';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { CURRENT_VERSION } from '../../domain/versions/versions';
import { PlanAnswer, Route } from '../../api/fsm/routing-schemas';
import { WebhookEndpointWithSecret } from '../../api/webhooks/schemas';
import type { WebhookDependencies } from '../../activities/webhooks';
import { instantToLocal } from '../../domain/organizations/local-time';
import type { Problem } from '../../api/v1/problem';

/**
 * D23's `dispatch.updated` through the real API, Temporal and PostgreSQL to loopback receivers of
 * every format: a hand sequence and an applied plan fire once per route that changed (both routes
 * of a moved job), with the route's increasing revision and the prior values of exactly what
 * changed; a repeated trigger fires nothing; an endpoint pinned before 2026-01-20 reads
 * `technicianId`. Network: receivers on 127.0.0.1 only (OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK).
 */
const KEY = randomBytes(32).toString('base64');
const DATE = '2026-12-03';
const DEPOT = { lat: 43.6532, lon: -79.3832 };
const PLACES = [
  { lat: 43.6677, lon: -79.3948 },
  { lat: 43.6426, lon: -79.3871 },
  { lat: 43.7001, lon: -79.4163 },
];

let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let a: Tenant;
const tokens: Record<string, string> = {};
const receivers: Record<'events' | 'old' | 'field' | 'core', WebhookReceiver> = {} as never;
const secrets: Record<string, string> = {};

// Its worker runs the outbox relay.
const database = new OwnDatabase('dispatch_updated');

beforeAll(async () => {
  await database.create();
  owner = ownerPool();
  temporal = await startTemporalHarness();
  const webhooks: WebhookDependencies = { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true, publicBaseUrl: 'http://127.0.0.1:3998' };
  await temporal.startWorker({ webhooks, cacheWorkflows: true });
  // The plan's events are recorded by a workflow's activity: the worker's relay starts their delivery.
  temporal.relay.start();
  api = await startApi({
    events: temporal.dispatcher,
    routePlans: new RoutePlans(temporal.client, { taskQueue: temporal.taskQueue, routingTaskQueue: temporal.routingTaskQueue, subdomains: temporal.subdomains }),
    env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' },
  });
  a = await createTenant(owner, { admin: 'ADMIN', north: 'TECHNICIAN', south: 'TECHNICIAN' });
  await owner.query(`update organizations set plan = 'enterprise', depot_lat = $2, depot_lon = $3 where id = $1`, [a.id, DEPOT.lat, DEPOT.lon]);
  for (const [name, user] of Object.entries(a.users)) tokens[name] = await api.tokenFor(user);
  // Each change told at once: the coalescing has its own describe, with its own window.
  const settings = await api.request('/api/v1/organization', { method: 'PATCH', token: tokens.admin, json: { dispatch_coalesce_seconds: 0 } });
  expect(settings.status).toBe(200);
  for (const [name, format, version] of [['events', 'events', undefined], ['old', 'events', '2025-10-08'], ['field', 'field', undefined], ['core', 'core', undefined]] as const) {
    receivers[name] = await new WebhookReceiver().start();
    const res = await api.request('/api/v1/webhook-endpoints', {
      method: 'POST',
      token: tokens.admin,
      json: { url: receivers[name].url, events: ['dispatch.updated'], format },
      ...(version ? { headers: { 'Service-Version': version } } : {}),
    });
    expect(res.status).toBe(201);
    const endpoint = WebhookEndpointWithSecret.parse(await res.json());
    expect(endpoint.api_version).toBe(version ?? CURRENT_VERSION);
    secrets[name] = endpoint.secret;
  }
}, 180_000);
afterAll(async () => {
  for (const r of Object.values(receivers)) await r.close();
  await api.close();
  await temporal.close();
  await owner.end();
  await database.drop();
});

let requests = 0;
const call = (method: string, path: string, who: string, json?: unknown) => {
  requests += 1;
  return api.request(path, { method, token: tokens[who], headers: { 'x-forwarded-for': `198.18.7.${(requests % 250) + 1}` }, ...(json === undefined ? {} : { json }) });
};
async function ok<T>(res: Response, status = 200): Promise<T> {
  const body = await res.text();
  expect({ status: res.status, body: res.status === status ? '' : body }).toEqual({ status, body: '' });
  return JSON.parse(body) as T;
}
async function job(tech: string, place: { lat: number; lon: number }, date = DATE): Promise<string> {
  const created = await ok<{ id: string }>(await call('POST', '/api/v1/work-orders', 'admin', { assignedTechnicianId: a.users[tech]!.id, scheduledDate: date, siteAddress: `${requests} Dispatch Test Rd` }), 201);
  const detail = await ok<{ site: { site_id: string } }>(await call('GET', `/v1/fsm/jobs/${created.id}`, 'admin'));
  await ok(await call('PATCH', `/v1/fsm/sites/${detail.site.site_id}`, 'admin', place));
  await ok(await call('PATCH', `/v1/fsm/jobs/${created.id}/schedule`, 'admin', { duration_minutes: 60 }));
  return created.id;
}
const crewOf = async (tech: string) => (await owner.query<{ id: string }>('select id from crews where foreman_user_id = $1', [a.users[tech]!.id])).rows[0]!.id;
const hand = async (crewId: string, stops: string[], date = DATE) => Route.parse(await ok(await call('PUT', `/v1/fsm/routes/${date}/${crewId}`, 'admin', { stops })));

interface DispatchObject {
  id: string;
  date: string;
  assigneeId?: string;
  technicianId?: string;
  totalDriveMinutes: number;
  overtimeMinutes: number;
  changeReason: string;
  revision: number;
  stops: { sequence: number; jobId: string; etaLocal: string; status: string }[];
}
interface EventsBody {
  id: string;
  type: string;
  apiVersion: string;
  data: { object: DispatchObject; previousAttributes: Record<string, unknown> | null };
}
let otherDayJob = '';
const jobs0 = () => otherDayJob;
const outboxCount = async () => Number((await owner.query(`select count(*) from outbox_events where organization_id = $1 and event = 'dispatch.updated'`, [a.id])).rows[0].count);

/** Document 001 section 6.2's signature, checked with node:crypto alone. */
function verified(got: Received, secret: string): boolean {
  const header = String(got.headers['service-signature']);
  const t = /^t=(\d+),/.exec(header)?.[1];
  const v1 = /,v1=([0-9a-f]{64})$/.exec(header)?.[1];
  if (!t || !v1) return false;
  return timingSafeEqual(createHmac('sha256', secret).update(`${t}.${got.body}`).digest(), Buffer.from(v1, 'hex'));
}
const eventsOf = (name: 'events' | 'old') => receivers[name].received.map((r) => JSON.parse(r.body) as EventsBody);
/**
 * The events receiver's bodies for one route, in revision order, one per event: delivery is at
 * least once, so an envelope id seen twice (an attempt retried after its answer was lost) counts once.
 */
const ofRoute = (routeId: string) => {
  const seen = new Map<string, EventsBody>();
  for (const e of eventsOf('events')) if (e.data.object.id === routeId && !seen.has(e.id)) seen.set(e.id, e);
  return [...seen.values()].sort((x, y) => x.data.object.revision - y.data.object.revision);
};
/** What a wait for an event explains when it times out: each dispatch.updated outbox row, its deliveries and their endpoints' workflow state, and what the receivers got. */
async function deliveryState(): Promise<string> {
  const { rows } = await owner.query(
    `select o.id, o.created_at, o.dispatched_at, o.lease_until, o.envelope->'data'->>'id' as route, o.envelope->'data'->>'revision' as revision, o.envelope->'data'->>'changeReason' as reason,
            coalesce(json_agg(json_build_object('endpoint', e.url, 'status', d.status, 'attempts', d.attempts, 'last_error', d.last_error, 'next_attempt_at', d.next_attempt_at,
                                                'claimed_by', d.claimed_by, 'claimed_until', d.claimed_until, 'endpoint_idle', e.delivery_idle, 'endpoint_seen_at', e.delivery_seen_at))
                     filter (where d.id is not null), '[]') as deliveries
       from outbox_events o left join webhook_deliveries d on d.event_id = o.id left join webhook_endpoints e on e.id = d.endpoint_id
      where o.organization_id = $1 and o.event = 'dispatch.updated' group by o.id order by o.sequence`,
    [a.id],
  );
  const got = Object.entries(receivers).map(([name, r]) => `${name}: ${r.received.map((x) => (JSON.parse(x.body) as { id: string }).id).join(', ')}`);
  return [...rows.map((row) => JSON.stringify(row)), ...got].join('\n');
}
/** Waits for `count` distinct events of the route at the events receiver; a timeout prints the outbox and delivery state. */
const routeEvents = (what: string, routeId: string, count: number, timeoutMs = 30_000) => waitUntil(what, () => ofRoute(routeId).length >= count, { timeoutMs, detail: deliveryState });

describe('dispatch.updated (D23)', () => {
  let jobs: string[];
  let north: string;
  let south: string;
  let northRouteId: string;
  let southRouteId: string;
  beforeAll(async () => {
    jobs = [await job('north', PLACES[0]!), await job('north', PLACES[1]!), await job('south', PLACES[2]!)];
    otherDayJob = jobs[2]!;
    north = await crewOf('north');
    south = await crewOf('south');
  }, 60_000);

  it('a hand sequence fires its route once, with revision 1 and the empty day it replaced, in every format', async () => {
    const route = await hand(north, [jobs[0]!, jobs[1]!]);
    northRouteId = route.id!;
    for (const r of Object.values(receivers)) await r.waitFor(1);
    const [body] = eventsOf('events');
    expect(verified(receivers.events.received[0]!, secrets.events!)).toBe(true);
    expect(body).toMatchObject({ type: 'dispatch.updated', apiVersion: CURRENT_VERSION });
    expect(body!.data.object).toEqual({
      id: route.id,
      date: DATE,
      assigneeId: a.users.north!.id,
      totalDriveMinutes: route.totalDriveMinutes,
      overtimeMinutes: route.overtimeMinutes,
      changeReason: 'reassignment',
      revision: 1,
      stops: route.stops.map(({ sequence, jobId, etaLocal, status }) => ({ sequence, jobId, etaLocal, status })),
    });
    expect(body!.data.previousAttributes).toEqual({ totalDriveMinutes: 0, stops: [] });
    // The field and core formats carry the same object, previousAttributes inline.
    const field = JSON.parse(receivers.field.received[0]!.body) as { event: string; data: DispatchObject & { previousAttributes: unknown } };
    expect(field.event).toBe('dispatch.updated');
    expect(field.data).toEqual({ ...body!.data.object, previousAttributes: body!.data.previousAttributes });
    const core = JSON.parse(receivers.core.received[0]!.body) as { event: string; data: unknown };
    expect(core).toMatchObject({ event: 'dispatch.updated', data: field.data });
  });

  it('an endpoint pinned before 2026-01-20 reads technicianId instead of assigneeId (D16)', async () => {
    await receivers.old.waitFor(1);
    const [old] = eventsOf('old');
    expect(verified(receivers.old.received[0]!, secrets.old!)).toBe(true);
    expect(old!.apiVersion).toBe('2025-10-08');
    expect(old!.data.object.technicianId).toBe(a.users.north!.id);
    expect(old!.data.object).not.toHaveProperty('assigneeId');
    const { technicianId, ...rest } = old!.data.object;
    const { assigneeId, ...current } = eventsOf('events')[0]!.data.object;
    expect({ technicianId, ...rest }).toEqual({ technicianId: assigneeId, ...current });
  });

  it('the same sequence again changes nothing and fires nothing', async () => {
    const before = await outboxCount();
    const route = await hand(north, [jobs[0]!, jobs[1]!]);
    expect(route.revision).toBe(1);
    expect(await outboxCount()).toBe(before);
  });

  it('another order is resequencing, with the prior stops', async () => {
    const first = ofRoute(northRouteId)[0]!.data.object;
    const route = await hand(north, [jobs[1]!, jobs[0]!]);
    expect(route.revision).toBe(2);
    await routeEvents('the resequenced route\'s event', northRouteId, 2);
    expect(ofRoute(northRouteId)).toHaveLength(2);
    const second = ofRoute(northRouteId)[1]!;
    expect(second.data.object).toMatchObject({ changeReason: 'resequencing', revision: 2 });
    expect(second.data.object.stops.map((s) => s.jobId)).toEqual([jobs[1], jobs[0]]);
    expect(second.data.previousAttributes!.stops).toEqual(first.stops);
    // Only what changed: the foreman did not.
    expect(second.data.previousAttributes).not.toHaveProperty('assigneeId');
  });

  it('a job moved to another crew fires both routes, each with its own increasing revision', async () => {
    const route = await hand(south, [jobs[2]!, jobs[0]!]);
    southRouteId = route.id!;
    await routeEvents('the left route\'s event', northRouteId, 3);
    await routeEvents('the joined route\'s event', southRouteId, 1);
    expect([ofRoute(northRouteId).length, ofRoute(southRouteId).length]).toEqual([3, 1]);
    const left = ofRoute(northRouteId)[2]!;
    expect(left.data.object).toMatchObject({ changeReason: 'reassignment', revision: 3 });
    expect(left.data.object.stops.map((s) => s.jobId)).toEqual([jobs[1]]);
    expect(left.data.previousAttributes!.stops).toEqual(ofRoute(northRouteId)[1]!.data.object.stops);
    const joined = ofRoute(southRouteId)[0]!;
    expect(joined.data.object).toMatchObject({ changeReason: 'reassignment', revision: 1, assigneeId: a.users.south!.id });
    expect(joined.data.object.stops.map((s) => s.jobId)).toEqual([jobs[2], jobs[0]]);
  });

  it('an applied plan fires every route it changed and no other; a receiver keeping the highest revision per route ends on the stored routes', async () => {
    const before = await outboxCount();
    const answer = PlanAnswer.parse(await ok(await call('POST', `/v1/fsm/routes/${DATE}/plan`, 'admin', { mode: 'optimize' })));
    expect(answer.applied).toBe(true);
    const { rows } = await owner.query<{ id: string; revision: number }>('select id, revision from routes where organization_id = $1 and route_date = $2', [a.id, DATE]);
    const changed = rows.filter((r) => (r.id === northRouteId ? r.revision > 3 : r.id === southRouteId ? r.revision > 1 : true));
    expect(await outboxCount()).toBe(before + changed.length);
    await waitUntil('every changed route\'s event', () => changed.every((r) => ofRoute(r.id).some((e) => e.data.object.revision === r.revision)), { timeoutMs: 60_000, detail: deliveryState });
    // docs/webhooks.md's receiver: keep an event only when its revision is above the one held.
    const held = new Map<string, DispatchObject>();
    for (const e of [...eventsOf('events')].reverse()) {
      const seen = held.get(e.data.object.id);
      if (!seen || e.data.object.revision > seen.revision) held.set(e.data.object.id, e.data.object);
    }
    for (const row of rows) expect(held.get(row.id)?.revision).toBe(row.revision);
    for (const e of eventsOf('events')) expect(['reassignment', 'resequencing', 'eta_drift']).toContain(e.data.object.changeReason);
  }, 90_000);
});

describe('crew status (D23): POST /v1/fsm/crews/{id}/status on today\'s route', () => {
  // Today in the workspace's zone (D11's default, America/Toronto).
  const today = instantToLocal(new Date(), 'America/Toronto').slice(0, 10);
  let stops: string[];
  let north: string;
  let south: string;
  let routeId: string;
  const status = (crewId: string, who: string, body: unknown) => call('POST', `/v1/fsm/crews/${crewId}/status`, who, body);
  beforeAll(async () => {
    north = await crewOf('north');
    south = await crewOf('south');
    stops = [await job('north', PLACES[0]!, today), await job('north', PLACES[1]!, today), await job('north', PLACES[2]!, today)];
    routeId = (await hand(north, stops, today)).id!;
    await routeEvents('the new route\'s event', routeId, 1);
    expect(ofRoute(routeId)).toHaveLength(1);
  }, 60_000);

  it('a crew without a route today is 409 with the reason', async () => {
    const res = await status(south, 'admin', { status: 'en_route' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as Problem).detail).toContain(`no route on ${today}`);
  });

  it("another crew's technician is a 403 problem; a job not on the route is 422 at jobId", async () => {
    const res = await status(north, 'south', { status: 'en_route' });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const wrong = await status(north, 'north', { status: 'on_site', jobId: jobs0() });
    expect(wrong.status).toBe(422);
    expect(JSON.stringify(await wrong.json())).toContain('jobId');
    expect(ofRoute(routeId)).toHaveLength(1);
  });

  it("the crew's technician sets a stop's status: technician_status with the prior stops; the same report again fires nothing", async () => {
    const route = Route.parse(await ok(await status(north, 'north', { status: 'on_site', jobId: stops[0] })));
    expect(route.revision).toBe(2);
    expect(route.stops.map((s) => s.status)).toEqual(['on_site', 'planned', 'planned']);
    await routeEvents('the status event', routeId, 2);
    expect(ofRoute(routeId)).toHaveLength(2);
    const event = ofRoute(routeId)[1]!;
    expect(event.data.object).toMatchObject({ changeReason: 'technician_status', revision: 2 });
    expect(event.data.previousAttributes).toEqual({ stops: ofRoute(routeId)[0]!.data.object.stops });
    const before = await outboxCount();
    expect(Route.parse(await ok(await status(north, 'north', { status: 'on_site', jobId: stops[0] }))).revision).toBe(2);
    expect(await outboxCount()).toBe(before);
  });

  it('out of order is allowed, and off_duty with stops left is recorded on them (ADMIN)', async () => {
    const onSite = Route.parse(await ok(await status(north, 'admin', { status: 'on_site', jobId: stops[2] })));
    expect(onSite.stops.map((s) => s.status)).toEqual(['on_site', 'planned', 'on_site']);
    const off = Route.parse(await ok(await status(north, 'north', { status: 'off_duty', jobId: stops[1] })));
    expect(off.stops.map((s) => s.status)).toEqual(['on_site', 'off_duty', 'on_site']);
    await routeEvents('both status events', routeId, 4);
    expect(ofRoute(routeId).map((e) => e.data.object.revision)).toEqual([1, 2, 3, 4]);
    expect(ofRoute(routeId)[3]!.data.object.stops.map((s) => s.status)).toEqual(['on_site', 'off_duty', 'on_site']);
  });
});

describe('ETA drift (D23): time logged and status changes move the following stops', () => {
  // A Tuesday of December: Toronto is UTC-5, so 08:10 local is 13:10Z.
  const DAY = '2026-12-08';
  const at = (local: string) => new Date(`${DAY}T${local}:00-05:00`).toISOString();
  let stops: string[];
  let north: string;
  let routeId: string;
  const logged = (jobId: string, from: string, to: string) =>
    call('POST', `/v1/fsm/jobs/${jobId}/time-entries`, 'admin', { technician_id: a.users.north!.id, started_at: at(from), ended_at: at(to) });
  const stored = async () => Route.parse(await ok(await call('GET', `/v1/fsm/routes/${DAY}/${north}`, 'admin')));
  const threshold = async (minutes: number) => ok(await call('PATCH', '/api/v1/organization', 'admin', { eta_drift_threshold_minutes: minutes }));
  beforeAll(async () => {
    north = await crewOf('north');
    stops = [await job('north', PLACES[0]!, DAY), await job('north', PLACES[1]!, DAY), await job('north', PLACES[2]!, DAY)];
    routeId = (await hand(north, stops, DAY)).id!;
    await routeEvents('the new route\'s event', routeId, 1);
  }, 60_000);

  it('time logged that moves no ETA by more than 15 minutes (the default) stores and fires nothing', async () => {
    const before = await outboxCount();
    const planned = await stored();
    // The first stop begins at 08:0x and takes its 60 minutes: left at 09:10 instead of 09:0x.
    expect(planned.stops[0]!.etaLocal < `${DAY}T08:10`).toBe(true);
    await ok(await logged(stops[0]!, '08:10', '09:05'), 201);
    expect(await stored()).toEqual(planned);
    expect(await outboxCount()).toBe(before);
  });

  it('a job running two hours long moves the stops after it: eta_drift with the prior stops, and the route stored so', async () => {
    const planned = await stored();
    await ok(await logged(stops[0]!, '09:05', '11:00'), 201);
    const route = await stored();
    expect(route.revision).toBe(planned.revision! + 1);
    // The crew leaves the first stop at 11:00 and drives on; the first stop itself stays as it was.
    expect(route.stops[0]).toEqual(planned.stops[0]);
    expect(route.stops[1]!.etaLocal).toBe(`${DAY}T11:${String(route.stops[1]!.driveMinutesFromPrevious).padStart(2, '0')}`);
    expect(route.stops.map((s) => s.jobId)).toEqual(stops);
    await routeEvents('the drift event', routeId, 2);
    const [first, drift] = ofRoute(routeId);
    expect(ofRoute(routeId)).toHaveLength(2);
    expect(drift!.data.object).toMatchObject({ changeReason: 'eta_drift', revision: route.revision, totalDriveMinutes: route.totalDriveMinutes, overtimeMinutes: route.overtimeMinutes });
    expect(drift!.data.object.stops).toEqual(route.stops.map(({ sequence, jobId, etaLocal, status }) => ({ sequence, jobId, etaLocal, status })));
    expect(drift!.data.previousAttributes!.stops).toEqual(first!.data.object.stops);
    expect(drift!.data.previousAttributes).not.toHaveProperty('assigneeId');
  });

  it("the workspace's threshold decides: 90 minutes more is nothing under 180, and a status change under 60 tells it", async () => {
    await threshold(180);
    const planned = await stored();
    const before = await outboxCount();
    await ok(await logged(stops[0]!, '11:00', '12:30'), 201);
    expect(await stored()).toEqual(planned);
    expect(await outboxCount()).toBe(before);
    // The moves add up against the ETAs last told: the job's status change recomputes them.
    await threshold(60);
    await ok(await call('PATCH', `/v1/fsm/jobs/${stops[0]}`, 'admin', { status: 'dispatched' }));
    const route = await stored();
    expect(route.revision).toBe(planned.revision! + 1);
    expect(route.stops[1]!.etaLocal).toBe(`${DAY}T12:${String(30 + route.stops[1]!.driveMinutesFromPrevious).padStart(2, '0')}`);
    await routeEvents('the status change\'s drift event', routeId, 3);
    const events = ofRoute(routeId);
    expect(events).toHaveLength(3);
    expect(events[2]!.data.object).toMatchObject({ changeReason: 'eta_drift', revision: route.revision });
    expect(events[2]!.data.previousAttributes!.stops).toEqual(events[1]!.data.object.stops);
    await threshold(15);
  });
});

describe('reassignment by any path (D23): a job given to another crew moves on the routes of its date', () => {
  const DAY = '2026-12-09';
  let stops: string[];
  let north: string;
  let south: string;
  let northRoute: string;
  let southRoute: string;
  const routeOf = async (crewId: string) => Route.parse(await ok(await call('GET', `/v1/fsm/routes/${DAY}/${crewId}`, 'admin')));
  const shown = (route: Route) => route.stops.map(({ sequence, jobId, etaLocal, status }) => ({ sequence, jobId, etaLocal, status }));
  beforeAll(async () => {
    north = await crewOf('north');
    south = await crewOf('south');
    stops = [await job('north', PLACES[0]!, DAY), await job('north', PLACES[1]!, DAY), await job('south', PLACES[2]!, DAY)];
    northRoute = (await hand(north, [stops[0]!, stops[1]!], DAY)).id!;
    southRoute = (await hand(south, [stops[2]!], DAY)).id!;
    await routeEvents('the north route\'s event', northRoute, 1);
    await routeEvents('the south route\'s event', southRoute, 1);
  }, 60_000);

  it('PUT /v1/fsm/jobs/{id}/crew: the job leaves one route and joins the end of the other, both told as reassignment', async () => {
    await ok(await call('PUT', `/v1/fsm/jobs/${stops[1]}/crew`, 'admin', { crew_id: south }));
    const [left, joined] = [await routeOf(north), await routeOf(south)];
    expect(left.stops.map((s) => s.jobId)).toEqual([stops[0]]);
    expect(joined.stops.map((s) => s.jobId)).toEqual([stops[2], stops[1]]);
    expect([left.revision, joined.revision]).toEqual([2, 2]);
    await routeEvents('the left route\'s event', northRoute, 2);
    await routeEvents('the joined route\'s event', southRoute, 2);
    expect(ofRoute(northRoute)[1]!.data.object).toMatchObject({ changeReason: 'reassignment', revision: 2, stops: shown(left) });
    expect(ofRoute(southRoute)[1]!.data.object).toMatchObject({ changeReason: 'reassignment', revision: 2, stops: shown(joined) });
    expect(ofRoute(southRoute)[1]!.data.previousAttributes!.stops).toEqual(ofRoute(southRoute)[0]!.data.object.stops);
    // The same crew again changes nothing and tells nothing.
    const before = await outboxCount();
    await ok(await call('PUT', `/v1/fsm/jobs/${stops[1]}/crew`, 'admin', { crew_id: south }));
    expect(await outboxCount()).toBe(before);
  });

  it("GraphQL assignCrew moves it back the same way, told after the operation's commit", async () => {
    const res = await call('POST', '/v1/graphql', 'admin', { query: 'mutation($job: ID!, $crew: ID!) { assignCrew(jobId: $job, crewId: $crew) { id } }', variables: { job: stops[1], crew: north } });
    expect(await ok<{ errors?: unknown }>(res)).not.toHaveProperty('errors');
    const [joined, left] = [await routeOf(north), await routeOf(south)];
    expect(joined.stops.map((s) => s.jobId)).toEqual([stops[0], stops[1]]);
    expect(left.stops.map((s) => s.jobId)).toEqual([stops[2]]);
    await routeEvents('the north route\'s return event', northRoute, 3);
    await routeEvents('the south route\'s event', southRoute, 3);
    expect(ofRoute(northRoute)[2]!.data.object).toMatchObject({ changeReason: 'reassignment', revision: 3, stops: shown(joined) });
    expect(ofRoute(southRoute)[2]!.data.object).toMatchObject({ changeReason: 'reassignment', revision: 3, stops: shown(left) });
  });
});

describe('a new date by any path (D23): the job leaves the route of its old date and joins none on the new one', () => {
  const DAY = '2026-12-11';
  const NEXT = '2026-12-14';
  const LATER = '2026-12-15';
  let stops: string[];
  let waiting: string;
  let north: string;
  let dayRoute: string;
  let nextRoute: string;
  const routeOf = async (date: string) => Route.parse(await ok(await call('GET', `/v1/fsm/routes/${date}/${north}`, 'admin')));
  const day = async (date: string) => ok<{ data: { id: string; stops: { jobId: string }[] }[]; unassigned: { jobId: string }[] }>(await call('GET', `/v1/fsm/routes?date=${date}`, 'admin'));
  const shown = (route: Route) => route.stops.map(({ sequence, jobId, etaLocal, status }) => ({ sequence, jobId, etaLocal, status }));
  const schedule = (id: string, date: string | null) =>
    call('POST', '/v1/graphql', 'admin', { query: 'mutation($id: ID!, $date: String) { scheduleWorkOrder(id: $id, scheduledDate: $date) { id scheduledDate } }', variables: { id, date } });
  beforeAll(async () => {
    north = await crewOf('north');
    stops = [await job('north', PLACES[0]!, DAY), await job('north', PLACES[1]!, DAY), await job('north', PLACES[2]!, DAY)];
    waiting = await job('north', PLACES[1]!, NEXT);
    dayRoute = (await hand(north, stops, DAY)).id!;
    nextRoute = (await hand(north, [waiting], NEXT)).id!;
    await routeEvents("the old day's first event", dayRoute, 1);
    await routeEvents("the new day's first event", nextRoute, 1);
  }, 60_000);

  it("PATCH /api/v1/work-orders/{id}: the old day's route drops the stop (the rest move up) and tells reassignment with the prior stops; the new day's route is untouched and lists it unassigned", async () => {
    const before = await routeOf(DAY);
    const moved = await ok<{ scheduled_date: string }>(await call('PATCH', `/api/v1/work-orders/${stops[1]}`, 'admin', { scheduledDate: NEXT }));
    expect(moved.scheduled_date).toBe(`${NEXT}T00:00:00.000Z`);
    const after = await routeOf(DAY);
    expect(after.stops.map((s) => [s.sequence, s.jobId])).toEqual([[1, stops[0]], [2, stops[2]]]);
    expect(after.revision).toBe(before.revision! + 1);
    await routeEvents("the old day's reassignment", dayRoute, 2);
    const told = ofRoute(dayRoute)[1]!.data;
    expect(told.object).toMatchObject({ date: DAY, changeReason: 'reassignment', revision: after.revision, stops: shown(after) });
    expect(told.previousAttributes!.stops).toEqual(shown(before));
    // The new day: its route holds what it held, unchanged and untold; the job waits there unplanned.
    const next = await day(NEXT);
    expect(next.data.find((r) => r.id === nextRoute)!.stops.map((s) => s.jobId)).toEqual([waiting]);
    expect(next.unassigned.map((u) => u.jobId)).toContain(stops[1]);
    expect((await routeOf(NEXT)).revision).toBe(1);
    expect(ofRoute(nextRoute)).toHaveLength(1);
    // The old day no longer lists it at all, and its history names the stop it left.
    expect((await day(DAY)).unassigned.map((u) => u.jobId)).not.toContain(stops[1]);
    const history = await ok<{ data: { kind: string; detail: Record<string, unknown> }[] }>(await call('GET', `/v1/fsm/jobs/${stops[1]}/history`, 'admin'));
    expect(history.data.filter((h) => h.kind === 'route').at(-1)!.detail).toEqual({ crew_id: north, route_date: DAY, from_sequence: 2, to_sequence: null });
    // The same day again changes nothing and tells nothing.
    const count = await outboxCount();
    await ok(await call('PATCH', `/api/v1/work-orders/${stops[1]}`, 'admin', { scheduledDate: NEXT }));
    expect(await outboxCount()).toBe(count);
  });

  it('a hand sequence on the new day places it as any other job of that day', async () => {
    const placed = await hand(north, [waiting, stops[1]!], NEXT);
    expect(placed.stops.map((s) => s.jobId)).toEqual([waiting, stops[1]]);
    expect((await day(NEXT)).unassigned.map((u) => u.jobId)).not.toContain(stops[1]);
  });

  it("GraphQL scheduleWorkOrder takes it off the same way, told after the operation's commit; moving it off the new day's route tells that one", async () => {
    const before = await routeOf(DAY);
    const res = await schedule(stops[2]!, LATER);
    expect(await ok<{ errors?: unknown }>(res)).not.toHaveProperty('errors');
    const after = await routeOf(DAY);
    expect(after.stops.map((s) => [s.sequence, s.jobId])).toEqual([[1, stops[0]]]);
    await routeEvents("the old day's second reassignment", dayRoute, 3);
    expect(ofRoute(dayRoute)[2]!.data).toMatchObject({ object: { changeReason: 'reassignment', revision: after.revision, stops: shown(after) }, previousAttributes: { stops: shown(before) } });
    // Back from the new day's route (where the hand sequence put it) to the old day: it leaves the new day's route and does not rejoin the old one.
    const nextBefore = await routeOf(NEXT);
    expect(await ok<{ errors?: unknown }>(await schedule(stops[1]!, DAY))).not.toHaveProperty('errors');
    const nextAfter = await routeOf(NEXT);
    expect(nextAfter.stops.map((s) => s.jobId)).toEqual([waiting]);
    await routeEvents("the new day's reassignment", nextRoute, 3);
    expect(ofRoute(nextRoute)[2]!.data).toMatchObject({ object: { date: NEXT, changeReason: 'reassignment', revision: nextAfter.revision }, previousAttributes: { stops: shown(nextBefore) } });
    expect((await routeOf(DAY)).stops.map((s) => s.jobId)).toEqual([stops[0]]);
    expect((await day(DAY)).unassigned.map((u) => u.jobId)).toContain(stops[1]);
  });

  it("unscheduling (null) empties the old day's route of it and tells it; PATCH /v1/fsm/jobs/{id}/schedule cannot change a date (422) and moves nothing", async () => {
    const refused = await call('PATCH', `/v1/fsm/jobs/${stops[0]}/schedule`, 'admin', { scheduled_date: NEXT });
    expect(refused.status).toBe(422);
    expect((await routeOf(DAY)).stops.map((s) => s.jobId)).toEqual([stops[0]]);
    const before = await routeOf(DAY);
    await ok(await call('PATCH', `/api/v1/work-orders/${stops[0]}`, 'admin', { scheduledDate: null }));
    const after = await routeOf(DAY);
    expect(after.stops).toEqual([]);
    await routeEvents("the old day's emptying", dayRoute, 4);
    expect(ofRoute(dayRoute)[3]!.data).toMatchObject({ object: { changeReason: 'reassignment', revision: after.revision, stops: [] }, previousAttributes: { stops: shown(before) } });
  });
});

describe('coalescing (D23): a burst of changes to one route within the window is one event', () => {
  const DAY = '2026-12-10';
  // Long enough that the burst's three requests fall inside it on a busy machine.
  const WINDOW = 10;
  let stops: string[];
  let north: string;
  let routeId: string;
  const routeOutbox = async () =>
    (await owner.query<{ revision: number }>(`select (envelope->'data'->>'revision')::int as revision from outbox_events where organization_id = $1 and event = 'dispatch.updated' and envelope->'data'->>'id' = $2 order by sequence`, [a.id, routeId])).rows.map((r) => r.revision);
  const nothingDue = async () => (await owner.query(`select 1 from routes where id = $1 and dispatch_due_at is null`, [routeId])).rowCount === 1;
  beforeAll(async () => {
    north = await crewOf('north');
    stops = [await job('north', PLACES[0]!, DAY), await job('north', PLACES[1]!, DAY)];
    await ok(await call('PATCH', '/api/v1/organization', 'admin', { dispatch_coalesce_seconds: WINDOW }));
  }, 60_000);
  afterAll(async () => {
    await ok(await call('PATCH', '/api/v1/organization', 'admin', { dispatch_coalesce_seconds: 0 }));
  });

  it('the first change is told at once (the leading edge); three more within the window are one trailing event with the last state and the prior values of the one told', async () => {
    const first = await hand(north, stops, DAY);
    routeId = first.id!;
    // Recorded by the committing request itself.
    expect(await routeOutbox()).toEqual([1]);
    await routeEvents('the leading event', routeId, 1);
    const told = ofRoute(routeId)[0]!.data.object;
    expect(told.revision).toBe(1);
    const burstStarted = Date.now();
    await hand(north, [stops[1]!, stops[0]!], DAY);
    await hand(north, stops, DAY);
    const last = await hand(north, [stops[1]!, stops[0]!], DAY);
    expect(last.revision).toBe(4);
    expect(Date.now() - burstStarted).toBeLessThan(WINDOW * 1000);
    expect(await routeOutbox()).toEqual([1]);
    await routeEvents('the trailing event', routeId, 2, (WINDOW + 30) * 1000);
    const trailing = ofRoute(routeId)[1]!;
    expect(trailing.data.object).toMatchObject({ changeReason: 'resequencing', revision: 4 });
    expect(trailing.data.object.stops.map((s) => s.jobId)).toEqual([stops[1], stops[0]]);
    expect(trailing.data.previousAttributes!.stops).toEqual(told.stops);
    await waitUntil('nothing due on the route', nothingDue, { timeoutMs: 30_000 });
    expect(await routeOutbox()).toEqual([1, 4]);
    expect(ofRoute(routeId)).toHaveLength(2);
  }, (WINDOW + 60) * 1000);

  it('changes within the window that end where the route was told leave nothing due and fire nothing', async () => {
    // A quiet route first: its window since the trailing event has ended (on the database's clock).
    await waitUntil('the window to end', async () => (await owner.query(`select 1 from routes where id = $1 and dispatch_told_at < clock_timestamp() - make_interval(secs => $2)`, [routeId, WINDOW])).rowCount === 1, { timeoutMs: 30_000 });
    const lead = await hand(north, stops, DAY);
    expect(await routeOutbox()).toEqual([1, 4, lead.revision]);
    const started = Date.now();
    await hand(north, [stops[1]!, stops[0]!], DAY);
    expect(await nothingDue()).toBe(false);
    await hand(north, stops, DAY);
    expect(Date.now() - started).toBeLessThan(WINDOW * 1000);
    expect(await nothingDue()).toBe(true);
    expect(await routeOutbox()).toEqual([1, 4, lead.revision]);
  }, 60_000);
});
