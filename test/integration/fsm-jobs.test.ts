import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { JOB_STATUSES, JOB_TRANSITIONS, PROJECTION, decideJobTransition, type JobStatus } from '../../domain/jobs/job-status-table';
import { WORK_ORDER_STATUSES, decideTransition } from '../../domain/work-orders/status-table';
import { JobDetail, JobHistoryPage, JobPage } from '../../api/fsm/schemas';
import { appDatabaseUrl } from '../../db/database-urls';
import type { Problem } from '../../api/v1/problem';

// The /v1/fsm/ jobs (D10, D11), and the /api/ work orders they project to.
let owner: pg.Pool;
let api: ApiHarness;
let a: Tenant;
let b: Tenant;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  a = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', tech2: 'TECHNICIAN', retired: 'TECHNICIAN' });
  b = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
  // D15: these tests send hundreds of /v1/ requests a minute; the enterprise bucket holds them.
  await owner.query(`update organizations set plan = 'enterprise' where id in ($1, $2)`, [a.id, b.id]);
  await owner.query('update users set active = false where id = $1', [a.users.retired!.id]);
  await giveRateCard(a.id, SANDBOX_RATE_CARD);
  for (const [name, user] of Object.entries(a.users)) tokens[name] = await api.tokenFor(user);
  tokens.bAdmin = await api.tokenFor(b.users.admin!);
  tokens.bTech = await api.tokenFor(b.users.tech!);
  // Issue 30: a job without a quote is invoiced to its customer (D11: one without completes all the same, its invoice waiting).
  for (const [tenant, id] of [['a', a.id], ['b', b.id]] as const) {
    customers[tenant] = (await owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Field Customer') returning id`, [id])).rows[0]!.id;
  }
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

// Many requests: each from its own address of the benchmarking range, clear of section 8's broad limit.
let requests = 0;
const call = (method: string, path: string, who: string, json?: unknown) => {
  requests += 1;
  const address = `198.18.${Math.floor(requests / 250) % 256}.${(requests % 250) + 1}`;
  return api.request(path, { method, token: tokens[who], headers: { 'x-forwarded-for': address }, ...(json === undefined ? {} : { json }) });
};

/** A work order made through /api/ with a technician: its job gets the crew that technician leads (D11). */
const customers: Record<'a' | 'b', string> = { a: '', b: '' };
async function newJob(who = 'admin', body: Record<string, unknown> = {}, tech = a.users.tech!.id): Promise<string> {
  const customerId = customers[who.startsWith('b') ? 'b' : 'a'];
  const res = await call('POST', '/api/v1/work-orders', who, { assignedTechnicianId: tech, scheduledDate: '2026-12-03', siteAddress: '12 Elm St', customerId, ...body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}
const setJobStatus = (id: string, status: JobStatus) => owner.query('update work_orders set job_status = $1 where id = $2', [status, id]);
const stateOf = async (id: string) => (await owner.query<{ job_status: string; status: string }>('select job_status, status from work_orders where id = $1', [id])).rows[0]!;
const eventsOf = async (id: string) =>
  (await owner.query<{ event: string; data: Record<string, unknown> }>(
    `select event, envelope->'data' as data from outbox_events where envelope->'data'->>'job_id' = $1 or envelope->'data'->>'work_order_id' = $1 order by sequence`,
    [id],
  )).rows;
async function problemOf(res: Response): Promise<Problem> {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Problem;
  expect(body.status).toBe(res.status);
  return body;
}

/** D11: what a move from `from` to `to` records (in order). */
function expectedEvents(from: JobStatus, to: JobStatus): string[] {
  const events = ['job.status_changed'];
  if (to === 'dispatched') events.push('job.dispatched');
  if (to === 'complete') events.push('job.completed');
  if (PROJECTION[from] !== PROJECTION[to]) events.push(`work_order.${PROJECTION[to].toLowerCase()}`);
  return events;
}

describe('the D11 table as data', () => {
  it('has the transitions of D11 and nothing out of a final status', () => {
    expect(JOB_TRANSITIONS.map((t) => `${t.from}>${t.to}`).sort()).toEqual(
      [
        'scheduled>dispatched', 'scheduled>cancelled',
        'dispatched>in_progress', 'dispatched>scheduled', 'dispatched>complete', 'dispatched>cancelled',
        'in_progress>on_hold', 'in_progress>complete', 'in_progress>cancelled',
        'on_hold>in_progress', 'on_hold>cancelled',
      ].sort(),
    );
    expect(decideJobTransition('scheduled', 'dispatched', false).kind).toBe('refused');
    expect(decideJobTransition('scheduled', 'complete', true).kind).toBe('refused');
  });
});

describe('PATCH /v1/fsm/jobs/{id}: every pair of D11 from every role', () => {
  const roles = ['admin', 'tech', 'tech2', 'sales'] as const;
  const cases = JOB_STATUSES.flatMap((from) => JOB_STATUSES.flatMap((to) => roles.map((who) => [from, to, who] as const)));
  it('covers 36 pairs x 4 roles', () => expect(cases).toHaveLength(144));

  it.each(cases)('%s -> %s as %s', async (from, to, who) => {
    // A job without a quote or a customer, as document 000 section 4.4 makes one: D11's table holds for it whole.
    const id = await newJob('admin', { customerId: undefined });
    await setJobStatus(id, from);
    expect(await stateOf(id)).toEqual({ job_status: from, status: PROJECTION[from] });
    const before = (await eventsOf(id)).length;
    const res = await call('PATCH', `/v1/fsm/jobs/${id}`, who, { status: to });
    const events = (await eventsOf(id)).slice(before);

    if (who === 'sales') {
      expect(res.status).toBe(403);
      expect((await problemOf(res)).type).toBe('forbidden');
    } else if (who === 'tech2') {
      // D10: not a job of tech2's crews: it does not exist for them.
      expect(res.status).toBe(404);
      expect((await problemOf(res)).type).toBe('job-not-found');
    } else {
      const decision = decideJobTransition(from, to, true);
      if (decision.kind === 'refused') {
        expect(res.status).toBe(409);
        expect((await problemOf(res)).type).toBe('invalid-transition');
      } else {
        expect(res.status).toBe(200);
        expect(JobDetail.parse(await res.json()).status).toBe(to);
        expect(events.map((e) => e.event)).toEqual(decision.kind === 'move' ? expectedEvents(from, to) : []);
        if (decision.kind === 'move') {
          expect(events[0]!.data).toMatchObject({ job_id: id, from, to });
          expect(await stateOf(id)).toEqual({ job_status: to, status: PROJECTION[to] });
          return;
        }
      }
    }
    expect(events).toEqual([]);
    expect(await stateOf(id)).toEqual({ job_status: from, status: PROJECTION[from] });
  });

  it('scheduled to dispatched needs a crew', async () => {
    const res = await call('POST', '/api/v1/work-orders', 'admin', { scheduledDate: '2026-12-03' });
    const { id } = (await res.json()) as { id: string };
    const refused = await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'dispatched' });
    expect(refused.status).toBe(409);
    expect((await problemOf(refused)).type).toBe('invalid-transition');
    expect(await eventsOf(id)).toEqual([]);
  });

  it('job.completed carries hours_logged against hours_estimated; completed_at is the device sign-off', async () => {
    const id = await newJob();
    await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'dispatched' });
    await call('PATCH', `/v1/fsm/jobs/${id}`, 'tech', { status: 'in_progress' });
    const { actual_start } = JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${id}`, 'tech')).json());
    expect(actual_start).not.toBeNull();
    const start = new Date(actual_start!);
    const logged = await call('POST', `/v1/fsm/jobs/${id}/time-entries`, 'tech', { started_at: new Date(start.getTime() - 3 * 3600_000).toISOString(), ended_at: new Date(start.getTime() - 3600_000).toISOString() });
    expect(logged.status).toBe(201);
    const signedOff = new Date().toISOString();
    const done = await call('PATCH', `/v1/fsm/jobs/${id}`, 'tech', { status: 'complete', completed_at: signedOff });
    expect(done.status).toBe(200);
    const job = JobDetail.parse(await done.json());
    expect(job).toMatchObject({ status: 'complete', hours_logged: 2, percent_complete: 1 });
    const completed = (await eventsOf(id)).find((e) => e.event === 'job.completed')!;
    expect(completed.data).toEqual({ job_id: id, hours_logged: 2, hours_estimated: 0, completed_at: signedOff });
    // The work order's own completed_at stays the server's time (section 3.2).
    const wo = await owner.query('select completed_at, signed_off_at from work_orders where id = $1', [id]);
    expect(new Date(wo.rows[0].signed_off_at).toISOString()).toBe(signedOff);
  });

  it.each([
    ['in the future', (): string => new Date(Date.now() + 5 * 60_000).toISOString(), 'in_progress'],
    ['before actual_start', (): string => '2020-01-01T00:00:00Z', 'in_progress'],
    ['with another status', (): string => new Date().toISOString(), 'dispatched'],
  ] as const)('completed_at %s is validation-failed and nothing changes', async (_, at, from) => {
    const id = await newJob();
    await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'dispatched' });
    if (from === 'in_progress') await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'in_progress' });
    const before = await eventsOf(id);
    const res = await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: from === 'dispatched' ? 'in_progress' : 'complete', completed_at: at() });
    expect(res.status).toBe(422);
    const body = await problemOf(res);
    expect(body.type).toBe('validation-failed');
    expect(Object.keys(body.errors!)).toEqual(['completed_at']);
    expect(await eventsOf(id)).toEqual(before);
    expect((await stateOf(id)).job_status).toBe(from);
  });

  it('completed_at within 60 seconds of skew is accepted', async () => {
    const id = await newJob();
    await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'dispatched' });
    const res = await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'complete', completed_at: new Date(Date.now() + 30_000).toISOString() });
    expect(res.status).toBe(200);
  });
});

describe('PATCH /v1/fsm/jobs/{id} customer_id: the office gives a job its customer (D11)', () => {
  const customerOf = async (id: string) => (await owner.query<{ customer_id: string | null }>('select customer_id from work_orders where id = $1', [id])).rows[0]!.customer_id;
  const changes = async (id: string) => (await eventsOf(id)).filter((e) => e.event === 'job.customer_changed').map((e) => e.data);

  it('ADMIN only, a customer of the tenant; set, cleared, and set with complete first; each change one event and one audit event', async () => {
    const id = await newJob('admin', { customerId: undefined });
    for (const who of ['tech', 'sales']) {
      const res = await call('PATCH', `/v1/fsm/jobs/${id}`, who, { customer_id: customers.a });
      expect({ who, status: res.status, type: (await problemOf(res)).type }).toEqual({ who, status: 403, type: 'forbidden' });
    }
    // Tenant b's customer does not exist in tenant a.
    const foreign = await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { customer_id: customers.b });
    expect(foreign.status).toBe(422);
    expect(Object.keys((await problemOf(foreign)).errors!)).toEqual(['customer_id']);
    for (const body of [{}, { completed_at: new Date().toISOString() }, { customer_id: 'C-1' }]) {
      const res = await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', body);
      expect({ body, status: res.status, type: (await problemOf(res)).type }).toEqual({ body, status: 422, type: 'validation-failed' });
    }
    expect(await customerOf(id)).toBeNull();
    expect(await changes(id)).toEqual([]);

    const set = await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { customer_id: customers.a });
    expect(set.status).toBe(200);
    expect(JobDetail.parse(await set.json())).toMatchObject({ status: 'scheduled', customer_id: customers.a, completion_invoice: null });
    expect((await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { customer_id: customers.a })).status).toBe(200);
    expect((await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { customer_id: null })).status).toBe(200);
    expect(await customerOf(id)).toBeNull();
    expect((await changes(id)).map((d) => [d.previous_customer_id, d.customer_id, d.invoice_released])).toEqual([
      [null, customers.a, false],
      [customers.a, null, false],
    ]);

    // Given with the completion itself: set first, so the invoice is billed to it at once.
    await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'dispatched' });
    const done = await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'complete', customer_id: customers.a });
    expect(done.status).toBe(200);
    expect(JobDetail.parse(await done.json())).toMatchObject({ status: 'complete', customer_id: customers.a, completion_invoice: { status: 'pending', customer_id: customers.a, kind: 'time_and_materials' } });
    const audit = await owner.query(`select action, actor_id, changes from audit_events where entity_type = 'work_order' and entity_id = $1 order by occurred_at, id`, [id]);
    expect(audit.rows.map((r) => [r.action, r.actor_id, r.changes[0].after])).toEqual([
      ['work_order.customer_changed', a.users.admin!.id, customers.a],
      ['work_order.customer_changed', a.users.admin!.id, null],
      ['work_order.customer_changed', a.users.admin!.id, customers.a],
    ]);
    // Billed: no other customer now.
    const { rows: [other] } = await owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Late Payer') returning id`, [a.id]);
    const refused = await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { customer_id: other!.id });
    expect({ status: refused.status, type: (await problemOf(refused)).type }).toEqual({ status: 409, type: 'conflict' });
  });
});

