/**
 * GraphQL benchmark (a script, not a test): requests per second and p50/p99 latency of one
 * GraphQL query for 50 jobs with their nested lists (crew and foreman, site, change orders, time
 * entries, material draws), beside the REST calls that fetch the same (GET /v1/fsm/jobs, then each
 * job's detail: 51 requests) and GET /api/v1/auth/me (token check plus one user read), in one run.
 *
 *   npm run bench:graphql   (BENCH_SECONDS, BENCH_CONNECTIONS)
 *
 * Self-contained like `npm test`: its own PostgreSQL (or DATABASE_URL), the API in this process.
 * Both GraphQL and /v1/fsm draw from the tenant's D15 bucket on every request (its statements
 * are in the figures); the bench keeps that bucket full, as its owner, so the figures show the
 * endpoints rather than the plan. The last lines say what each plan sustains of this query.
 * Each request comes from its own client address (X-Forwarded-For in the benchmarking range), so
 * the broad limit of 300 per minute per address does not cut the run short.
 */
import autocannon from 'autocannon';
import { randomInt } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { printPeakMemory } from '../scripts/infra/peak-memory';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ORDERS = 50;
const client = () => `198.${randomInt(18, 20)}.${randomInt(256)}.${randomInt(1, 255)}`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const QUERY = `{ jobs(first: ${ORDERS}) { nodes { id status quoteRef scheduledStart hoursLogged hoursEstimated percentComplete site { name region }
  crew { name headcount foreman { name } } changeOrders { sequence status reason labourHours sellCents } timeEntries { startedAt endedAt hours technician { name } }
  materialDraws { sku quantity unit } } } }`;

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  failures: number;
}

