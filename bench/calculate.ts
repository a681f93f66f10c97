/**
 * Issue 3 benchmark (a script, not a test): drives a running API with autocannon and prints
 * requests per second and p50/p99 latency of POST /api/v1/quotes/calculate with 1 line and with
 * 200 lines, beside GET /api/v1/auth/me (the smallest authenticated endpoint: token check plus
 * one user read) measured in the same run, and the ratios.
 *
 *   TRUST_PROXY_HOPS=1 npm start   # in one terminal (as if behind docker-compose's proxy)
 *   npm run bench:calculate        # in another (BENCH_API_URL, BENCH_SECONDS, BENCH_CONNECTIONS)
 *
 * Each request comes from its own client address (X-Forwarded-For, which the API believes only
 * with TRUST_PROXY_HOPS=1), as many clients would, so the broad rate limit of 300 per minute per
 * address does not cut the run short; its PostgreSQL counter is still paid on every request.
 */
import autocannon from 'autocannon';
import { randomInt } from 'node:crypto';
import { SANDBOX_PASSWORD } from '../db/sandbox';

const base = process.env.BENCH_API_URL ?? 'http://127.0.0.1:3000';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

const line = (i: number) => ({
  reference: `Window ${i + 1}`,
  widthInches: 24 + (i % 60) * 0.875,
  dropInches: 36 + (i % 40) * 1.5,
  quantity: 1 + (i % 4),
  fabricSkuCode: i % 2 ? 'FAB-SCREEN-3' : 'FAB-BLACKOUT',
  hardwareSkuCode: i % 5 ? 'HW-ROLLER-STD' : 'HW-ROLLER-HD',
  ...(i % 3 === 0 ? { motorSkuCode: 'MTR-BATTERY' } : {}),
  trimSkuCode: 'TRIM-CASSETTE',
});
const calculateBody = (lines: number) => JSON.stringify({ laborTierCode: 'STANDARD', lineItems: Array.from({ length: lines }, (_, i) => line(i)) });

async function login(): Promise<string> {
  const res = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}` },
    body: JSON.stringify({ subdomain: 'sandbox', email: 'sales@sandbox.test', password: SANDBOX_PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: is the API running at ${base} (npm start)?`);
  return ((await res.json()) as { access_token: string }).access_token;
}

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function measure(name: string, token: string, options: { method: 'GET' | 'POST'; path: string; body?: string }): Promise<Figures> {
  const result = await autocannon({
    url: `${base}${options.path}`,
    method: options.method,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(options.body ? { body: options.body } : {}),
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, 'x-forwarded-for': `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}` },
        }),
      },
    ],
  });
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
}

const token = await login();
// A short warm-up so JIT compilation and the rate-card cache are not in the figures.
await measure('warm-up', token, { method: 'POST', path: '/api/v1/quotes/calculate', body: calculateBody(200) });
const baseline = await measure('GET /api/v1/auth/me', token, { method: 'GET', path: '/api/v1/auth/me' });
const one = await measure('calculate, 1 line', token, { method: 'POST', path: '/api/v1/quotes/calculate', body: calculateBody(1) });
const many = await measure('calculate, 200 lines', token, { method: 'POST', path: '/api/v1/quotes/calculate', body: calculateBody(200) });

const pad = (s: string | number, n: number) => String(s).padStart(n);
console.log(`\n${connections} connections, ${seconds} s each, against ${base}\n`);
console.log(`${'endpoint'.padEnd(24)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('rps vs me', 11)}${pad('p50 vs me', 11)}${pad('non-2xx', 9)}`);
for (const f of [baseline, one, many]) {
  console.log(
    `${f.name.padEnd(24)}${pad(f.rps.toFixed(0), 10)}${pad(f.p50, 9)}${pad(f.p99, 9)}${pad((f.rps / baseline.rps).toFixed(2), 11)}${pad((f.p50 / Math.max(baseline.p50, 1)).toFixed(2), 11)}${pad(f.non2xx, 9)}`,
  );
}
if ([baseline, one, many].some((f) => f.non2xx > 0)) {
  console.error('\nsome requests did not answer 2xx: the figures above are not trustworthy');
  process.exit(1);
}
