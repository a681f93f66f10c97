/**
 * Calculate benchmark (a script, not a test). In one run it prints:
 *  - the pricing engine alone on the 200-line request, the decimal.js reference and the
 *    production scaled-integer engine (median of many runs after a warm-up), and their ratio;
 *  - requests per second and p50/p99 latency of POST /api/v1/quotes/calculate with 1 line and
 *    with 200 lines, beside GET /api/v1/auth/me (the smallest authenticated endpoint: token check
 *    plus one user read), and the ratios, with the CPU milliseconds each request cost the API
 *    process, the load generator, and the whole machine (every process and the kernel);
 * - PASS or FAIL against the targets, and the peak resident memory of the API process.
 *
 *   npm run bench:calculate        # BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_ENGINE_RUNS,
 *                                  # BENCH_API_CPU_PROF_DIR (profile the API: node --cpu-prof)
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal (scripts/infra/self-contained.ts),
 * and the API (api/main.ts) in a child process of its own, so its memory is its own and autocannon
 * does not share its thread. No worker runs: calculate without persist starts no workflow.
 * Each request comes from its own client address (X-Forwarded-For, which the API believes with
 * TRUST_PROXY_HOPS=1), as many clients would, so the broad rate limit of 300 per minute per
 * address does not cut the run short; its PostgreSQL counter is still paid on every request.
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { SERVICE_NODE_ARGS, stopService } from '../scripts/infra/processes';
import { projectRoot } from '../scripts/infra/paths';
import { freePort } from '../scripts/infra/free-port';
import { printPeakMemory } from '../scripts/infra/peak-memory';
import { SANDBOX_PASSWORD } from '../db/sandbox';
import { SANDBOX_RATE_CARD } from '../db/rate-cards/sandbox-rate-cards';
import { buildRateCardSnapshot } from '../domain/pricing/rate-card';
import { priceQuoteReference } from '../domain/pricing/reference-engine';
import { priceQuote } from '../domain/pricing/engine';
import type { CalculationRequest } from '../domain/pricing/request';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
// Five rounds: /auth/me's rate alone moved by a fifth from one run to the next on this machine.
const roundCount = Number(process.env.BENCH_ROUNDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const engineRuns = Number(process.env.BENCH_ENGINE_RUNS ?? 500);

/** The targets. */
const TARGETS = { engineMs: 0.5, engineSpeedUp: 10, manyLinesVsMe: 0.5, oneLineVsMe: 0.9 };

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
const calculateRequest = (lines: number): CalculationRequest => ({ laborTierCode: 'STANDARD', lineItems: Array.from({ length: lines }, (_, i) => line(i)) });
const forwardedFor = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** Median milliseconds of `price` over `engineRuns` runs, after as many unmeasured ones. */
function engineMedianMs(price: () => unknown): number {
  for (let i = 0; i < engineRuns; i++) price();
  const times: number[] = [];
  for (let i = 0; i < engineRuns; i++) {
    const started = process.hrtime.bigint();
    price();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU time (user + system) per answered request: of the API process, and of this load generator. */
  apiCpuMs: number;
  clientCpuMs: number;
  /**
   * CPU time of the whole machine (every process and the kernel) per answered request: on two
   * cores shared by the API, PostgreSQL and the load generator, this is what bounds req/s.
   */
  machineCpuMs: number;
}

/** User + system CPU milliseconds a process has used so far (/proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
/** Busy CPU milliseconds of the whole machine so far, over every core (/proc/stat, less idle and iowait). */
function machineCpuMs(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number) as number[];
  return (user! + nice! + system! + irq! + softirq! + steal!) * 10;
}
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function measure(base: string, apiPid: number, name: string, token: string, options: { method: 'GET' | 'POST'; path: string; body?: string }): Promise<Figures> {
  const [apiBefore, clientBefore, machineBefore] = [cpuMsOf(apiPid), ownCpuMs(), machineCpuMs()];
  const result = await autocannon({
    url: `${base}${options.path}`,
    method: options.method,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(options.body ? { body: options.body } : {}),
    requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': forwardedFor() } }) }],
  });
  const answered = Math.max(result.requests.total, 1);
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    apiCpuMs: (cpuMsOf(apiPid) - apiBefore) / answered,
    clientCpuMs: (ownCpuMs() - clientBefore) / answered,
    machineCpuMs: (machineCpuMs() - machineBefore) / answered,
  };
}

