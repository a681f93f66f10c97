/**
 * Audit log benchmark (a script, not a test; D22):
 *
 * 1. `GET /api/v1/audit-events` (its first page of 50) in a tenant holding 100,000 audit events,
 *    beside `GET /api/v1/auth/me` (token check and one user read) in the same run: target p50
 *    within 2x auth/me's.
 * 2. What the audit write adds to an audited request: `PATCH /api/v1/webhook-endpoints/{id}`
 *    that changes the description (one audit event written in the request's transaction) against
 *    the same PATCH sending the description it already has (the same lock and update, no change,
 *    so no audit event): target the first's p50 at most 10 % above the second's. The two run in
 *    alternating rounds so drift of a shared machine falls on both.
 *
 *   npm run bench:audit     # BENCH_REQUESTS (default 1000 per measurement), BENCH_CONNECTIONS (10)
 *
 * Self-contained like `npm test`: its own PostgreSQL (or DATABASE_URL), the API in this process.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { WEBHOOK_ENDPOINTS_PER_TENANT } from '../db/limits';

const requests = Number(process.env.BENCH_REQUESTS ?? 1000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const EVENTS = 100_000;
const ROUNDS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
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
    const anEndpoint = () => `/api/v1/webhook-endpoints/${endpointIds[randomInt(endpointIds.length)]}`;

    /**
     * `connections` clients, each sending its share of `requests` one after another, every request
     * timed on its own with performance.now(): percentiles to the hundredth of a millisecond (an
     * autocannon histogram rounds to whole milliseconds, too coarse for a 10 % comparison of ~10 ms).
     */
    async function p50(path: string, options: { method?: 'GET' | 'PATCH'; body?: () => string; path?: () => string } = {}): Promise<{ p50: number; p99: number; rps: number; failed: number }> {
      const latencies: number[] = [];
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
          latencies.push(performance.now() - at);
          if (res.status >= 300) failed++;
        }
      };
      await Promise.all(Array.from({ length: connections }, (_, i) => client(Math.floor(requests / connections) + (i < requests % connections ? 1 : 0))));
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
    const unchanged = () => JSON.stringify({ description: 'bench steady' });
    await p50(anEndpoint(), { method: 'PATCH', body: unchanged, path: anEndpoint });

    const figures = { me: [] as number[], audit: [] as number[], withWrite: [] as number[], withoutWrite: [] as number[] };
    let failures = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const me = await p50('/api/v1/auth/me');
      const audit = await p50('/api/v1/audit-events');
      // The unchanged PATCH first sets the steady description, so every later one changes nothing.
      const without = await p50(anEndpoint(), { method: 'PATCH', body: unchanged, path: anEndpoint });
      const withWrite = await p50(anEndpoint(), { method: 'PATCH', body: changing, path: anEndpoint });
      figures.me.push(me.p50);
      figures.audit.push(audit.p50);
      figures.withoutWrite.push(without.p50);
      figures.withWrite.push(withWrite.p50);
      failures += me.failed + audit.failed + without.failed + withWrite.failed;
      console.log(
        `round ${round + 1}: auth/me p50 ${me.p50} ms, audit-events p50 ${audit.p50} ms (p99 ${audit.p99}), PATCH without audit write p50 ${without.p50} ms, with p50 ${withWrite.p50} ms`,
      );
    }
    const { rows } = await owner.query<{ n: number }>('select count(*)::int as n from audit_events where organization_id = $1', [tenant.id]);
    const me = median(figures.me);
    const audit = median(figures.audit);
    const withWrite = median(figures.withWrite);
    const withoutWrite = median(figures.withoutWrite);
    const ratio = audit / Math.max(me, 0.5);
    const overhead = (withWrite - withoutWrite) / Math.max(withoutWrite, 0.5);
    console.log(`\n${connections} connections, ${requests} requests per measurement, ${ROUNDS} rounds, medians of the rounds' p50s; ${rows[0]!.n} events in the tenant at the end`);
    console.log(`GET /api/v1/audit-events (first page of 50) p50 ${audit} ms vs GET /api/v1/auth/me p50 ${me} ms: ${ratio.toFixed(2)}x (target <= 2x) ${ratio <= 2 ? 'MET' : 'MISSED'}`);
    console.log(`audited PATCH p50 ${withWrite} ms with the audit write vs ${withoutWrite} ms without: +${(overhead * 100).toFixed(1)} % (target <= 10 %) ${overhead <= 0.1 ? 'MET' : 'MISSED'}`);
    if (failures > 0) console.log(`${failures} non-2xx answers or errors (the figures are suspect)`);
  } finally {
    await api.close();
    await owner.end();
  }
});