describe('PATCH /api/v1/work-orders/{id}/status moves the job (D11)', () => {
  const cases = JOB_STATUSES.flatMap((from) => WORK_ORDER_STATUSES.map((to) => [from, to] as const));
  it('covers 6 job statuses x 4 targets', () => expect(cases).toHaveLength(24));

  it.each(cases)('job %s, work order to %s', async (from, to) => {
    const id = await newJob();
    await setJobStatus(id, from);
    const before = (await eventsOf(id)).length;
    const res = await call('PATCH', `/api/v1/work-orders/${id}/status`, 'tech', { status: to });
    const events = (await eventsOf(id)).slice(before);
    const decision = decideTransition(PROJECTION[from], to);
    if (decision.kind === 'refused') {
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('conflict');
      expect(events).toEqual([]);
      expect(await stateOf(id)).toEqual({ job_status: from, status: PROJECTION[from] });
    } else if (decision.kind === 'unchanged') {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ id, status: to, unchanged: true });
      expect(events).toEqual([]);
      expect((await stateOf(id)).job_status).toBe(from);
    } else {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ id, status: to, unchanged: false });
      const target = ({ PENDING: 'scheduled', DISPATCHED: 'dispatched', COMPLETED: 'complete', CANCELLED: 'cancelled' } as const)[to];
      expect(await stateOf(id)).toEqual({ job_status: target, status: to });
      expect(events.map((e) => e.event)).toEqual(expectedEvents(from, target));
      expect(events.at(-1)!.data).toMatchObject({ work_order_id: id, status: to, changed_by_user_id: a.users.tech!.id });
    }
  });
});

