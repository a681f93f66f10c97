/**
 * Issue 16 benchmark (a script, not a test): requests per second and p50/p99 latency of one
 * GraphQL query for 50 work orders with their nested lists (technician, quote, customer, lines),
 * beside the REST calls that fetch the same (the list, then each quote: 51 requests) and
 * GET /api/v1/auth/me (token check plus one user read), in one run.
 *
 *   npm run bench:graphql   (BENCH_SECONDS, BENCH_CONNECTIONS)
 *
 * Self-contained like `npm test`: its own PostgreSQL (or DATABASE_URL), the API in this process.
 * The plan bucket is replaced by one that never runs dry, so the figures show the endpoint rather
 * than the plan; the last lines say how many such queries each plan sustains (restore rate over
 * the query's actual cost). Each request comes from its own client address (X-Forwarded-For in
 * the benchmarking range), so the broad limit of 300 per minute per address does not cut the run
 * short; its PostgreSQL counter is still paid on every request.
 */
import autocannon from 'autocannon';
import { randomInt } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import type { PointsBucket, ThrottleStatus } from '../api/graphql/throttle';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ORDERS = 50;
const client = () => `198.${randomInt(18, 20)}.${randomInt(256)}.${randomInt(1, 255)}`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const QUERY = `{ workOrders(first: ${ORDERS}) { nodes { id status scheduledDate siteAddress assignedTechnician { name }
  quote { number status totalAmountCents customer { name email } lines { position widthInches dropInches priceCents } } } } }`;

/** Never dry: the endpoint's own cost, not the plan's limit, is what this measures. */
class BenchBucket implements PointsBucket {
  private readonly state: ThrottleStatus = { maximumAvailable: Number.MAX_SAFE_INTEGER, currentlyAvailable: Number.MAX_SAFE_INTEGER, restoreRate: 0 };
  async status() {
    return this.state;
  }
  async take() {
    return { taken: true, status: this.state, waitSeconds: 0 };
  }
  async refund() {
    return this.state;
  }
}

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
  const { RateCardRepository } = await import('../db/rate-cards/repository');

  const owner = ownerPool();
  const api = await startApi({ graphqlBucket: new BenchBucket() });
  try {
    const tenant = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
    const admin = tenant.users.admin!;
    const caller = { userId: admin.id, organizationId: admin.organizationId, role: admin.role, email: admin.email };
    const quotes = new QuoteService(api.orm.em, new RateCardRepository());
    const workOrders = new WorkOrderService(api.orm.em);
    for (let i = 0; i < ORDERS; i++) {
      const quote = await quotes.calculate(caller, { ...twoWindows(), persist: true, customer: { name: `Customer ${i}`, email: `c${i}@bench.test` } } as never);
      await workOrders.create(caller, { quoteId: quote.quote_id!, assignedTechnicianId: tenant.users.tech!.id, scheduledDate: '2026-12-03', siteAddress: `${i} Elm St` });
    }
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

    /** The REST way to the same data: the list, then each quote, as a client would (connections in parallel). */
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
            const list = (await get(`/api/v1/work-orders?limit=${ORDERS}`)) as { data: { quote_id: string }[] };
            for (const order of list.data) await get(`/api/v1/quotes/${order.quote_id}`);
            durations.push(performance.now() - started);
          }
        }),
      );
      durations.sort((a, b) => a - b);
      return { name: `REST: list + ${ORDERS} quotes (${ORDERS + 1} calls)`, rps: durations.length / seconds, p50: Math.round(percentile(durations, 50)), p99: Math.round(percentile(durations, 99)), failures };
    };

    const graphqlBody = JSON.stringify({ query: QUERY });
    const check = (await (await fetch(`${api.url}/v1/graphql`, { method: 'POST', headers: { ...headers, 'x-forwarded-for': client() }, body: graphqlBody })).json()) as {
      data?: { workOrders: { nodes: unknown[] } };
      errors?: unknown[];
      extensions: { cost: { requestedQueryCost: number; actualQueryCost: number } };
    };
    if (check.errors || check.data?.workOrders.nodes.length !== ORDERS) throw new Error(`the GraphQL query did not answer ${ORDERS} work orders: ${JSON.stringify(check).slice(0, 500)}`);

    // A short warm-up so JIT compilation and pools are not in the figures.
    await measure('warm-up', { method: 'POST', path: '/v1/graphql', body: graphqlBody });
    const me = await measure('GET /api/v1/auth/me', { method: 'GET', path: '/api/v1/auth/me' });
    const graphql = await measure(`GraphQL: ${ORDERS} work orders, nested`, { method: 'POST', path: '/v1/graphql', body: graphqlBody });
    const list = await measure(`REST: GET work-orders?limit=${ORDERS}`, { method: 'GET', path: `/api/v1/work-orders?limit=${ORDERS}` });
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
  } finally {
    await api.close();
    await owner.end();
  }
});
