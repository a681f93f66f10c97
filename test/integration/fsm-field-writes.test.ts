import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { ChangeOrder, Crew, CrewList, JobDetail } from '../../api/fsm/schemas';
import type { Problem } from '../../api/v1/problem';

// Crews, crew assignment, time entries, material draws and change orders (D11, D12), and
// their bad input: each a clear problem, nothing written.
let owner: pg.Pool;
let api: ApiHarness;
let t: Tenant;
const tokens: Record<string, string> = {};
let requests = 0;
const call = (method: string, path: string, who: string, json?: unknown) => {
  requests += 1;
  const address = `198.18.${200 + (Math.floor(requests / 250) % 50)}.${(requests % 250) + 1}`;
  return api.request(path, { method, token: tokens[who], headers: { 'x-forwarded-for': address }, ...(json === undefined ? {} : { json }) });
};

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  t = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', tech2: 'TECHNICIAN', tech3: 'TECHNICIAN', retired: 'TECHNICIAN' });
  await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [t.id]);
  await giveRateCard(t.id, SANDBOX_RATE_CARD);
  for (const [name, user] of Object.entries(t.users)) tokens[name] = await api.tokenFor(user);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

async function problemOf(res: Response): Promise<Problem> {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Problem;
  expect(body.status).toBe(res.status);
  return body;
}
async function newJob(body: Record<string, unknown> = {}): Promise<string> {
  const res = await call('POST', '/api/v1/work-orders', 'admin', { assignedTechnicianId: t.users.tech!.id, ...body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}
const count = async (table: string) => (await owner.query(`select count(*)::int as n from ${table} where organization_id = $1`, [t.id])).rows[0].n as number;
const counts = async () => Object.fromEntries(await Promise.all(['time_entries', 'material_draws', 'change_orders', 'crews', 'crew_members', 'job_history', 'outbox_events'].map(async (table) => [table, await count(table)])));

describe('crews (D11)', () => {
  it('ADMIN makes and changes crews; the foreman is a member; jobs show foreman and headcount', async () => {
    const made = await call('POST', '/v1/fsm/crews', 'admin', { name: 'Crew East', foreman_id: t.users.tech2!.id, member_ids: [t.users.tech3!.id] });
    expect(made.status).toBe(201);
    const crew = Crew.parse(await made.json());
    expect(crew).toMatchObject({ name: 'Crew East', foreman: { user_id: t.users.tech2!.id }, headcount: 2 });
    expect(new Set(crew.member_ids)).toEqual(new Set([t.users.tech2!.id, t.users.tech3!.id]));

    const job = await newJob();
    const assigned = await call('PUT', `/v1/fsm/jobs/${job}/crew`, 'admin', { crew_id: crew.crew_id });
    expect(assigned.status).toBe(200);
    expect(JobDetail.parse(await assigned.json()).crew).toEqual({ crew_id: crew.crew_id, foreman: `tech2 of ${t.subdomain}`, headcount: 2 });
    // The work order's technician follows the crew's foreman.
    expect((await owner.query('select assigned_technician_id from work_orders where id = $1', [job])).rows[0].assigned_technician_id).toBe(t.users.tech2!.id);
    // tech3 is a member: sees it; tech (no longer the crew) does not.
    expect((await call('GET', `/v1/fsm/jobs/${job}`, 'tech3')).status).toBe(200);
    expect((await call('GET', `/v1/fsm/jobs/${job}`, 'tech')).status).toBe(404);

    const before = JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${job}`, 'admin')).json());
    const changed = await call('PATCH', `/v1/fsm/crews/${crew.crew_id}`, 'admin', { foreman_id: t.users.tech3!.id, member_ids: [] });
    expect(changed.status).toBe(200);
    expect(Crew.parse(await changed.json())).toMatchObject({ foreman: { user_id: t.users.tech3!.id }, member_ids: [t.users.tech3!.id], headcount: 1 });
    const after = JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${job}`, 'admin')).json());
    expect(after.crew).toEqual({ crew_id: crew.crew_id, foreman: `tech3 of ${t.subdomain}`, headcount: 1 });
    // What the job shows changed: its feed position moved on.
    expect(after.updated_at > before.updated_at).toBe(true);
    expect((await owner.query('select assigned_technician_id from work_orders where id = $1', [job])).rows[0].assigned_technician_id).toBe(t.users.tech3!.id);
    // The job history records the assignment with who and when.
    const history = await owner.query(`select kind, changed_by_user_id from job_history where work_order_id = $1 order by sequence`, [job]);
    expect(history.rows).toEqual([{ kind: 'created', changed_by_user_id: t.users.admin!.id }, { kind: 'crew', changed_by_user_id: t.users.admin!.id }]);

    const listed = CrewList.parse(await (await call('GET', '/v1/fsm/crews', 'tech3')).json());
    expect(listed.data.map((c) => c.crew_id)).toEqual([crew.crew_id]);
  });

  it('refuses people who are not active technicians, and only ADMIN manages crews', async () => {
    await owner.query('update users set active = false where id = $1', [t.users.retired!.id]);
    const before = await counts();
    const bad = await call('POST', '/v1/fsm/crews', 'admin', { name: 'Bad', foreman_id: t.users.sales!.id, member_ids: [t.users.tech!.id, t.users.retired!.id, '6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10'] });
    expect(bad.status).toBe(422);
    const body = await problemOf(bad);
    expect(body.type).toBe('validation-failed');
    expect(body.errors).toEqual({ foreman_id: 'Not a TECHNICIAN.', 'member_ids.1': 'The technician is deactivated.', 'member_ids.2': 'No such user in this workspace.' });
    for (const who of ['sales', 'tech']) {
      const res = await call('POST', '/v1/fsm/crews', who, { name: 'Mine', foreman_id: t.users.tech!.id });
      expect(res.status).toBe(403);
      expect((await problemOf(res)).type).toBe('forbidden');
    }
    expect(await counts()).toEqual(before);
  });

  it('a crew with a deactivated technician cannot take a job (409 conflict, nothing written)', async () => {
    const made = Crew.parse(await (await call('POST', '/v1/fsm/crews', 'admin', { name: 'Crew Doomed', foreman_id: t.users.tech3!.id, member_ids: [t.users.tech!.id] })).json());
    const job = await newJob();
    await owner.query('update users set active = false where id = $1', [t.users.tech!.id]);
    try {
      const before = await counts();
      const res = await call('PUT', `/v1/fsm/jobs/${job}/crew`, 'admin', { crew_id: made.crew_id });
      expect(res.status).toBe(409);
      expect((await problemOf(res)).type).toBe('conflict');
      expect(await counts()).toEqual(before);
    } finally {
      await owner.query('update users set active = true where id = $1', [t.users.tech!.id]);
    }
  });
});

