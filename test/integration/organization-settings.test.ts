import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { inTenant } from '../../db/tenant-scope';
import { organizationSettings, updateOrganizationSettings } from '../../db/organizations';

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
