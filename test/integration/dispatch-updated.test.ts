import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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

beforeAll(async () => {
  owner = ownerPool();
  temporal = await startTemporalHarness();
  const webhooks: WebhookDependencies = { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true, publicBaseUrl: 'http://127.0.0.1:3998' };
  await temporal.startWorker({ webhooks, cacheWorkflows: true });
  // The plan's events are recorded by a workflow's activity: the worker's relay starts their delivery.
  temporal.relay.start();
  api = await startApi({
    events: temporal.dispatcher,
    routePlans: new RoutePlans(temporal.client, { taskQueue: temporal.routingTaskQueue, subdomains: temporal.subdomains }),
    env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' },
  });
  a = await createTenant(owner, { admin: 'ADMIN', north: 'TECHNICIAN', south: 'TECHNICIAN' });
  await owner.query(`update organizations set plan = 'enterprise', depot_lat = $2, depot_lon = $3 where id = $1`, [a.id, DEPOT.lat, DEPOT.lon]);
  for (const [name, user] of Object.entries(a.users)) tokens[name] = await api.tokenFor(user);
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
/** The events receiver's bodies for one route, in revision order. */
const ofRoute = (routeId: string) => eventsOf('events').filter((e) => e.data.object.id === routeId).sort((x, y) => x.data.object.revision - y.data.object.revision);

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
    await waitUntil('the resequenced route\'s event', () => ofRoute(northRouteId).length === 2, { timeoutMs: 30_000 });
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
    await waitUntil('both routes\' events', () => ofRoute(northRouteId).length === 3 && ofRoute(southRouteId).length === 1, { timeoutMs: 30_000 });
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
    await waitUntil('every changed route\'s event', () => changed.every((r) => ofRoute(r.id).some((e) => e.data.object.revision === r.revision)), { timeoutMs: 60_000 });
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
    await waitUntil('the new route\'s event', () => ofRoute(routeId).length === 1);
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
    await waitUntil('the status event', () => ofRoute(routeId).length === 2);
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
    await waitUntil('both status events', () => ofRoute(routeId).length === 4);
    expect(ofRoute(routeId).map((e) => e.data.object.revision)).toEqual([1, 2, 3, 4]);
    expect(ofRoute(routeId)[3]!.data.object.stops.map((s) => s.status)).toEqual(['on_site', 'off_duty', 'on_site']);
  });
});
