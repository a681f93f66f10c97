/**
 * Field-sync benchmark (a script, not a test): the field-sync feed (D11).
 *
 *   npm run bench:field-sync     (BENCH_JOBS, BENCH_SECONDS, BENCH_CONNECTIONS)
 *
 * - the time to page through 10,000 jobs with limit=200 (GET /v1/fsm/jobs, following next_cursor);
 * - p50/p99 latency and requests per second of GET /v1/fsm/jobs?updated_since= (the last 50
 *   changes: a dispatch board's incremental poll) under 10 concurrent pollers, beside
 *   GET /api/v1/auth/me (token check plus one user read) measured the same way in the same run.
 *
 * Self-contained like `npm test`: its own PostgreSQL (or DATABASE_URL) and the API in this
 * process. Each request carries its own client address (X-Forwarded-For, believed behind one proxy
 * hop) so the broad limit of 300 per minute per address does not cut the run short.
 */
import autocannon from 'autocannon';
import { randomInt } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { printPeakMemory } from '../scripts/infra/peak-memory';

const jobs = Number(process.env.BENCH_JOBS ?? 10_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const address = () => `198.18.${randomInt(256)}.${randomInt(1, 255)}`;

await withSelfContainedStack('bench_field_sync', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { createTenant, ownerPool } = await import('../scripts/harness/owner-db');
  const owner = ownerPool();
  const api = await startApi();
  try {
    const tenant = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    // D15: the largest plan, so the run measures the feed rather than the bucket running dry.
    await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [tenant.id]);
    const token = await api.tokenFor(tenant.users.admin!);
    // 10,000 jobs with a crew and a site each, written as the owner (the trigger gives each its feed position).
    const crew = await owner.query<{ id: string }>(`insert into crews (organization_id, name, foreman_user_id) values ($1, 'Bench crew', $2) returning id`, [tenant.id, tenant.users.tech!.id]);
    await owner.query(`insert into crew_members (organization_id, crew_id, user_id) values ($1, $2, $3)`, [tenant.id, crew.rows[0]!.id, tenant.users.tech!.id]);
    const site = await owner.query<{ id: string }>(`insert into sites (organization_id, name, region, address_key) values ($1, '1 Bench St', 'CA-ON', '1 bench st') returning id`, [tenant.id]);
    const started = Date.now();
    await owner.query(
      `insert into work_orders (organization_id, status, assigned_technician_id, scheduled_date, site_address, created_by_user_id, crew_id, site_id)
       select $1, 'PENDING', $2, date '2026-12-01' + (n % 30), '1 Bench St', $3, $4, $5 from generate_series(1, $6) n`,
      [tenant.id, tenant.users.tech!.id, tenant.users.admin!.id, crew.rows[0]!.id, site.rows[0]!.id, jobs],
    );
    console.log(`seeded ${jobs} jobs in ${Date.now() - started} ms`);

    const get = async (path: string) => {
      const res = await api.request(path, { token, headers: { 'x-forwarded-for': address() } });
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      return (await res.json()) as { data: { updated_at: string }[]; next_cursor: string | null; has_more: boolean };
    };
    const pageAll = async () => {
      const t0 = performance.now();
      let cursor: string | null = null;
      let seen = 0;
      let pages = 0;
      for (;;) {
        const page = await get(`/v1/fsm/jobs?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
        seen += page.data.length;
        pages += 1;
        cursor = page.next_cursor;
        if (!page.has_more) break;
      }
      if (seen !== jobs) throw new Error(`paged ${seen} jobs, expected ${jobs}`);
      return { ms: performance.now() - t0, pages };
    };
    await pageAll(); // warm-up
    const runs = [await pageAll(), await pageAll(), await pageAll()];
    const sorted = runs.map((r) => r.ms).sort((x, y) => x - y);

    // The incremental poll: the 50 most recent changes.
    const { rows } = await owner.query<{ at: string }>(
      `select to_char(job_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from work_orders where organization_id = $1 order by job_updated_at desc offset 50 limit 1`,
      [tenant.id],
    );
    const since = encodeURIComponent(rows[0]!.at);
    const check = await get(`/v1/fsm/jobs?updated_since=${since}`);
    if (check.data.length !== 50) throw new Error(`the incremental poll answered ${check.data.length} jobs, expected 50`);

    const measure = async (path: string) => {
      const result = await autocannon({
        url: `${api.url}${path}`,
        connections,
        duration: seconds,
        headers: { authorization: `Bearer ${token}` },
        requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': address() } }) }],
      });
      return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
    };
    await measure('/api/v1/auth/me'); // warm-up
    const me = await measure('/api/v1/auth/me');
    const poll = await measure(`/v1/fsm/jobs?updated_since=${since}`);

    const pad = (s: string | number, n: number) => String(s).padStart(n);
    console.log(`\npaging ${jobs} jobs with limit=200 (${runs[0]!.pages} pages): ${sorted.map((ms) => ms.toFixed(0)).join(', ')} ms (median ${sorted[1]!.toFixed(0)} ms)`);
    console.log(`\n${connections} concurrent pollers, ${seconds} s each\n`);
    console.log(`${'endpoint'.padEnd(44)}${pad('req/s', 9)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('non-2xx', 9)}`);
    for (const [name, f] of [['GET /api/v1/auth/me', me], ['GET /v1/fsm/jobs?updated_since= (50 jobs)', poll]] as const) {
      console.log(`${name.padEnd(44)}${pad(f.rps.toFixed(0), 9)}${pad(f.p50, 9)}${pad(f.p99, 9)}${pad(f.non2xx, 9)}`);
    }
    console.log(`${'ratio poll / me'.padEnd(44)}${pad((poll.rps / me.rps).toFixed(2), 9)}${pad((poll.p50 / Math.max(me.p50, 1)).toFixed(2), 9)}${pad((poll.p99 / Math.max(me.p99, 1)).toFixed(2), 9)}`);
    if (me.non2xx + poll.non2xx > 0) {
      console.error('\nsome requests did not answer 2xx: the figures above are not trustworthy');
      process.exitCode = 1;
    }
    printPeakMemory([{ role: 'API, with the pollers as load generator (one process)', pid: process.pid }]);
  } finally {
    await api.close();
    await owner.end();
  }
});