describe('time entries and material draws (D11)', () => {
  it('hours_logged is the sum of the entries; overlaps of one technician are refused', async () => {
    const job = await newJob();
    const first = await call('POST', `/v1/fsm/jobs/${job}/time-entries`, 'tech', { started_at: '2026-02-01T13:00:00Z', ended_at: '2026-02-01T15:30:00Z', notes: 'Brackets' });
    expect(first.status).toBe(201);
    expect(JobDetail.parse(await first.json())).toMatchObject({ hours_logged: 2.5, time_entries: [{ technician_id: t.users.tech!.id, hours: 2.5, notes: 'Brackets' }] });
    const before = await counts();
    for (const [body, who, status, type, field] of [
      [{ started_at: '2026-02-01T15:00:00Z', ended_at: '2026-02-01T16:00:00Z' }, 'tech', 409, 'conflict', undefined],
      [{ started_at: '2026-02-01T15:00:00Z', ended_at: '2026-02-01T15:00:00Z' }, 'tech', 422, 'validation-failed', 'ended_at'],
      [{ started_at: '2026-02-02T00:00:00Z', ended_at: '2026-02-02T17:00:00Z' }, 'tech', 422, 'validation-failed', 'ended_at'],
      [{ started_at: '2026-02-03T08:00:00Z', ended_at: '2026-02-03T09:00:00Z' }, 'admin', 422, 'validation-failed', 'technician_id'],
      [{ started_at: '2026-02-03T08:00:00Z', ended_at: '2026-02-03T09:00:00Z', technician_id: t.users.tech2!.id }, 'tech', 403, 'forbidden', undefined],
      [{ started_at: '2026-02-03T08:00:00Z', ended_at: '2026-02-03T09:00:00Z' }, 'sales', 403, 'forbidden', undefined],
      [{ started_at: 'yesterday', ended_at: '2026-02-03T09:00:00Z', colour: 'red' }, 'tech', 422, 'validation-failed', 'started_at'],
    ] as const) {
      const res = await call('POST', `/v1/fsm/jobs/${job}/time-entries`, who, body);
      expect({ body, status: res.status }).toEqual({ body, status });
      const problem = await problemOf(res);
      expect(problem.type).toBe(type);
      if (field) expect(Object.keys(problem.errors!)).toContain(field);
    }
    expect(await counts()).toEqual(before);
    // The same hours on another technician do not overlap; ADMIN logs them.
    const other = await call('POST', `/v1/fsm/jobs/${job}/time-entries`, 'admin', { started_at: '2026-02-01T15:00:00Z', ended_at: '2026-02-01T16:00:00Z', technician_id: t.users.tech2!.id });
    expect(other.status).toBe(201);
    expect(JobDetail.parse(await other.json()).hours_logged).toBe(3.5);
  });

  it('material draws: an active catalogue SKU and a positive decimal quantity in its unit', async () => {
    const job = await newJob();
    const drawn = await call('POST', `/v1/fsm/jobs/${job}/material-draws`, 'tech', { sku: 'FAB-BLACKOUT', quantity: '12.5', van_id: 'VAN-2' });
    expect(drawn.status).toBe(201);
    expect(JobDetail.parse(await drawn.json()).material_draws).toEqual([expect.objectContaining({ sku: 'FAB-BLACKOUT', quantity: '12.5', unit: 'sq_ft', van_id: 'VAN-2', drawn_by: t.users.tech!.id })]);
    await owner.query(`update rate_card_skus set active = false where organization_id = $1 and code = 'MTR-WIRED'`, [t.id]);
    const before = await counts();
    for (const [body, field] of [
      [{ sku: 'FAB-BLACKOUT', quantity: '0' }, 'quantity'],
      [{ sku: 'FAB-BLACKOUT', quantity: '-1' }, 'quantity'],
      [{ sku: 'FAB-BLACKOUT', quantity: 2 }, 'quantity'],
      [{ sku: 'FAB-NOPE', quantity: '1' }, 'sku'],
      [{ sku: 'MTR-WIRED', quantity: '1' }, 'sku'],
    ] as const) {
      const res = await call('POST', `/v1/fsm/jobs/${job}/material-draws`, 'tech', body);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      const problem = await problemOf(res);
      expect(problem.type).toBe('validation-failed');
      expect(Object.keys(problem.errors!)).toEqual([field]);
    }
    expect(await counts()).toEqual(before);
  });

  it('nothing is written on a complete or cancelled job (409 conflict)', async () => {
    for (const finish of ['complete', 'cancelled'] as const) {
      const job = await newJob({ quoteId: undefined });
      await owner.query('update work_orders set job_status = $1 where id = $2', [finish, job]);
      const before = await counts();
      for (const [path, body] of [
        ['time-entries', { started_at: '2026-03-01T08:00:00Z', ended_at: '2026-03-01T09:00:00Z' }],
        ['material-draws', { sku: 'FAB-BLACKOUT', quantity: '1' }],
        ['change-orders', { reason: 'A change after the end', labour_hours: 1 }],
      ] as const) {
        const res = await call('POST', `/v1/fsm/jobs/${job}/${path}`, 'tech', body);
        expect({ finish, path, status: res.status }).toEqual({ finish, path, status: 409 });
        expect((await problemOf(res)).type).toBe('conflict');
      }
      expect(await counts()).toEqual(before);
    }
  });
});

