import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { inTenant } from '../../db/tenant-scope';
import { organizationSettings, updateOrganizationSettings } from '../../db/organizations';
import { expireStaleQuotesOfTenant } from '../../db/quotes/quotes';
import { giveRateCard } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

let api: ApiHarness;
let pool: pg.Pool;
let tenant: Tenant;

beforeAll(async () => {
  pool = ownerPool();
  api = await startApi();
  tenant = await createTenant(pool, { admin: 'ADMIN', sales: 'SALES' });
});

afterAll(async () => {
  await api?.close();
  await pool?.end();
});

describe('organizationSettings (D11, D3, D23): every setting with its default applied', () => {
  it('answers the defaults of a tenant that has set nothing, its registered name as the display name', async () => {
    const settings = await inTenant(api.orm.em, tenant.id, (tx) => organizationSettings(tx));
    expect(settings).toEqual({
      display_name: `Test ${tenant.subdomain}`,
      time_zone: 'America/Toronto',
      working_day_start: '08:00',
      quote_validity_days: 30,
      depot: null,
      road_factor: 1.3,
      average_speed_kmh: 40,
      overtime_cap_minutes: 60,
      eta_drift_threshold_minutes: 15,
      dispatch_coalesce_seconds: 5,
    });
  });

  it('answers what the tenant stored, as the application role, and a null depot clears it', async () => {
    const other = await createTenant(pool, { admin: 'ADMIN' });
    await inTenant(api.orm.em, other.id, (tx) =>
      updateOrganizationSettings(tx, { display_name: 'Brightline', time_zone: 'America/Vancouver', working_day_start: '07:30', depot: { lat: 43.65, lon: -79.38 }, road_factor: 1.45, average_speed_kmh: 35 }),
    );
    const stored = await inTenant(api.orm.em, other.id, (tx) => organizationSettings(tx));
    expect(stored).toMatchObject({ display_name: 'Brightline', time_zone: 'America/Vancouver', working_day_start: '07:30', depot: { lat: 43.65, lon: -79.38 }, road_factor: 1.45, average_speed_kmh: 35 });
    await inTenant(api.orm.em, other.id, (tx) => updateOrganizationSettings(tx, { depot: null }));
    expect((await inTenant(api.orm.em, other.id, (tx) => organizationSettings(tx))).depot).toBeNull();
    // Another tenant's settings are untouched.
    expect((await inTenant(api.orm.em, tenant.id, (tx) => organizationSettings(tx))).time_zone).toBe('America/Toronto');
  });
});

