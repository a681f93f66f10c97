/**
 * `/v1/quotes` benchmark (a script, not a test): requests per second and p50/p99 latency of
 * POST /v1/quotes with 10 lines, once with a fresh Idempotency-Key per request (each one prices,
 * writes a quote, its revision, its quote.created and its key) and once replaying one key (a key
 * lookup and the stored answer), beside GET /api/v1/auth/me (token check and one user read) in the
 * same run, and the p50 of X-Engine-Latency-Ms (the pricing engine's own time).
 *
 *   npm run bench:quotes-v1     # BENCH_REQUESTS (default 1500 per run), BENCH_CONNECTIONS (10)
 *
 * Self-contained like `npm test`: its own PostgreSQL (or DATABASE_URL), the API in this process.
 * The benchmark's workspace is on the enterprise plan and its bucket is full at the start of each
 * run: a fresh-key run draws one token a request (D15), so BENCH_REQUESTS stays under the depth of
 * 2500; replays draw none. /api/ requests come from varied client addresses (X-Forwarded-For, as
 * the harness trusts one proxy), so the 300-a-minute per-address limit does not cut them short.
 */
import autocannon from 'autocannon';
import { randomInt, randomUUID } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { printPeakMemory } from '../scripts/infra/peak-memory';

const requests = Number(process.env.BENCH_REQUESTS ?? 1500);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

await withSelfContainedStack('bench_quotes_v1', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { createTenant, giveRateCard, ownerPool } = await import('../scripts/harness/owner-db');
  const { SANDBOX_RATE_CARD } = await import('../db/rate-cards/sandbox-rate-cards');
  const { SANDBOX_PRODUCTS } = await import('../db/catalogue/sandbox-products');
  const { PLAN_LIMITS } = await import('../db/plans/plan-limits');

  const owner = ownerPool();
  const api = await startApi();
  try {
    const tenant = await createTenant(owner, { sales: 'SALES' });
    await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
    await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [tenant.id]);
    for (const p of SANDBOX_PRODUCTS) {
      await owner.query('insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)', [
        tenant.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null,
      ]);
    }
    const { rows } = await owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Bench Customer') returning id`, [tenant.id]);
    const token = await api.tokenFor(tenant.users.sales!);
    const body = JSON.stringify({
      customerId: rows[0]!.id,
      currency: 'CAD',
      taxRegion: 'CA-QC',
      pricebookId: tenant.id,
      lines: Array.from({ length: 10 }, (_, i) => ({
        sku: SANDBOX_PRODUCTS[i % SANDBOX_PRODUCTS.length]!.sku,
        quantity: 1 + (i % 3),
        configuration: { finishedWidthIn: 24 + i * 4.5, finishedHeightIn: 36 + i * 3, controlSide: i % 2 ? 'left' : 'right', motorised: i % 4 === 0, ...(i % 4 === 0 ? { motorSku: 'MTR-BATTERY' } : {}) },
      })),
    });
    const fillBucket = () => owner.query(`update plan_buckets set tokens = $2, updated_at = clock_timestamp() where organization_id = $1`, [tenant.id, PLAN_LIMITS.enterprise.burst]);
    const engineMs: number[] = [];

    async function measure(name: string, options: { method: 'GET' | 'POST'; path: string; body?: string; key?: 'fresh' | string; engine?: boolean }): Promise<Figures> {
      await fillBucket();
      const result = await autocannon({
        url: `${api.url}${options.path}`,
        method: options.method,
        connections,
        amount: requests,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(options.body ? { body: options.body } : {}),
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              headers: {
                ...request.headers,
                'x-forwarded-for': `198.${randomInt(18, 20)}.${randomInt(256)}.${randomInt(1, 255)}`,
                ...(options.key ? { 'idempotency-key': options.key === 'fresh' ? randomUUID() : options.key } : {}),
              },
            }),
            onResponse: (_status, _body, _context, headers) => {
              // Raw header names, as the server spelled them.
              const entry = Object.entries((headers ?? {}) as Record<string, unknown>).find(([header]) => header.toLowerCase() === 'x-engine-latency-ms');
              const value = entry?.[1];
              if (options.engine && typeof value === 'string') engineMs.push(Number(value));
            },
          },
        ],
      });
      return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
    }

    // Warm-up: JIT, the rate-card cache, connection pools.
    await measure('warm-up', { method: 'POST', path: '/v1/quotes', body, key: 'fresh' });
    engineMs.length = 0;
    const replayKey = `bench-replay-${randomUUID()}`;
    const first = await api.request('/v1/quotes', { method: 'POST', token, body, headers: { 'content-type': 'application/json', 'idempotency-key': replayKey } });
    if (first.status !== 201) throw new Error(`POST /v1/quotes answered ${first.status}: ${await first.text()}`);

    const me = await measure('GET /api/v1/auth/me', { method: 'GET', path: '/api/v1/auth/me' });
    const fresh = await measure('POST /v1/quotes, 10 lines, fresh key', { method: 'POST', path: '/v1/quotes', body, key: 'fresh', engine: true });
    const replayed = await measure('POST /v1/quotes, 10 lines, replayed key', { method: 'POST', path: '/v1/quotes', body, key: replayKey });

    engineMs.sort((a, b) => a - b);
    const pad = (s: string | number, n: number) => String(s).padStart(n);
    console.log(`\n${connections} connections, ${requests} requests each, against ${api.url}\n`);
    console.log(`${'what'.padEnd(42)} ${pad('req/s', 8)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} ${pad('non-2xx', 8)}`);
    for (const f of [me, fresh, replayed]) console.log(`${f.name.padEnd(42)} ${pad(f.rps.toFixed(0), 8)} ${pad(f.p50, 7)} ${pad(f.p99, 7)} ${pad(f.non2xx, 8)}`);
    console.log(`\nX-Engine-Latency-Ms (fresh keys, ${engineMs.length} answers): p50 ${engineMs.length ? percentile(engineMs, 50).toFixed(3) : 'n/a'} ms, p99 ${engineMs.length ? percentile(engineMs, 99).toFixed(3) : 'n/a'} ms`);
    console.log(`fresh-key p50 / auth/me p50: ${(fresh.p50 / me.p50).toFixed(1)}x; replayed p50 / auth/me p50: ${(replayed.p50 / me.p50).toFixed(1)}x`);
    printPeakMemory([{ role: 'API, with the load generator (one process)', pid: process.pid }]);
  } finally {
    await api.close();
    await owner.end();
  }
});