describe('change orders (D12)', () => {
  const BEDROOM = { reference: 'Bedroom', widthInches: 35.25, dropInches: 60, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD', trimSkuCode: 'TRIM-FASCIA' };
  let quoteId: string;
  let job: string;

  beforeAll(async () => {
    // The quote of docs/pricing.md section 9, priced at the floor 0.35 (total 261099 cents).
    const calc = await call('POST', '/api/v1/quotes/calculate', 'sales', {
      persist: true,
      laborTierCode: 'PREMIUM',
      lineItems: [
        { reference: 'Living room', widthInches: 48.5, dropInches: 72, quantity: 2, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD', motorSkuCode: 'MTR-BATTERY', trimSkuCode: 'TRIM-CASSETTE' },
        BEDROOM,
      ],
    });
    expect(calc.status).toBe(200);
    const quote = (await calc.json()) as { quote_id: string; totals: { amount_cents: number } };
    expect(quote.totals.amount_cents).toBe(261099);
    quoteId = quote.quote_id;
    job = await newJob({ quoteId });
    // Since then the tenant's floor went up to 0.40 (a new rate-card revision; the quote keeps its own).
    await giveRateCard(t.id, { ...SANDBOX_RATE_CARD, settings: { ...SANDBOX_RATE_CARD.settings, marginFloor: '0.40' } });
  });

  it('raises the worked example of docs/pricing.md section 10, priced to the cent', async () => {
    const res = await call('POST', `/v1/fsm/jobs/${job}/change-orders`, 'tech', { reason: 'Customer added a second bedroom shade on site', line_items: [BEDROOM], labour_hours: 1.5 });
    expect(res.status).toBe(201);
    const co = ChangeOrder.parse(await res.json());
    expect(co).toMatchObject({
      job_id: job,
      sequence: 1,
      status: 'submitted',
      delta: { labour_hours: 2.8047, material_cost: 129.92, direct_cost: 452.46, sell: 754.1, currency: 'CAD' },
      revised_contract_value: { previous: 2610.99, current: 3365.09, currency: 'CAD' },
      margin: { applied: 0.4, floor_engaged: true },
    });
    const detail = JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${job}`, 'admin')).json());
    expect(detail.open_change_orders).toBe(1);
    expect(detail.change_orders.map((c) => c.change_order_id)).toEqual([co.change_order_id]);
    const events = await owner.query(`select event from outbox_events where envelope->'data'->>'change_order_id' = $1`, [co.change_order_id]);
    expect(events.rows).toEqual([{ event: 'change_order.submitted' }]);
  });

  it('numbers per job; roles of D12 for approval; rejection carries who and why', async () => {
    const second = ChangeOrder.parse(await (await call('POST', `/v1/fsm/jobs/${job}/change-orders`, 'admin', { reason: 'Two more hours for a motor cable', labour_hours: 2 })).json());
    expect(second.sequence).toBe(2);
    const before = await counts();
    for (const [who, method, status] of [['sales', 'in_person', 403], ['tech', 'in_person', 403], ['tech2', 'on_device_signature', 404]] as const) {
      const res = await call('POST', `/v1/fsm/change-orders/${second.change_order_id}/approve`, who, { approved_by: { name: 'Jordan Rivera', role: 'Homeowner', method } });
      expect({ who, status: res.status }).toEqual({ who, status });
    }
    expect(await counts()).toEqual(before);
    const approved = await call('POST', `/v1/fsm/change-orders/${second.change_order_id}/approve`, 'tech', { approved_by: { name: 'Jordan Rivera', role: 'Homeowner', method: 'on_device_signature' } });
    expect(approved.status).toBe(200);
    const co = ChangeOrder.parse(await approved.json());
    expect(co).toMatchObject({ status: 'approved', approved_by: { name: 'Jordan Rivera', role: 'Homeowner', method: 'on_device_signature' } });
    // D11: the estimate is the quote's labour hours (4.3376 + 1.3047) plus approved change orders (2).
    const detail = JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${job}`, 'admin')).json());
    expect(detail).toMatchObject({ open_change_orders: 1, hours_estimated: 7.64 });
    const again = await call('POST', `/v1/fsm/change-orders/${second.change_order_id}/reject`, 'admin', { reason: 'too late' });
    expect(again.status).toBe(409);
    expect((await problemOf(again)).type).toBe('conflict');

    const first = detail.change_orders.find((c) => c.sequence === 1)!;
    const rejected = await call('POST', `/v1/fsm/change-orders/${first.change_order_id}/reject`, 'admin', { reason: 'Customer changed their mind' });
    expect(rejected.status).toBe(200);
    expect(ChangeOrder.parse(await rejected.json())).toMatchObject({ status: 'rejected', rejected_by: { name: `admin of ${t.subdomain}`, role: 'ADMIN' }, rejection_reason: 'Customer changed their mind' });
    const events = await owner.query(`select event, envelope->'data' as data from outbox_events where envelope->'data'->>'job_id' = $1 and event like 'change_order.%' order by sequence`, [job]);
    expect(events.rows.map((r) => r.event)).toEqual(['change_order.submitted', 'change_order.submitted', 'change_order.approved', 'change_order.rejected']);
    expect(events.rows[2].data).toMatchObject({ change_order_id: second.change_order_id, sequence: 2, approved_by: { method: 'on_device_signature' }, delta: { labour_hours: 2 }, invoice: false });
    expect(events.rows[3].data).toMatchObject({ rejected_by: { role: 'ADMIN' }, reason: 'Customer changed their mind' });
  });

  it('bad change orders: a quantity of 0, an unknown SKU, a short reason, nothing at all, too precise hours, no quote', async () => {
    const noQuote = await newJob();
    const before = await counts();
    for (const [body, field] of [
      [{ reason: 'A quantity of nothing', line_items: [{ ...BEDROOM, quantity: 0 }] }, 'line_items.0.quantity'],
      [{ reason: 'An unknown fabric code', line_items: [{ ...BEDROOM, fabricSkuCode: 'FAB-NOPE' }] }, 'line_items.0.fabricSkuCode'],
      [{ reason: 'short', labour_hours: 1 }, 'reason'],
      [{ reason: 'Nothing changes at all' }, 'line_items'],
      [{ reason: 'Too precise an hour', labour_hours: 1.23456 }, 'labour_hours'],
    ] as const) {
      const res = await call('POST', `/v1/fsm/jobs/${job}/change-orders`, 'admin', body);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      const problem = await problemOf(res);
      expect(problem.type).toBe('validation-failed');
      expect(Object.keys(problem.errors!)).toEqual([field]);
    }
    const res = await call('POST', `/v1/fsm/jobs/${noQuote}/change-orders`, 'admin', { reason: 'A job without a quote', labour_hours: 1 });
    expect(res.status).toBe(409);
    expect((await problemOf(res)).type).toBe('conflict');
    expect(await counts()).toEqual(before);
  });
});
