import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { JOB_TRANSITIONS } from '../../domain/jobs/job-status-table';
import { Job, JobDetail, JobPage } from '../../api/fsm/schemas';
import { appDatabaseUrl } from '../../db/database-urls';

// D11, incremental sync: a poller following updated_since (or next_cursor) never misses a change,
// even one whose transaction commits after a later one (docs/field-sync.md).
let owner: pg.Pool;
let appPool: pg.Pool;
let api: ApiHarness;
let t: Tenant;
const tokens: Record<string, string> = {};
let requests = 0;
const call = (method: string, path: string, who: string, json?: unknown) => {
  requests += 1;
  const address = `198.19.${Math.floor(requests / 250) % 256}.${(requests % 250) + 1}`;
  return api.request(path, { method, token: tokens[who], headers: { 'x-forwarded-for': address }, ...(json === undefined ? {} : { json }) });
};

beforeAll(async () => {
  owner = ownerPool();
  appPool = new pg.Pool({ connectionString: appDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_APP_PASSWORD!), max: 4 });
  api = await startApi();
  t = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN', tech2: 'TECHNICIAN' });
  // D15: the pollers and writers send thousands of /v1/ requests; the enterprise bucket holds them.
  await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [t.id]);
  await giveRateCard(t.id, SANDBOX_RATE_CARD);
  for (const [name, user] of Object.entries(t.users)) tokens[name] = await api.tokenFor(user);
});
afterAll(async () => {
  await api.close();
  await appPool.end();
  await owner.end();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The feed's Job out of a job's detail: the keys of Job, without what only the detail answers. */
const jobOnly = (detail: JobDetail): Job => Job.parse(Object.fromEntries(Object.entries(detail).filter(([key]) => Object.hasOwn(Job.shape, key))));

describe('incremental sync under concurrency', () => {
  it("many writers change jobs while pollers follow the feed; at the end each poller's copy equals the database, job by job", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 24; i += 1) {
      const res = await call('POST', '/api/v1/work-orders', 'admin', { assignedTechnicianId: i % 2 ? t.users.tech!.id : t.users.tech2!.id, scheduledDate: '2026-12-03', siteAddress: `Site ${i % 5}` });
      ids.push(((await res.json()) as { id: string }).id);
    }
    const crews = ((await (await call('GET', '/v1/fsm/crews', 'admin')).json()) as { data: { crew_id: string }[] }).data;
    const start = JobPage.parse(await (await call('GET', '/v1/fsm/jobs?limit=1', 'admin')).json());
    const since0 = new Date(new Date(start.data[0]!.updated_at).getTime() - 1).toISOString();

    let writing = true;
    let changes = 0;
    let slot = 0;
    async function writer(w: number): Promise<void> {
      for (let op = 0; op < 25; op += 1) {
        const id = ids[(w * 7 + op * 5) % ids.length]!;
        const kind = op % 5;
        if (kind === 4) {
          // A crew change moves every job of the crew.
          const res = await call('PATCH', `/v1/fsm/crews/${crews[op % crews.length]!.crew_id}`, 'admin', { name: `Crew ${w}-${op}` });
          expect(res.status).toBe(200);
        } else if (kind === 3) {
          slot += 1;
          const at = Date.UTC(2025, 0, 1) + slot * 3600_000;
          const res = await call('POST', `/v1/fsm/jobs/${id}/time-entries`, 'admin', { technician_id: t.users.tech!.id, started_at: new Date(at).toISOString(), ended_at: new Date(at + 1800_000).toISOString() });
          expect([201, 409]).toContain(res.status);
        } else {
          const job = JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${id}`, 'admin')).json());
          const next = JOB_TRANSITIONS.filter((tr) => tr.from === job.status && tr.to !== 'cancelled' && tr.to !== 'complete');
          if (next.length === 0) continue;
          const res = await call('PATCH', `/v1/fsm/jobs/${id}`, 'admin', { status: next[op % next.length]!.to });
          expect([200, 409]).toContain(res.status);
        }
        changes += 1;
      }
    }
    // A slow writer: takes its place in the feed, then holds its transaction open while others wait and commit after it.
    async function slowWriter(): Promise<void> {
      for (let round = 0; round < 4; round += 1) {
        const client = await appPool.connect();
        try {
          await client.query('begin');
          await client.query('select app_enter_tenant($1)', [t.id]);
          // Every writer takes the tenant's sync clock before any job row (db/fsm/jobs.ts lockJobClock), as the API's do.
          await client.query(`insert into job_sync_clock as c (organization_id) values (app_current_organization()) on conflict (organization_id) do update set last_sequence = c.last_sequence`);
          await client.query(`update work_orders set notes = $1 where id = $2`, [`slow ${round}`, ids[round]]);
          await sleep(150);
          await client.query('commit');
        } finally {
          client.release();
        }
        await sleep(50);
      }
    }

    async function sincePoller(): Promise<Map<string, Job>> {
      const copy = new Map<string, Job>();
      let since = since0;
      for (;;) {
        const done = !writing;
        const page = JobPage.parse(await (await call('GET', `/v1/fsm/jobs?limit=7&updated_since=${encodeURIComponent(since)}`, 'admin')).json());
        for (const job of page.data) {
          copy.set(job.job_id, job);
          since = job.updated_at;
        }
        if (done && page.data.length === 0) return copy;
        await sleep(page.data.length === 0 ? 25 : 5);
      }
    }
    async function cursorPoller(): Promise<Map<string, Job>> {
      const copy = new Map<string, Job>();
      let cursor: string | null = null;
      for (;;) {
        const done = !writing;
        const query: string = cursor ? `cursor=${cursor}` : `updated_since=${encodeURIComponent(since0)}`;
        const page = JobPage.parse(await (await call('GET', `/v1/fsm/jobs?limit=5&${query}`, 'admin')).json());
        for (const job of page.data) copy.set(job.job_id, job);
        cursor = page.next_cursor ?? cursor;
        if (done && page.data.length === 0) return copy;
        await sleep(page.data.length === 0 ? 25 : 5);
      }
    }

    const pollers = Promise.all([sincePoller(), cursorPoller()]);
    await Promise.all([writer(0), writer(1), writer(2), writer(3), writer(4), writer(5), slowWriter()]);
    writing = false;
    const copies = await pollers;
    expect(changes).toBeGreaterThan(100);

    for (const copy of copies) {
      expect(copy.size).toBe(ids.length);
      for (const id of ids) {
        const actual = jobOnly(JobDetail.parse(await (await call('GET', `/v1/fsm/jobs/${id}`, 'admin')).json()));
        expect(copy.get(id)).toEqual(actual);
      }
    }
    // updated_at is distinct per job change, and strictly follows the commit order of the tenant's sequence.
    const rows = await owner.query<{ n: number; distinct: number }>(
      `select count(*)::int as n, count(distinct job_updated_at)::int as distinct from work_orders where organization_id = $1`,
      [t.id],
    );
    expect(rows.rows[0]!.distinct).toBe(rows.rows[0]!.n);
    const order = await owner.query<{ inversions: number }>(
      `select count(*)::int as inversions from work_orders a join work_orders b on a.organization_id = b.organization_id
        where a.organization_id = $1 and a.sync_sequence < b.sync_sequence and a.job_updated_at >= b.job_updated_at`,
      [t.id],
    );
    expect(order.rows[0]!.inversions).toBe(0);
  }, 120_000);
});
