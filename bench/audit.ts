/**
 * Audit log benchmark (a script, not a test; D22):
 *
 * 1. `GET /api/v1/audit-events` (its first page of 50) in a tenant holding 100,000 audit events,
 *    beside `GET /api/v1/auth/me` (token check and one user read) in the same run: target p50
 *    within 2x auth/me's.
 * 2. What the audit write adds to an audited request: `PATCH /api/v1/webhook-endpoints/{id}`
 *    changing the description, with its audit event written in the request's transaction, against
 *    the very same request with that one insert withheld: the bench answers `insert into
 *    audit_events` itself, in this process, before it reaches the driver (SqlEntityManager's
 *    `execute`, which db/audit/audit-events.ts calls). Everything else of the request is the same
 *    (its lock, its update, its commit, the entry built and checked for secrets), so the
 *    difference is the write: its round trip, the row, its three indexes and its WAL. Target: the
 *    p50 with the write at most 10 % above the p50 without, for one client (the request's own
 *    latency). The same comparison with BENCH_CONNECTIONS clients, the 2-core server saturated,
 *    is printed beside it: there a p50 is mostly queueing, and shows the write's share of the
 *    server's capacity (one statement more of about eight). The two sides run in short
 *    alternating blocks (never mixed in one block, where one's load would fall on the other) so
 *    drift of a shared machine falls on both alike.
 *
 * The script exits 1 when a target is missed.
 *
 *   npm run bench:audit     # BENCH_REQUESTS (default 1000 per measurement), BENCH_CONNECTIONS (10)
 *
 * Self-contained like `npm test`: its own PostgreSQL (or DATABASE_URL), the API in this process.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { SqlEntityManager } from '@mikro-orm/postgresql';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { WEBHOOK_ENDPOINTS_PER_TENANT } from '../db/limits';

const requests = Number(process.env.BENCH_REQUESTS ?? 1000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const EVENTS = 100_000;
const ROUNDS = 5;
/** Alternating blocks of the audit-write comparison, each side; each block `connections` x BLOCK_PER_CONNECTION requests. */
const BLOCKS = Number(process.env.BENCH_AUDIT_BLOCKS ?? 20);
const BLOCK_PER_CONNECTION = 10;

/**
 * The instrument of the comparison: while `withholding`, the audit insert is answered here and
 * never reaches the driver or the database. Only this statement; every other passes through.
 */
let withholding = false;
let withheld = 0;
const execute = SqlEntityManager.prototype.execute;
SqlEntityManager.prototype.execute = function (this: SqlEntityManager, ...args: Parameters<typeof execute>) {
  if (withholding && typeof args[0] === 'string' && args[0].startsWith('insert into audit_events')) {
    withheld++;
    return Promise.resolve([] as never);
  }
  return execute.apply(this, args);
} as typeof execute;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], q: number) => Math.round([...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]! * 100) / 100;
const forwardedFor = () => `198.${randomInt(18, 20)}.${randomInt(256)}.${randomInt(1, 255)}`;