describe('PATCH /api/v1/organization: the settings (D11, D3, D23), each validated and audited (D22)', () => {
  const patch = (json: unknown, token: string) => api.request('/api/v1/organization', { method: 'PATCH', token, json });

  it.each([
    [{ time_zone: 'Mars/Olympus_Mons' }, 'time_zone'],
    [{ time_zone: '+05:00' }, 'time_zone'],
    [{ time_zone: '' }, 'time_zone'],
    [{ working_day_start: '8:00' }, 'working_day_start'],
    [{ working_day_start: '24:00' }, 'working_day_start'],
    [{ quote_validity_days: 0 }, 'quote_validity_days'],
    [{ quote_validity_days: 366 }, 'quote_validity_days'],
    [{ quote_validity_days: 7.5 }, 'quote_validity_days'],
    [{ depot: { lat: 90.5, lon: 0 } }, 'depot.lat'],
    [{ depot: { lat: 43.6, lon: -180.01 } }, 'depot.lon'],
    [{ depot: { lat: 43.6 } }, 'depot.lon'],
    [{ depot: { lat: '43.6', lon: -79.4 } }, 'depot.lat'],
    [{ road_factor: 0.9 }, 'road_factor'],
    [{ road_factor: 3.5 }, 'road_factor'],
    [{ road_factor: 1.333 }, 'road_factor'],
    [{ average_speed_kmh: 4 }, 'average_speed_kmh'],
    [{ average_speed_kmh: 131 }, 'average_speed_kmh'],
    [{ overtime_cap_minutes: -1 }, 'overtime_cap_minutes'],
    [{ overtime_cap_minutes: 481 }, 'overtime_cap_minutes'],
    [{ eta_drift_threshold_minutes: 0 }, 'eta_drift_threshold_minutes'],
    [{ eta_drift_threshold_minutes: 241 }, 'eta_drift_threshold_minutes'],
    [{ dispatch_coalesce_seconds: -1 }, 'dispatch_coalesce_seconds'],
    [{ dispatch_coalesce_seconds: 301 }, 'dispatch_coalesce_seconds'],
    [{ display_name: '   ' }, 'display_name'],
    [{ display_name: 'x'.repeat(201) }, 'display_name'],
    [{ colour: 'blue' }, 'colour'],
  ])('%j is 422 naming %s, and nothing is stored', async (body, path) => {
    const admin = await api.tokenFor(tenant.users.admin!);
    const before = await (await api.request('/api/v1/organization', { token: admin })).json();
    const res = await patch({ display_name: 'Stored only with the rest', ...body }, admin);
    expect(res.status).toBe(422);
    const envelope = (await res.json()) as { error: { code: string; details: { fields: Record<string, string> } } };
    expect(envelope.error.code).toBe('validation_failed');
    expect(Object.keys(envelope.error.details.fields)[0]).toBe(path);
    expect(await (await api.request('/api/v1/organization', { token: admin })).json()).toEqual(before);
  });

  it('an empty body is 422: a PATCH names at least one setting', async () => {
    const res = await patch({}, await api.tokenFor(tenant.users.admin!));
    expect(res.status).toBe(422);
  });

  it('only an ADMIN may read or change them', async () => {
    const sales = await api.tokenFor(tenant.users.sales!);
    expect((await api.request('/api/v1/organization', { token: sales })).status).toBe(403);
    expect((await patch({ time_zone: 'America/Halifax' }, sales)).status).toBe(403);
  });

  it('stores what it names, answers every setting, and audits each changed field with before and after (D22)', async () => {
    const own = await createTenant(pool, { admin: 'ADMIN' });
    const admin = await api.tokenFor(own.users.admin!);
    const res = await patch({ display_name: 'Brightline', time_zone: 'America/Vancouver', working_day_start: '07:30', quote_validity_days: 45, depot: { lat: 49.2606, lon: -123.114 }, road_factor: 1.25, average_speed_kmh: 50, overtime_cap_minutes: 90, eta_drift_threshold_minutes: 10, dispatch_coalesce_seconds: 2 }, admin);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: own.id, subdomain: own.subdomain, plan: 'starter', name: `Test ${own.subdomain}`,
      display_name: 'Brightline', time_zone: 'America/Vancouver', working_day_start: '07:30', quote_validity_days: 45,
      depot: { lat: 49.2606, lon: -123.114 }, road_factor: 1.25, average_speed_kmh: 50, overtime_cap_minutes: 90, eta_drift_threshold_minutes: 10, dispatch_coalesce_seconds: 2,
    });
    // A second PATCH with one value the same and one changed audits only the changed one.
    expect((await patch({ time_zone: 'America/Vancouver', working_day_start: '09:00' }, admin)).status).toBe(200);
    // Nothing changed: no event.
    expect((await patch({ working_day_start: '09:00' }, admin)).status).toBe(200);
    const { rows } = await pool.query<{ action: string; actor_type: string; actor_id: string; entity_type: string; entity_id: string; changes: { field: string; before: unknown; after: unknown }[]; request_id: string | null }>(
      `select action, actor_type, actor_id, entity_type, entity_id, changes, request_id from audit_events where organization_id = $1 order by occurred_at, id`,
      [own.id],
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ action: 'organization.updated', actor_type: 'user', actor_id: own.users.admin!.id, entity_type: 'organization', entity_id: own.id });
    expect(rows[0]!.request_id).toEqual(expect.any(String));
    expect(rows[0]!.changes).toEqual(
      expect.arrayContaining([
        { field: 'display_name', before: `Test ${own.subdomain}`, after: 'Brightline' },
        { field: 'time_zone', before: 'America/Toronto', after: 'America/Vancouver' },
        { field: 'quote_validity_days', before: 30, after: 45 },
        { field: 'depot.lat', before: null, after: 49.2606 },
        { field: 'depot.lon', before: null, after: -123.114 },
        { field: 'road_factor', before: 1.3, after: 1.25 },
      ]),
    );
    expect(rows[0]!.changes).toHaveLength(11);
    expect(rows[1]!.changes).toEqual([{ field: 'working_day_start', before: '07:30', after: '09:00' }]);
  });
});

describe('PATCH /api/v1/organization: the technical contact\'s audit (D22, D13)', () => {
  const changesOf = async (organizationId: string) =>
    (await pool.query<{ changes: { field: string; before: unknown; after: unknown }[] }>(`select changes from audit_events where organization_id = $1 and action = 'organization.updated' order by occurred_at, id`, [organizationId])).rows.map((row) => row.changes);

  it('records as `before` what GET showed: the first ADMIN\'s email on a fresh workspace, not null', async () => {
    const own = await createTenant(pool, { admin: 'ADMIN' });
    const admin = await api.tokenFor(own.users.admin!);
    const shown = (await (await api.request('/api/v1/organization', { token: admin })).json()) as { technical_contact_email: string; technical_contact_is_default: boolean };
    expect(shown).toMatchObject({ technical_contact_email: own.users.admin!.email, technical_contact_is_default: true });

    expect((await api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: { technical_contact_email: 'ops@contractor.example' } })).status).toBe(200);
    // Naming the default's own address makes it explicit: a change, though the email stays.
    expect((await api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: { technical_contact_email: null } })).status).toBe(200);
    expect((await api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: { technical_contact_email: own.users.admin!.email } })).status).toBe(200);
    expect(await changesOf(own.id)).toEqual([
      [
        { field: 'technical_contact_email', before: shown.technical_contact_email, after: 'ops@contractor.example' },
        { field: 'technical_contact_is_default', before: true, after: false },
      ],
      [
        { field: 'technical_contact_email', before: 'ops@contractor.example', after: own.users.admin!.email },
        { field: 'technical_contact_is_default', before: false, after: true },
      ],
      [{ field: 'technical_contact_is_default', before: true, after: false }],
    ]);
  });
});