describe('reading jobs (D10, D11)', () => {
  it('a job has every field of section 2, computed as D11 says', async () => {
    const id = await newJob();
    const res = await call('GET', `/v1/fsm/jobs/${id}`, 'sales');
    expect(res.status).toBe(200);
    const job = JobDetail.parse(await res.json());
    expect(job).toMatchObject({
      job_id: id,
      quote_ref: null,
      status: 'scheduled',
      project_type: 'service',
      site: { name: '12 Elm St', region: 'CA-ON' },
      crew: { foreman: a.users.tech!.email.replace(/@.*/, '') + ` of ${a.subdomain}`, headcount: 1 },
      // 08:00 in Toronto on 2026-12-03 (EST, UTC-5).
      scheduled_start: '2026-12-03T13:00:00.000Z',
      actual_start: null,
      hours_logged: 0,
      hours_estimated: 0,
      percent_complete: 0,
      open_change_orders: 0,
      change_orders: [],
      time_entries: [],
      material_draws: [],
    });
    expect(job.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('a technician sees only the jobs of their crews, in either tenant; others are job-not-found', async () => {
    const mine = await newJob();
    const theirs = await newJob('admin', {}, a.users.tech2!.id);
    const bRes = await call('POST', '/api/v1/work-orders', 'bAdmin', { assignedTechnicianId: b.users.tech!.id });
    const bJob = ((await bRes.json()) as { id: string }).id;
    for (const [who, visible, hidden] of [['tech', mine, [theirs, bJob]], ['tech2', theirs, [mine, bJob]], ['bTech', bJob, [mine, theirs]]] as const) {
      expect((await call('GET', `/v1/fsm/jobs/${visible}`, who)).status).toBe(200);
      for (const other of hidden) {
        for (const [method, path, json] of [
          ['GET', `/v1/fsm/jobs/${other}`, undefined],
          ['PATCH', `/v1/fsm/jobs/${other}`, { status: 'cancelled' }],
          ['POST', `/v1/fsm/jobs/${other}/time-entries`, { started_at: '2026-01-01T08:00:00Z', ended_at: '2026-01-01T09:00:00Z' }],
          ['POST', `/v1/fsm/jobs/${other}/material-draws`, { sku: 'HW-ROLLER-STD', quantity: '1' }],
        ] as const) {
          const res = await call(method, path, who, json);
          expect({ who, method, path, status: res.status }).toEqual({ who, method, path, status: 404 });
          expect((await problemOf(res)).type).toBe('job-not-found');
        }
      }
      const listed = JobPage.parse(await (await call('GET', '/v1/fsm/jobs?limit=200', who)).json());
      const ids = listed.data.map((j) => j.job_id);
      expect(ids).toContain(visible);
      for (const other of hidden) expect(ids).not.toContain(other);
    }
    // ADMIN of the other tenant: not found either.
    expect((await call('GET', `/v1/fsm/jobs/${mine}`, 'bAdmin')).status).toBe(404);
    expect(await stateOf(theirs)).toEqual({ job_status: 'scheduled', status: 'PENDING' });
  });

  it('filters: status (repeatable), crew_id, site_id, updated_since; limit 1-200; bad cursors', async () => {
    const id = await newJob('admin', { siteAddress: 'Filter Site 9' });
    const job = JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${id}`, 'admin')).json());
    await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'cancelled' });
    const page = async (query: string) => JobPage.parse(await (await call('GET', `/v1/fsm/jobs?${query}`, 'admin')).json());
    expect((await page(`site_id=${job.site!.site_id}`)).data.map((j) => j.job_id)).toEqual([id]);
    expect((await page(`site_id=${job.site!.site_id}&status=scheduled`)).data).toEqual([]);
    expect((await page(`site_id=${job.site!.site_id}&status=scheduled&status=cancelled`)).data.map((j) => j.job_id)).toEqual([id]);
    expect((await page(`crew_id=${job.crew!.crew_id}&status=cancelled`)).data.map((j) => j.job_id)).toContain(id);
    const after = await page(`site_id=${job.site!.site_id}&updated_since=${encodeURIComponent(job.updated_at)}`);
    expect(after.data.map((j) => j.status)).toEqual(['cancelled']);
    const latest = after.data[0]!.updated_at;
    expect((await page(`site_id=${job.site!.site_id}&updated_since=${encodeURIComponent(latest)}`)).data).toEqual([]);
    for (const bad of ['limit=0', 'limit=201', 'status=done', 'updated_since=yesterday', 'crew_id=x', 'colour=red']) {
      const res = await call('GET', `/v1/fsm/jobs?${bad}`, 'admin');
      expect({ bad, status: res.status }).toEqual({ bad, status: 422 });
      expect((await problemOf(res)).type).toBe('validation-failed');
    }
    const forged = await call('GET', '/v1/fsm/jobs?cursor=bm90LWEtY3Vyc29y', 'admin');
    expect(forged.status).toBe(400);
    expect((await problemOf(forged)).type).toBe('validation-failed');
    const defaulted = await page('');
    expect(defaulted.data.length).toBeLessThanOrEqual(50);
  });

  it('pages with next_cursor and has_more', async () => {
    for (let i = 0; i < 5; i += 1) await newJob('admin', { siteAddress: 'Paging Site' });
    const site = JobPage.parse(await (await call('GET', '/v1/fsm/jobs?limit=200', 'admin')).json()).data.find((j) => j.site?.name === 'Paging Site')!.site!.site_id;
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    for (;;) {
      const page = JobPage.parse(await (await call('GET', `/v1/fsm/jobs?site_id=${site}&limit=2${cursor ? `&cursor=${cursor}` : ''}`, 'admin')).json());
      seen.push(...page.data.map((j) => j.job_id));
      pages += 1;
      cursor = page.next_cursor;
      if (!page.has_more) break;
    }
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
  });
});

describe('GET /v1/fsm/jobs/{id}/history: dispatch reconstructable (D11)', () => {
  it('lists every change of a job oldest first, with who and when, pages and resumes by cursor, and shows a job only to those who see it', async () => {
    const id = await newJob();
    expect((await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'dispatched' })).status).toBe(200);
    expect((await call('PATCH', `/v1/fsm/jobs/${id}`, 'tech', { status: 'in_progress' })).status).toBe(200);
    expect((await call('POST', `/v1/fsm/jobs/${id}/time-entries`, 'tech', { started_at: '2026-02-03T13:00:00Z', ended_at: '2026-02-03T15:00:00Z' })).status).toBe(201);

    const read = async (who: string, query = '') => {
      const res = await call('GET', `/v1/fsm/jobs/${id}/history${query}`, who);
      expect(res.status).toBe(200);
      return JobHistoryPage.parse(await res.json());
    };
    const all = await read('admin');
    expect(all.data.map((e) => [e.kind, e.from_status, e.to_status, e.changed_by])).toEqual([
      ['created', null, 'scheduled', a.users.admin!.id],
      ['status', 'scheduled', 'dispatched', a.users.admin!.id],
      ['status', 'dispatched', 'in_progress', a.users.tech!.id],
      ['time_entry', null, null, a.users.tech!.id],
    ]);
    expect(all.data[3]!.detail).toMatchObject({ technician_id: a.users.tech!.id, started_at: '2026-02-03T13:00:00.000Z' });
    const times = all.data.map((e) => Date.parse(e.changed_at));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(all.has_more).toBe(false);
    // The same as the database holds, entry for entry.
    const stored = await owner.query('select kind from job_history where work_order_id = $1 order by sequence', [id]);
    expect(stored.rows.map((r) => r.kind)).toEqual(all.data.map((e) => e.kind));

    // Pages of two; the last page still hands out a cursor, and resuming from it shows only what came later.
    const first = await read('admin', '?limit=2');
    expect({ kinds: first.data.map((e) => e.kind), more: first.has_more }).toEqual({ kinds: ['created', 'status'], more: true });
    const second = await read('admin', `?limit=2&cursor=${first.next_cursor}`);
    expect({ kinds: second.data.map((e) => e.kind), more: second.has_more }).toEqual({ kinds: ['status', 'time_entry'], more: false });
    expect(second.next_cursor).not.toBeNull();
    const caughtUp = await read('admin', `?cursor=${second.next_cursor}`);
    expect({ data: caughtUp.data, cursor: caughtUp.next_cursor }).toEqual({ data: [], cursor: second.next_cursor });
    expect((await call('PATCH', `/v1/fsm/jobs/${id}`, 'tech', { status: 'on_hold' })).status).toBe(200);
    const later = await read('admin', `?cursor=${second.next_cursor}`);
    expect(later.data.map((e) => [e.kind, e.from_status, e.to_status])).toEqual([['status', 'in_progress', 'on_hold']]);

    // Visible as the job is (D10): the crew's technician and SALES, not another crew's technician nor another tenant.
    expect((await read('tech')).data).toHaveLength(5);
    expect((await read('sales')).data).toHaveLength(5);
    for (const who of ['tech2', 'bAdmin']) {
      const hidden = await call('GET', `/v1/fsm/jobs/${id}/history`, who);
      expect({ who, status: hidden.status, type: (await problemOf(hidden)).type }).toEqual({ who, status: 404, type: expect.stringContaining('job-not-found') });
    }
    // A cursor this history did not hand out (garbage, or the jobs feed's) is a 400 problem.
    const feedCursor = ((await (await call('GET', '/v1/fsm/jobs?limit=1', 'admin')).json()) as { next_cursor: string }).next_cursor;
    for (const cursor of ['not-a-cursor!', feedCursor, Buffer.from('["0"]').toString('base64url')]) {
      const refused = await call('GET', `/v1/fsm/jobs/${id}/history?cursor=${encodeURIComponent(cursor)}`, 'admin');
      expect({ cursor, status: refused.status }).toEqual({ cursor, status: 400 });
      await problemOf(refused);
    }
  });
});

describe('GET /v1/fsm/jobs/{id}/history: more than ten entries, in order at every page size', () => {
  it('pages through every limit from 1 to 11 and gets every entry once, oldest first', async () => {
    // The history's sequence is one identity for every job. Place this job's entries across a
    // power of ten (…95 to …06), where ordering by the sequence's text would put 1000 before 995.
    const { rows: [position] } = await owner.query<{ last: string }>(`select coalesce(max(sequence), 0)::text as last from job_history`);
    const next = BigInt(position!.last) + 10n;
    let power = 10n;
    while (power <= next) power *= 10n;
    await owner.query(`select setval(pg_get_serial_sequence('job_history', 'sequence'), $1::bigint)`, [String(power - 5n)]);

    const id = await newJob();
    expect((await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: 'dispatched' })).status).toBe(200);
    expect((await call('PATCH', `/v1/fsm/jobs/${id}`, 'tech', { status: 'in_progress' })).status).toBe(200);
    for (let hour = 0; hour < 9; hour += 1) {
      const started = `2026-02-05T${String(8 + hour).padStart(2, '0')}:00:00Z`;
      const ended = `2026-02-05T${String(8 + hour).padStart(2, '0')}:30:00Z`;
      expect((await call('POST', `/v1/fsm/jobs/${id}/time-entries`, 'tech', { started_at: started, ended_at: ended })).status).toBe(201);
    }
    const stored = await owner.query<{ sequence: string; kind: string; from_status: string | null; to_status: string | null; detail: Record<string, unknown> }>(
      'select sequence::text as sequence, kind, from_status, to_status, detail from job_history where work_order_id = $1 order by job_history.sequence',
      [id],
    );
    const entry = (e: { kind: string; from_status: string | null; to_status: string | null; detail: Record<string, unknown> }) => JSON.stringify([e.kind, e.from_status, e.to_status, e.detail.started_at ?? null]);
    expect(stored.rows.length).toBeGreaterThan(10);
    const crossing = stored.rows.map((r) => r.sequence.length);
    expect(new Set(crossing).size).toBe(2);
    const expected = stored.rows.map(entry);
    expect(stored.rows.slice(0, 3).map((r) => r.kind)).toEqual(['created', 'status', 'status']);

    for (let limit = 1; limit <= 11; limit += 1) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 20; page += 1) {
        const res = await call('GET', `/v1/fsm/jobs/${id}/history?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, 'admin');
        expect(res.status).toBe(200);
        const body = JobHistoryPage.parse(await res.json());
        expect(body.data.length).toBeLessThanOrEqual(limit);
        seen.push(...body.data.map(entry));
        cursor = body.next_cursor;
        if (!body.has_more) break;
      }
      expect({ limit, kinds: seen }).toEqual({ limit, kinds: expected });
    }
  });
});

