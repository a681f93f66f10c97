import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { JobDetail } from '../../api/fsm/schemas';
import { Site, Technician, TechnicianList } from '../../api/fsm/routing-schemas';
import type { Problem } from '../../api/v1/problem';

// D23: the data routing needs, set and read through /v1/fsm/.
let owner: pg.Pool;
let api: ApiHarness;
let a: Tenant;
let b: Tenant;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  a = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', tech2: 'TECHNICIAN' });
  b = await createTenant(owner, { admin: 'ADMIN' });
  await owner.query(`update organizations set plan = 'enterprise' where id in ($1, $2)`, [a.id, b.id]);
  for (const [name, user] of Object.entries(a.users)) tokens[name] = await api.tokenFor(user);
  tokens.bAdmin = await api.tokenFor(b.users.admin!);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

let requests = 0;
const call = (method: string, path: string, who: string, json?: unknown) => {
  requests += 1;
  return api.request(path, { method, token: tokens[who], headers: { 'x-forwarded-for': `198.18.7.${(requests % 250) + 1}` }, ...(json === undefined ? {} : { json }) });
};
async function errorsOf(res: Response, status = 422): Promise<Record<string, string>> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as Problem & { errors?: Record<string, string> };
  return body.errors ?? {};
}
async function newJob(): Promise<{ id: string; siteId: string }> {
  const res = await call('POST', '/api/v1/work-orders', 'admin', { assignedTechnicianId: a.users.tech!.id, scheduledDate: '2026-12-03', siteAddress: `${requests} Queen St W, Toronto` });
  expect(res.status).toBe(201);
  const id = ((await res.json()) as { id: string }).id;
  const job = JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${id}`, 'admin')).json());
  return { id, siteId: job.site!.site_id };
}

describe('technicians (D23)', () => {
  it('lists each technician with the default week until hours are set', async () => {
    const res = await call('GET', '/v1/fsm/technicians', 'sales');
    expect(res.status).toBe(200);
    const { data } = TechnicianList.parse(await res.json());
    const tech = data.find((t) => t.technician_id === a.users.tech!.id)!;
    expect(tech.skills).toEqual([]);
    expect(tech.availability.is_default).toBe(true);
    expect(tech.availability.weekly.map((d) => `${d.day} ${d.start}-${d.end} ${d.break_minutes}`)).toEqual(
      ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => `${day} 08:00-17:00 30`),
    );
    expect(data.some((t) => t.technician_id === a.users.admin!.id)).toBe(false);
    expect((await call('GET', '/v1/fsm/technicians', 'tech')).status).toBe(403);
  });

  it('sets skills and hours (ADMIN), refusing malformed ones at their dotted path', async () => {
    const id = a.users.tech2!.id;
    const skills = await call('PUT', `/v1/fsm/technicians/${id}/skills`, 'admin', { skills: ['motorisation', 'window_film'] });
    expect(skills.status).toBe(200);
    expect(Technician.parse(await skills.json()).skills).toEqual(['motorisation', 'window_film']);
    expect(await errorsOf(await call('PUT', `/v1/fsm/technicians/${id}/skills`, 'admin', { skills: ['ok', 'Not-Lower'] }))).toHaveProperty(['skills.1']);
    expect(await errorsOf(await call('PUT', `/v1/fsm/technicians/${id}/skills`, 'admin', { skills: ['x'.repeat(41)] }))).toHaveProperty(['skills.0']);
    expect((await call('PUT', `/v1/fsm/technicians/${id}/skills`, 'sales', { skills: [] })).status).toBe(403);
    expect((await call('PUT', `/v1/fsm/technicians/${a.users.tech!.id}/skills`, 'bAdmin', { skills: [] })).status).toBe(404);

    const hours = await call('PUT', `/v1/fsm/technicians/${id}/availability`, 'admin', {
      weekly: [{ day: 'thu', start: '07:00', end: '15:30', break_minutes: 30 }],
      time_off: [{ start: '2026-12-24', end: '2026-12-26', reason: 'Holidays' }],
    });
    expect(hours.status).toBe(200);
    const tech = Technician.parse(await hours.json());
    expect(tech.availability).toMatchObject({ is_default: false, weekly: [{ day: 'thu', start: '07:00', end: '15:30' }] });
    expect(await errorsOf(await call('PUT', `/v1/fsm/technicians/${id}/availability`, 'admin', { weekly: [{ day: 'mon', start: '09:00', end: '08:00' }], time_off: [] }))).toHaveProperty(['weekly.0.end']);
    expect(await errorsOf(await call('PUT', `/v1/fsm/technicians/${id}/availability`, 'admin', { weekly: [], time_off: [{ start: '2026-12-24T10:00', end: '2026-12-24T09:00' }] }))).toHaveProperty(['time_off.0.end']);
    expect(await errorsOf(await call('PUT', `/v1/fsm/technicians/${id}/availability`, 'admin', { weekly: [{ day: 'someday', start: '09:00', end: '10:00' }] }))).toHaveProperty(['weekly.0.day']);
  });
});

describe('sites (D23)', () => {
  it('locates a site in WGS84 degrees and refuses coordinates outside it at their path', async () => {
    const { siteId } = await newJob();
    const patched = await call('PATCH', `/v1/fsm/sites/${siteId}`, 'admin', { lat: 43.6455, lon: -79.3841 });
    expect(patched.status).toBe(200);
    expect(Site.parse(await patched.json())).toMatchObject({ lat: 43.6455, lon: -79.3841, located: true });
    expect(await errorsOf(await call('PATCH', `/v1/fsm/sites/${siteId}`, 'admin', { lat: 91, lon: 0 }))).toHaveProperty(['lat']);
    expect(await errorsOf(await call('PATCH', `/v1/fsm/sites/${siteId}`, 'admin', { lat: 43, lon: -180.5 }))).toHaveProperty(['lon']);
    expect(await errorsOf(await call('PATCH', `/v1/fsm/sites/${siteId}`, 'admin', { lat: 43 }))).toHaveProperty(['lon']);
    const listed = (await (await call('GET', '/v1/fsm/sites', 'sales')).json()) as { data: Site[] };
    expect(listed.data.find((s) => s.site_id === siteId)).toMatchObject({ lat: 43.6455, lon: -79.3841 });
    expect((await call('PATCH', `/v1/fsm/sites/${siteId}`, 'bAdmin', { lat: 1, lon: 1 })).status).toBe(404);
  });
});

describe('a job\'s schedule (D23)', () => {
  it('shows D23\'s defaults, takes the office\'s values, and returns to the defaults on null', async () => {
    const { id } = await newJob();
    const before = JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${id}`, 'admin')).json());
    // No quote: no estimated hours, so the shortest duration; the window is the working day.
    expect(before.schedule).toEqual({ window_start: '08:00', window_end: '17:00', duration_minutes: 15, required_skills: [], defaults: ['window', 'duration_minutes'] });

    const set = await call('PATCH', `/v1/fsm/jobs/${id}/schedule`, 'admin', { window_start: '09:00', window_end: '12:00', duration_minutes: 90, required_skills: ['motorisation', 'window_film'] });
    expect(set.status).toBe(200);
    expect(JobDetail.parse(await set.json()).schedule).toEqual({ window_start: '09:00', window_end: '12:00', duration_minutes: 90, required_skills: ['motorisation', 'window_film'], defaults: [] });

    const reset = await call('PATCH', `/v1/fsm/jobs/${id}/schedule`, 'admin', { duration_minutes: null });
    expect(JobDetail.parse(await reset.json()).schedule).toMatchObject({ window_start: '09:00', duration_minutes: 15, defaults: ['duration_minutes'] });
  });

  it('refuses a window that ends first and a skill nobody has, at their paths', async () => {
    const { id } = await newJob();
    expect(await errorsOf(await call('PATCH', `/v1/fsm/jobs/${id}/schedule`, 'admin', { window_start: '12:00', window_end: '09:00' }))).toHaveProperty(['window_end']);
    await call('PATCH', `/v1/fsm/jobs/${id}/schedule`, 'admin', { window_start: '10:00', window_end: '11:00' });
    expect(await errorsOf(await call('PATCH', `/v1/fsm/jobs/${id}/schedule`, 'admin', { window_end: '09:30' }))).toHaveProperty(['window_end']);
    expect(await errorsOf(await call('PATCH', `/v1/fsm/jobs/${id}/schedule`, 'admin', { required_skills: ['high_reach', 'unheard_of'] }))).toEqual({ 'required_skills.1': expect.stringContaining('unheard_of') });
    expect(await errorsOf(await call('PATCH', `/v1/fsm/jobs/${id}/schedule`, 'admin', { window_start: '25:00' }))).toHaveProperty(['window_start']);
    expect((await call('PATCH', `/v1/fsm/jobs/${id}/schedule`, 'tech', { duration_minutes: 30 })).status).toBe(403);
  });
});