describe('the settings take effect (D11, D3)', () => {
  it('D11: a job\'s scheduled start is its date at the tenant\'s working-day start in its time zone, on /v1/fsm and GraphQL', async () => {
    const own = await createTenant(pool, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    const admin = await api.tokenFor(own.users.admin!);
    const made = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { assignedTechnicianId: own.users.tech!.id, scheduledDate: '2026-07-03', siteAddress: '12 Elm St' } });
    expect(made.status).toBe(201);
    const id = ((await made.json()) as { id: string }).id;
    const start = async () => ((await (await api.request(`/v1/fsm/jobs/${id}`, { token: admin })).json()) as { scheduled_start: string }).scheduled_start;
    const listed = async () => ((await (await api.request('/v1/fsm/jobs', { token: admin })).json()) as { data: { job_id: string; scheduled_start: string }[] }).data.find((j) => j.job_id === id)!.scheduled_start;
    const graphql = async () =>
      ((await (await api.request('/v1/graphql', { method: 'POST', token: admin, json: { query: 'query($id: ID!) { job(id: $id) { scheduledStart } }', variables: { id } } })).json()) as { data: { job: { scheduledStart: string } } }).data.job.scheduledStart;
    // The default: 08:00 America/Toronto, daylight time in July (UTC-4).
    expect(await start()).toBe('2026-07-03T12:00:00.000Z');
    expect((await api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: { time_zone: 'America/Vancouver', working_day_start: '07:30' } })).status).toBe(200);
    // 07:30 in Vancouver (UTC-7).
    expect(await start()).toBe('2026-07-03T14:30:00.000Z');
    expect(await listed()).toBe('2026-07-03T14:30:00.000Z');
    expect(await graphql()).toBe('2026-07-03T14:30:00.000Z');
    expect((await api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: { time_zone: 'America/Regina' } })).status).toBe(200);
    expect(await start()).toBe('2026-07-03T13:30:00.000Z');
  });

  it('D3: quotes expire after the tenant\'s quote_validity_days, as set through the API', async () => {
    const own = await createTenant(pool, { admin: 'ADMIN' });
    await giveRateCard(own.id, SANDBOX_RATE_CARD);
    const admin = await api.tokenFor(own.users.admin!);
    const quote = async (days: number) => {
      const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: admin, json: twoWindows({ persist: true }) });
      const id = ((await res.json()) as { quote_id: string }).quote_id;
      await pool.query(`update quotes set created_at = now() - make_interval(days => $1) where id = $2`, [days, id]);
      return id;
    };
    const eightDays = await quote(8);
    const sixDays = await quote(6);
    const status = async (id: string) => (await pool.query<{ status: string }>('select status from quotes where id = $1', [id])).rows[0]!.status;
    // Default 30 days: neither is past it.
    expect(await inTenant(api.orm.em, own.id, (tx) => expireStaleQuotesOfTenant(tx, new Date()))).toBe(0);
    expect((await api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: { quote_validity_days: 7 } })).status).toBe(200);
    expect(await inTenant(api.orm.em, own.id, (tx) => expireStaleQuotesOfTenant(tx, new Date()))).toBe(1);
    expect(await status(eightDays)).toBe('EXPIRED');
    expect(await status(sixDays)).toBe('DRAFT');
  });

  it('D3 with D24: the customer page link of a sent quote expires with the tenant\'s validity', async () => {
    const own = await createTenant(pool, { admin: 'ADMIN' });
    await giveRateCard(own.id, SANDBOX_RATE_CARD);
    const admin = await api.tokenFor(own.users.admin!);
    expect((await api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: { quote_validity_days: 45 } })).status).toBe(200);
    const made = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: admin, json: twoWindows({ persist: true }) });
    const id = ((await made.json()) as { quote_id: string }).quote_id;
    expect((await api.request(`/api/v1/quotes/${id}/send`, { method: 'POST', token: admin })).status).toBe(200);
    const { rows } = await pool.query<{ days: string }>(
      `select extract(epoch from (t.expires_at - q.created_at)) / 86400 as days from quote_page_tokens t join quotes q on q.id = t.quote_id where q.id = $1`,
      [id],
    );
    // To the millisecond (the stored creation time carries microseconds).
    expect(Number(rows[0]!.days)).toBeCloseTo(45, 6);
  });
});