describe('row-level security on every new table', () => {
  it('with the tenant setting unset, the application role reads nothing of any of them', async () => {
    const appPool = new pg.Pool({ connectionString: appDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_APP_PASSWORD!), max: 1 });
    try {
      const id = await newJob();
      await call('POST', `/v1/fsm/jobs/${id}/time-entries`, 'tech', { started_at: '2025-03-01T08:00:00Z', ended_at: '2025-03-01T09:00:00Z' });
      await call('POST', `/v1/fsm/jobs/${id}/material-draws`, 'tech', { sku: 'HW-ROLLER-STD', quantity: '1' });
      for (const table of ['crews', 'crew_members', 'sites', 'job_sync_clock', 'time_entries', 'material_draws', 'change_orders', 'job_history']) {
        const total = await owner.query(`select count(*)::int as n from ${table}`);
        if (table !== 'change_orders') expect({ table, rows: total.rows[0].n > 0 }).toEqual({ table, rows: true });
        const seen = await appPool.query(`select count(*)::int as n from ${table}`);
        expect({ table, seen: seen.rows[0].n }).toEqual({ table, seen: 0 });
        // As tenant B: only B's rows.
        const client = await appPool.connect();
        try {
          await client.query('begin');
          await client.query('select app_enter_tenant($1)', [b.id]);
          const foreign = await client.query(`select count(*)::int as n from ${table} where organization_id <> $1`, [b.id]);
          expect({ table, foreign: foreign.rows[0].n }).toEqual({ table, foreign: 0 });
          await client.query('commit');
        } finally {
          client.release();
        }
      }
    } finally {
      await appPool.end();
    }
  });
});