/** Per endpoint, the median of each figure over the rounds; non-2xx answers summed. */
function medianFigures(all: Figures[]): Figures {
  const median = (pick: (f: Figures) => number) => {
    const sorted = all.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  return {
    name: all[0]!.name,
    rps: median((f) => f.rps),
    p50: median((f) => f.p50),
    p99: median((f) => f.p99),
    non2xx: all.reduce((n, f) => n + f.non2xx, 0),
    apiCpuMs: median((f) => f.apiCpuMs),
    clientCpuMs: median((f) => f.clientCpuMs),
    machineCpuMs: median((f) => f.machineCpuMs),
  };
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

// ---- The engine alone, in this process, on the same 200-line request the API gets below.
const rateCard = buildRateCardSnapshot({ revision: 'bench', ...SANDBOX_RATE_CARD });
const manyLines = calculateRequest(200);
const referenceMs = engineMedianMs(() => priceQuoteReference({ request: manyLines, rateCard, overrideAuthorised: false }));
const fastMs = engineMedianMs(() => priceQuote({ request: manyLines, rateCard, overrideAuthorised: false }));

await withSelfContainedStack('bench_calculate', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // BENCH_API_CPU_PROF_DIR: a CPU profile of the API over the whole run, written when it stops.
  const profile = process.env.BENCH_API_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_API_CPU_PROF_DIR}`] : [];
  // Started as scripts/start.ts starts it (the same Node, tsx and the tracing preload).
  const api = spawn(process.execPath, [...profile, ...SERVICE_NODE_ARGS, 'api/main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, PORT: String(port), TRUST_PROXY_HOPS: '1', METRICS_PORT: '0', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const token = await loginWhenUp(base);
    // Warm-up so JIT compilation, pools and the rate-card cache are not in the figures.
    await measure(base, api.pid!, 'warm-up', token, { method: 'POST', path: '/api/v1/quotes/calculate', body: JSON.stringify(manyLines) });
    // Rounds of the three, interleaved, so a change in the machine's load during the run weighs
    // on all three alike; each figure is the median over the rounds.
    const rounds: Figures[][] = [];
    for (let round = 0; round < roundCount; round++) {
      rounds.push([
        await measure(base, api.pid!, 'GET /api/v1/auth/me', token, { method: 'GET', path: '/api/v1/auth/me' }),
        await measure(base, api.pid!, 'calculate, 1 line', token, { method: 'POST', path: '/api/v1/quotes/calculate', body: JSON.stringify(calculateRequest(1)) }),
        await measure(base, api.pid!, 'calculate, 200 lines', token, { method: 'POST', path: '/api/v1/quotes/calculate', body: JSON.stringify(manyLines) }),
      ]);
    }
    const [baseline, one, many] = [0, 1, 2].map((i) => medianFigures(rounds.map((r) => r[i]!))) as [Figures, Figures, Figures];

    const pad = (s: string | number, n: number) => String(s).padStart(n);
    console.log(`\nengine alone, 200 lines, median of ${engineRuns} runs after ${engineRuns} warm-up runs`);
    console.log(`  reference (decimal.js)     ${referenceMs.toFixed(3)} ms`);
    console.log(`  production (scaled ints)   ${fastMs.toFixed(3)} ms   (${(referenceMs / fastMs).toFixed(1)}x faster)`);
    console.log(`\n${connections} connections, ${roundCount} interleaved rounds of ${seconds} s per endpoint (medians), against the API at ${base} (its own process)\n`);
    console.log(
      `${'endpoint'.padEnd(24)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('rps vs me', 11)}${pad('p50 vs me', 11)}${pad('non-2xx', 9)}${pad('API CPU ms/req', 16)}${pad('client CPU ms/req', 19)}${pad('machine CPU ms/req', 20)}`,
    );
    for (const f of [baseline, one, many]) {
      console.log(
        `${f.name.padEnd(24)}${pad(f.rps.toFixed(0), 10)}${pad(f.p50, 9)}${pad(f.p99, 9)}${pad((f.rps / baseline.rps).toFixed(2), 11)}${pad((f.p50 / Math.max(baseline.p50, 1)).toFixed(2), 11)}${pad(f.non2xx, 9)}${pad(f.apiCpuMs.toFixed(2), 16)}${pad(f.clientCpuMs.toFixed(2), 19)}${pad(f.machineCpuMs.toFixed(2), 20)}`,
      );
    }
    console.log('(CPU per request is little moved by other load on the machine; req/s is.)');
    console.log('\nissue 19 targets');
    console.log(`  ${verdict(fastMs <= TARGETS.engineMs)}  engine alone, 200 lines: ${fastMs.toFixed(3)} ms (at most ${TARGETS.engineMs} ms)`);
    console.log(`  ${verdict(referenceMs / fastMs >= TARGETS.engineSpeedUp)}  engine speed-up over the reference: ${(referenceMs / fastMs).toFixed(1)}x (at least ${TARGETS.engineSpeedUp}x)`);
    console.log(`  ${verdict(many.rps / baseline.rps >= TARGETS.manyLinesVsMe)}  200-line calculate: ${((100 * many.rps) / baseline.rps).toFixed(0)} % of /auth/me's throughput (at least ${100 * TARGETS.manyLinesVsMe} %)`);
    console.log(`  ${verdict(one.rps / baseline.rps >= TARGETS.oneLineVsMe)}  1-line calculate: ${((100 * one.rps) / baseline.rps).toFixed(0)} % of /auth/me's throughput (at least ${100 * TARGETS.oneLineVsMe} %)`);
    printPeakMemory([{ role: 'API', pid: api.pid! }]);
    if ([baseline, one, many].some((f) => f.non2xx > 0)) {
      console.error('\nsome requests did not answer 2xx: the figures above are not trustworthy');
      process.exitCode = 1;
    }
  } finally {
    await stopService(api);
  }
});

/** Logs in as the sandbox's sales user once the API answers (it migrates nothing; it only connects). */
async function loginWhenUp(base: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor() },
        body: JSON.stringify({ subdomain: 'sandbox', email: 'sales@sandbox.test', password: SANDBOX_PASSWORD }),
      });
      if (res.status !== 200) throw new Error(`login answered ${res.status}`);
      return ((await res.json()) as { access_token: string }).access_token;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