await withSelfContainedStack('bench_audit', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { createTenant, ownerPool } = await import('../scripts/harness/owner-db');
  const owner = ownerPool();
  const api = await startApi({ env: { CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'), OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  try {
    const tenant = await createTenant(owner, { admin: 'ADMIN' });
    const token = await api.tokenFor(tenant.users.admin!);
    const started = Date.now();
    // 100,000 events over the last 400 days, of every entity type, as the log would hold them.
    await owner.query(
      `insert into audit_events (organization_id, occurred_at, actor_type, actor_id, actor_email, action, entity_type, entity_id, changes, request_id)
       select $1, clock_timestamp() - make_interval(secs => i * 345.6), 'user', $2, $3,
              (array['user.updated','organization.updated','pricebook.published','webhook_endpoint.updated','integration.connected'])[1 + i % 5],
              (array['user','organization','pricebook','webhook_endpoint','integration'])[1 + i % 5],
              md5(i::text), jsonb_build_array(jsonb_build_object('field', 'description', 'before', 'v' || i, 'after', 'v' || (i + 1))), gen_random_uuid()::text
         from generate_series(1, $4::int) as i`,
      [tenant.id, tenant.users.admin!.id, tenant.users.admin!.email, EVENTS],
    );
    await owner.query('analyze audit_events');
    console.log(`${EVENTS} audit events written in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    // One endpoint per connection, so the PATCHes wait on no one's row lock but their own.
    const endpointIds: string[] = [];
    for (let i = 0; i < Math.min(connections, WEBHOOK_ENDPOINTS_PER_TENANT); i++) {
      const created = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token, json: { url: `http://127.0.0.1:9/bench-${i}`, events: ['quote.approved'] } });
      if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${await created.text()}`);
      endpointIds.push(((await created.json()) as { id: string }).id);
    }
    const countEvents = async () => (await owner.query<{ n: number }>('select count(*)::int as n from audit_events where organization_id = $1', [tenant.id])).rows[0]!.n;
    const anEndpoint = () => `/api/v1/webhook-endpoints/${endpointIds[randomInt(endpointIds.length)]}`;

    /**
     * `connections` clients, each sending its share of `requests` one after another, every request
     * timed on its own with performance.now(): percentiles to the hundredth of a millisecond (an
     * autocannon histogram rounds to whole milliseconds, too coarse for a 10 % comparison of ~10 ms).
     */
    async function p50(path: string, options: { method?: 'GET' | 'PATCH'; body?: () => string; path?: () => string; requests?: number; keep?: number[]; clients?: number } = {}): Promise<{ p50: number; p99: number; rps: number; failed: number }> {
      const latencies: number[] = [];
      const total = options.requests ?? requests;
      let failed = 0;
      const started = performance.now();
      const client = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const at = performance.now();
          const res = await fetch(`${api.url}${options.path ? options.path() : path}`, {
            method: options.method ?? 'GET',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': forwardedFor() },
            ...(options.body ? { body: options.body() } : {}),
          });
          await res.arrayBuffer();
          const took = performance.now() - at;
          latencies.push(took);
          options.keep?.push(took);
          if (res.status >= 300) failed++;
        }
      };
      const clients = options.clients ?? connections;
      await Promise.all(Array.from({ length: clients }, (_, i) => client(Math.floor(total / clients) + (i < total % clients ? 1 : 0))));
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 100) / 100;
      return { p50: at(0.5), p99: at(0.99), rps: latencies.length / seconds, failed };
    }

    // Warm-up: JIT, pools, the index pages.
    await p50('/api/v1/auth/me');
    await p50('/api/v1/audit-events');
    let counter = 0;
    const changing = () => JSON.stringify({ description: `bench ${counter++}` });
    await p50(anEndpoint(), { method: 'PATCH', body: changing, path: anEndpoint });

    const figures = { me: [] as number[], audit: [] as number[] };
    let failures = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const me = await p50('/api/v1/auth/me');
      const audit = await p50('/api/v1/audit-events');
      figures.me.push(me.p50);
      figures.audit.push(audit.p50);
      failures += me.failed + audit.failed;
      console.log(`round ${round + 1}: auth/me p50 ${me.p50} ms, audit-events p50 ${audit.p50} ms (p99 ${audit.p99})`);
    }

    /**
     * The same changing PATCH with and without its audit write, in alternating blocks of
     * `clients` x BLOCK_PER_CONNECTION requests. One client: the request's own latency, what a
     * caller waits for (the target). `connections` clients on this 2-core machine: the server
     * saturated, where a p50 is mostly the queue and measures what the write costs in capacity.
     */
    async function compareWrite(clients: number, blocks: number) {
      const eventsBefore = await countEvents();
      const withheldBefore = withheld;
      const withWrite: number[] = [];
      const withoutWrite: number[] = [];
      const blockRequests = clients * BLOCK_PER_CONNECTION;
      for (let block = 0; block < blocks; block++) {
        for (const side of block % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const)) {
          withholding = side === 'without';
          const measured = await p50(anEndpoint(), { method: 'PATCH', body: changing, path: anEndpoint, requests: blockRequests, clients, keep: side === 'with' ? withWrite : withoutWrite });
          failures += measured.failed;
        }
      }
      withholding = false;
      const written = (await countEvents()) - eventsBefore;
      const withP50 = percentile(withWrite, 0.5);
      const withoutP50 = percentile(withoutWrite, 0.5);
      const overhead = (withP50 - withoutP50) / Math.max(withoutP50, 0.5);
      // The instrument worked: every PATCH with the write wrote its event, every other was withheld.
      const counted = written === blocks * blockRequests && withheld - withheldBefore === blocks * blockRequests;
      const line = `${clients} client${clients === 1 ? '' : 's'}, ${blocks} alternating blocks of ${blockRequests}: p50 ${withP50} ms with the audit write vs ${withoutP50} ms without (p99 ${percentile(withWrite, 0.99)} vs ${percentile(withoutWrite, 0.99)}; ${withWrite.length} each; ${written} events written, ${withheld - withheldBefore} withheld): ${overhead >= 0 ? '+' : ''}${(overhead * 100).toFixed(1)} %`;
      return { overhead, counted, line };
    }
    const alone = await compareWrite(1, BLOCKS * 3);
    const saturated = await compareWrite(connections, BLOCKS);

    const events = await countEvents();
    const me = median(figures.me);
    const audit = median(figures.audit);
    const ratio = audit / Math.max(me, 0.5);
    const listMet = ratio <= 2;
    const writeMet = alone.overhead <= 0.1 && alone.counted && saturated.counted;
    console.log(`\n${connections} connections, ${requests} requests per list measurement, ${ROUNDS} rounds (medians of the rounds' p50s); ${events} events in the tenant at the end`);
    console.log(`GET /api/v1/audit-events (first page of 50) p50 ${audit} ms vs GET /api/v1/auth/me p50 ${me} ms: ${ratio.toFixed(2)}x (target <= 2x) ${listMet ? 'MET' : 'MISSED'}`);
    console.log(`audited PATCH, ${alone.line} (target <= 10 %) ${writeMet ? 'MET' : 'MISSED'}`);
    console.log(`audited PATCH, server saturated, ${saturated.line} (the write's share of capacity, not the target)`);
    if (failures > 0) console.log(`${failures} non-2xx answers or errors (the figures are suspect)`);
    if (!listMet || !writeMet || failures > 0) process.exitCode = 1;
  } finally {
    await api.close();
    await owner.end();
  }
});