await withSelfContainedStack('bench_graphql', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { createTenant, giveRateCard, ownerPool } = await import('../scripts/harness/owner-db');
  const { twoWindows } = await import('../scripts/harness/quote-requests');
  const { SANDBOX_RATE_CARD } = await import('../db/rate-cards/sandbox-rate-cards');
  const { QuoteService } = await import('../api/quotes/quote-service');
  const { WorkOrderService } = await import('../api/work-orders/work-order-service');
  const { JobService } = await import('../api/fsm/job-service');
  const { ChangeOrderService } = await import('../api/fsm/change-order-service');
  const { ChangeOrderBody } = await import('../api/fsm/schemas');
  const { RateCardRepository } = await import('../db/rate-cards/repository');

  const owner = ownerPool();
  const api = await startApi();
  let refill: NodeJS.Timeout | undefined;
  try {
    const tenant = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
    const admin = tenant.users.admin!;
    const caller = { userId: admin.id, organizationId: admin.organizationId, role: admin.role, email: admin.email };
    const quotes = new QuoteService(api.orm.em, new RateCardRepository());
    const workOrders = new WorkOrderService(api.orm.em);
    const jobs = new JobService(api.orm.em);
    const changeOrders = new ChangeOrderService(api.orm.em, new RateCardRepository());
    for (let i = 0; i < ORDERS; i++) {
      const quote = await quotes.calculate(caller, { ...twoWindows(), persist: true, customer: { name: `Customer ${i}`, email: `c${i}@bench.test` } } as never);
      const job = await workOrders.create(caller, { quoteId: quote.quote_id!, assignedTechnicianId: tenant.users.tech!.id, scheduledDate: '2026-12-03', siteAddress: `${i} Elm St` });
      for (let n = 0; n < 2; n++) {
        await changeOrders.raise(caller, job.id, ChangeOrderBody.parse({ reason: `Extra valance ${n} on window ${i}`, labour_hours: 0.5 }));
        const start = new Date(Date.UTC(2026, 8, 1, 8) + (i * 2 + n) * 24 * 3600_000);
        await jobs.addTimeEntry(caller, job.id, { started_at: start.toISOString(), ended_at: new Date(start.getTime() + 3 * 3600_000).toISOString(), technician_id: tenant.users.tech!.id });
        await jobs.addMaterialDraw(caller, job.id, { sku: 'FAB-SCREEN-3', quantity: '1.25' });
      }
    }
    // Keep the tenant's bucket full (as its owner): the figures are the endpoints', not the plan's.
    await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [tenant.id]);
    refill = setInterval(() => void owner.query(`update plan_buckets set tokens = 2500, updated_at = clock_timestamp() where organization_id = $1`, [tenant.id]).catch(() => undefined), 25);
    const token = await api.tokenFor(admin);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const measure = async (name: string, options: { method: 'GET' | 'POST'; path: string; body?: string }): Promise<Figures> => {
      const result = await autocannon({
        url: `${api.url}${options.path}`,
        method: options.method,
        connections,
        duration: seconds,
        headers,
        ...(options.body ? { body: options.body } : {}),
        requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': client() } }) }],
      });
      return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, failures: result.non2xx + result.errors };
    };

    /** The REST way to the same data: the feed page, then each job's detail, as a client would (connections in parallel). */
    const restEquivalent = async (): Promise<Figures> => {
      const durations: number[] = [];
      let failures = 0;
      const until = performance.now() + seconds * 1000;
      const get = async (path: string) => {
        const res = await fetch(`${api.url}${path}`, { headers: { ...headers, 'x-forwarded-for': client() } });
        if (res.status !== 200) failures++;
        return res.json() as Promise<unknown>;
      };
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < until) {
            const started = performance.now();
            const list = (await get(`/v1/fsm/jobs?limit=${ORDERS}`)) as { data: { job_id: string }[] };
            for (const job of list.data) await get(`/v1/fsm/jobs/${job.job_id}`);
            durations.push(performance.now() - started);
          }
        }),
      );
      durations.sort((a, b) => a - b);
      return { name: `REST: jobs + ${ORDERS} details (${ORDERS + 1} calls)`, rps: durations.length / seconds, p50: Math.round(percentile(durations, 50)), p99: Math.round(percentile(durations, 99)), failures };
    };

    const graphqlBody = JSON.stringify({ query: QUERY });
    const check = (await (await fetch(`${api.url}/v1/graphql`, { method: 'POST', headers: { ...headers, 'x-forwarded-for': client() }, body: graphqlBody })).json()) as {
      data?: { jobs: { nodes: unknown[] } };
      errors?: unknown[];
      extensions: { cost: { requestedQueryCost: number; actualQueryCost: number } };
    };
    if (check.errors || check.data?.jobs.nodes.length !== ORDERS) throw new Error(`the GraphQL query did not answer ${ORDERS} jobs: ${JSON.stringify(check).slice(0, 500)}`);

    // A short warm-up so JIT compilation and pools are not in the figures.
    await measure('warm-up', { method: 'POST', path: '/v1/graphql', body: graphqlBody });
    const me = await measure('GET /api/v1/auth/me', { method: 'GET', path: '/api/v1/auth/me' });
    const graphql = await measure(`GraphQL: ${ORDERS} jobs, nested lists`, { method: 'POST', path: '/v1/graphql', body: graphqlBody });
    const list = await measure(`REST: GET /v1/fsm/jobs?limit=${ORDERS}`, { method: 'GET', path: `/v1/fsm/jobs?limit=${ORDERS}` });
    const rest = await restEquivalent();

    const pad = (s: string | number, n: number) => String(s).padStart(n);
    console.log(`\n${connections} connections, ${seconds} s each, API in this process on ${api.url}\n`);
    console.log(`${'what'.padEnd(44)}${pad('req/s', 9)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('p50 vs me', 11)}${pad('failed', 8)}`);
    for (const f of [me, graphql, list, rest]) {
      console.log(`${f.name.padEnd(44)}${pad(f.rps.toFixed(1), 9)}${pad(f.p50, 9)}${pad(f.p99, 9)}${pad((f.p50 / Math.max(me.p50, 1)).toFixed(1), 11)}${pad(f.failures, 8)}`);
    }
    const { requestedQueryCost, actualQueryCost } = check.extensions.cost;
    console.log(`\nThe GraphQL query costs ${requestedQueryCost} points requested, ${actualQueryCost} actual (docs/graphql.md).`);
    const { PLAN_LIMITS } = await import('../db/plans/plan-limits');
    const { POINTS_PER_REQUEST } = await import('../api/graphql/throttle');
    for (const [plan, limit] of Object.entries(PLAN_LIMITS)) {
      const restore = (limit.requestsPerMinute / 60) * POINTS_PER_REQUEST;
      console.log(`  ${plan.padEnd(11)} sustains ${(restore / actualQueryCost).toFixed(1)} such queries/s (${restore.toFixed(0)} points/s), ${Math.floor((limit.burst * POINTS_PER_REQUEST) / requestedQueryCost)} at once from a full bucket`);
    }
    if ([me, graphql, list, rest].some((f) => f.failures > 0)) {
      console.error('\nsome requests failed: the figures above are not trustworthy');
      process.exitCode = 1;
    }
    printPeakMemory([{ role: 'API, with the load generator (one process)', pid: process.pid }]);
  } finally {
    clearInterval(refill);
    await api.close();
    await owner.end();
  }
});
