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
import { createHash } from 'node:crypto';
import { solidPng } from '../support/png';

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
      business_address: null,
      business_phone: null,
      quote_terms: expect.stringContaining('Prices are in Canadian dollars'),
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
    [{ business_phone: 'call me' }, 'business_phone'],
    [{ business_phone: '555' }, 'business_phone'],
    [{ business_address: 'x'.repeat(501) }, 'business_address'],
    [{ business_address: '  ' }, 'business_address'],
    [{ quote_terms: '' }, 'quote_terms'],
    [{ quote_terms: 't'.repeat(4001) }, 'quote_terms'],
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

describe('D24: the contractor on its quotes: address, phone, terms and logo', () => {
  it('PATCH stores the address, phone and terms; null clears them (the terms return to the default); each audited', async () => {
    const own = await createTenant(pool, { admin: 'ADMIN' });
    const admin = await api.tokenFor(own.users.admin!);
    const patch = (json: unknown) => api.request('/api/v1/organization', { method: 'PATCH', token: admin, json });
    const set = await patch({ business_address: ' 1200 West Pender Street\nVancouver, BC V6E 2S9 ', business_phone: '+1 (604) 555-0142 ext. 12', quote_terms: 'A 30% deposit on acceptance.' });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ business_address: '1200 West Pender Street\nVancouver, BC V6E 2S9', business_phone: '+1 (604) 555-0142 ext. 12', quote_terms: 'A 30% deposit on acceptance.', logo: null });
    const cleared = await patch({ business_address: null, business_phone: null, quote_terms: null });
    expect(await cleared.json()).toMatchObject({ business_address: null, business_phone: null, quote_terms: expect.stringContaining('Prices are in Canadian dollars') });
    const { rows } = await pool.query<{ changes: { field: string; before: unknown; after: unknown }[] }>(`select changes from audit_events where organization_id = $1 order by occurred_at, id`, [own.id]);
    expect(rows[0]!.changes).toEqual(
      expect.arrayContaining([
        { field: 'business_address', before: null, after: '1200 West Pender Street\nVancouver, BC V6E 2S9' },
        { field: 'business_phone', before: null, after: '+1 (604) 555-0142 ext. 12' },
      ]),
    );
    expect(rows[1]!.changes).toEqual(expect.arrayContaining([{ field: 'business_phone', before: '+1 (604) 555-0142 ext. 12', after: null }]));
  });

  it('PUT /organization/logo keeps a PNG (ADMIN only), answers what it is, audits its type, size and SHA-256 (never its bytes); DELETE removes it', async () => {
    const own = await createTenant(pool, { admin: 'ADMIN', sales: 'SALES' });
    const admin = await api.tokenFor(own.users.admin!);
    const png = solidPng(120, 40, [0x11, 0x63, 0x29]);
    const put = (body: Uint8Array | string, type: string, token = admin) => api.request('/api/v1/organization/logo', { method: 'PUT', token, headers: { 'content-type': type }, body });
    expect((await put(png, 'image/png', await api.tokenFor(own.users.sales!))).status).toBe(403);
    const stored = await put(png, 'image/png');
    expect(stored.status).toBe(200);
    const sha256 = createHash('sha256').update(png).digest('hex');
    expect(((await stored.json()) as { logo: unknown }).logo).toEqual({ content_type: 'image/png', size_bytes: png.length, width: 120, height: 40, sha256, updated_at: expect.any(String) });
    const organization = (await (await api.request('/api/v1/organization', { token: admin })).json()) as { logo: { sha256: string } };
    expect(organization.logo.sha256).toBe(sha256);
    const { rows } = await pool.query<{ action: string; changes: unknown }>(`select action, changes from audit_events where organization_id = $1 order by occurred_at, id`, [own.id]);
    expect(rows).toEqual([
      {
        action: 'organization.updated',
        changes: [
          { field: 'logo.content_type', before: null, after: 'image/png' },
          { field: 'logo.size_bytes', before: null, after: png.length },
          { field: 'logo.sha256', before: null, after: sha256 },
        ],
      },
    ]);
    const removed = await api.request('/api/v1/organization/logo', { method: 'DELETE', token: admin });
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as { logo: unknown }).logo).toBeNull();
    // Again: the same answer, nothing more audited.
    expect((await api.request('/api/v1/organization/logo', { method: 'DELETE', token: admin })).status).toBe(200);
    expect((await pool.query(`select 1 from audit_events where organization_id = $1`, [own.id])).rows).toHaveLength(2);
  });

  it('refuses what is not a PNG or JPEG as it says, too large, or damaged, in the envelope, keeping the logo it had', async () => {
    const own = await createTenant(pool, { admin: 'ADMIN' });
    const admin = await api.tokenFor(own.users.admin!);
    const put = (body: Uint8Array | string, type: string) => api.request('/api/v1/organization/logo', { method: 'PUT', token: admin, headers: { 'content-type': type }, body });
    const kept = solidPng(10, 10, [0, 0, 0]);
    expect((await put(kept, 'image/png')).status).toBe(200);
    const png = solidPng(4, 4, [255, 0, 0]);
    const damaged = Buffer.from(png);
    // The pixel data (after the signature, IHDR and the IDAT header) overwritten: not deflate any more.
    damaged.fill(0x55, 8 + 25 + 8, 8 + 25 + 8 + 6);
    const cases: [string, Uint8Array | string, string, number][] = [
      ['text as a PNG', 'not an image', 'image/png', 422],
      ['a PNG sent as a JPEG', png, 'image/jpeg', 422],
      ['a JPEG signature sent as a PNG', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]), 'image/png', 422],
      ['a PNG with damaged pixels', damaged, 'image/png', 422],
      ['an image 2,001 pixels wide', solidPng(2001, 1, [0, 0, 0]), 'image/png', 422],
      ['an SVG', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml', 415],
      ['a GIF', Buffer.from('GIF89a'), 'image/gif', 415],
      ['over 256 KB', Buffer.concat([png, Buffer.alloc(257 * 1024)]), 'image/png', 413],
    ];
    for (const [what, body, type, status] of cases) {
      const res = await put(body, type);
      const envelope = (await res.json()) as { error?: { code: string; details: { fields?: Record<string, string> } | null } };
      expect({ what, status: res.status, code: envelope.error?.code }).toEqual({ what, status, code: status === 422 ? 'validation_failed' : 'bad_request' });
      if (status === 422) expect(Object.keys(envelope.error!.details!.fields!)).toEqual(['logo']);
    }
    const organization = (await (await api.request('/api/v1/organization', { token: admin })).json()) as { logo: { sha256: string } };
    expect(organization.logo.sha256).toBe(createHash('sha256').update(kept).digest('hex'));
  });
});
