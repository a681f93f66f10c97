/**
 * `dispatch.updated` from the committing request to a loopback receiver (D23; a script, not a
 * test): 50 crews' routes resequenced at once by 50 concurrent `PUT /v1/fsm/routes/{date}/{crewId}`,
 * each route's event delivered to an `events` endpoint on 127.0.0.1 through the delivery
 * workflows on the real Temporal and PostgreSQL. Prints the p50, p95 and slowest from each
 * request's start to the receipt of its route's new revision; target p95 within 5 seconds. Also
 * times the ETA recomputation of a 12-stop route (pure code, `progressedRoute` from its first stop
 * run long), target p95 within 5 ms. Exits 1 when a target is missed.
 *
 *   npm run bench:dispatch            (BENCH_DISPATCH_ROUNDS, default 3 rounds of 50)
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal development server (or
 * DATABASE_URL / TEMPORAL_ADDRESS), the API and a worker in this process.
 */
import { randomBytes } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';

const ROUNDS = Number(process.env.BENCH_DISPATCH_ROUNDS ?? 3);
const CREWS = 50;
const TARGET_MS = 5000;
const DATE = '2026-12-03';
const ETA_TARGET_MS = 5;
const ETA_RUNS = Number(process.env.BENCH_DISPATCH_ETA_RUNS ?? 2000);

/** The ETA recomputation of one 12-stop route (D23), timed ETA_RUNS times after a warm-up: p50 and p95 in ms. */
async function etaRecomputation(): Promise<{ p50: number; p95: number }> {
  const { handRoute, progressedRoute } = await import('../domain/routing/plan');
  const { greatCircleMinutes } = await import('../domain/routing/travel/great-circle');
  const points = [{ lat: 43.6532, lon: -79.3832 }, ...Array.from({ length: 12 }, (_, i) => ({ lat: 43.6 + (i * 7 % 13) / 100, lon: -79.5 + (i * 5 % 11) / 100 }))];
  const travel = greatCircleMinutes(points, 1.3, 40);
  const day = {
    date: DATE,
    depot: 0,
    travel,
    overtimeCap: 120,
    routeLimit: 50,
    travelTimeSource: 'great_circle' as const,
    jobs: points.slice(1).map((_, i) => ({ id: `job-${i}`, status: 'dispatched', crewId: 'crew', location: i + 1, windowStart: 480, windowEnd: 1020, duration: 30, requiredSkills: [] })),
    crews: [{ id: 'crew', name: 'Crew', foremanId: 'tech', skills: [], day: { shift: { start: 480, end: 1020, breakMinutes: 30 }, timeOff: [] }, currentStops: [] }],
  };
  const route = handRoute(day, 'crew', day.jobs.map((j) => j.id));
  if (route.stops.length !== 12) throw new Error(`the bench route has ${route.stops.length} stops, not 12`);
  const times: number[] = [];
  for (let run = 0; run < ETA_RUNS + 200; run++) {
    const started = performance.now();
    progressedRoute(day, route, { index: 0, departure: 480 + 30 + (run % 90) });
    if (run >= 200) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]!;
  return { p50: at(50), p95: at(95) };
}

await withSelfContainedStack('bench_dispatch', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { createTenant, ownerPool } = await import('../scripts/harness/owner-db');
  const { startTemporalHarness } = await import('../scripts/harness/temporal-harness');
  const { WebhookReceiver } = await import('../scripts/harness/webhook-receiver');
  const { CredentialCipher } = await import('../db/security/credential-cipher');
  const { waitUntil } = await import('../scripts/harness/wait-until');

  const key = randomBytes(32).toString('base64');
  const owner = ownerPool();
  const temporal = await startTemporalHarness();
  await temporal.startWorker({ cacheWorkflows: true, webhooks: { cipher: new CredentialCipher(key), allowPrivateNetworks: false, allowLoopback: true, publicBaseUrl: 'http://127.0.0.1:3998' } });
  temporal.relay.start();
  const api = await startApi({ events: temporal.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: key, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  const receiver = await new WebhookReceiver().start();
  try {
    const people: Record<string, 'ADMIN' | 'TECHNICIAN'> = { admin: 'ADMIN' };
    for (let i = 0; i < CREWS; i++) people[`tech${i}`] = 'TECHNICIAN';
    const tenant = await createTenant(owner, people);
    await owner.query(`update organizations set plan = 'enterprise', depot_lat = 43.6532, depot_lon = -79.3832 where id = $1`, [tenant.id]);
    const token = await api.tokenFor(tenant.users.admin!);
    let requests = 0;
    const call = async (method: string, path: string, json?: unknown) => {
      requests += 1;
      const res = await api.request(path, { method, token, headers: { 'x-forwarded-for': `198.18.${Math.floor(requests / 250) % 250}.${(requests % 250) + 1}` }, ...(json === undefined ? {} : { json }) });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    // Two located jobs per crew.
    const crewJobs: { crewId: string; jobs: string[] }[] = [];
    for (let c = 0; c < CREWS; c++) {
      const jobs: string[] = [];
      for (let j = 0; j < 2; j++) {
        const order = await call('POST', '/api/v1/work-orders', { assignedTechnicianId: tenant.users[`tech${c}`]!.id, scheduledDate: DATE, siteAddress: `${c * 2 + j + 1} Bench Rd` });
        const job = (await call('GET', `/v1/fsm/jobs/${order.id as string}`)) as { site: { site_id: string } };
        await call('PATCH', `/v1/fsm/sites/${job.site.site_id}`, { lat: 43.6532 + ((c * 7 + j * 13) % 30) / 1000, lon: -79.3832 - ((c * 11 + j * 5) % 40) / 1000 });
        await call('PATCH', `/v1/fsm/jobs/${order.id as string}/schedule`, { duration_minutes: 45 });
        jobs.push(order.id as string);
      }
      const crew = await owner.query<{ id: string }>('select id from crews where foreman_user_id = $1', [tenant.users[`tech${c}`]!.id]);
      crewJobs.push({ crewId: crew.rows[0]!.id, jobs });
    }
    for (const { crewId, jobs } of crewJobs) await call('PUT', `/v1/fsm/routes/${DATE}/${crewId}`, { stops: jobs });
    await call('POST', '/api/v1/webhook-endpoints', { url: receiver.url, events: ['dispatch.updated'], format: 'events' });

    const latencies: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Each round is every route's first change after a quiet spell (the leading edge, told at
      // once): a route changed again within dispatch_coalesce_seconds would wait for its trailing event.
      await waitUntil('the coalescing window since the last round', async () => (await owner.query(
        `select 1 from routes r join organizations o on o.id = r.organization_id
          where r.organization_id = $1 and r.dispatch_told_at > clock_timestamp() - make_interval(secs => coalesce(o.dispatch_coalesce_seconds, 5)) limit 1`, [tenant.id])).rowCount === 0, { timeoutMs: 60_000, intervalMs: 100 });
      const seen = receiver.received.length;
      const started = new Map<string, number>();
      // Every crew's route reversed at once: 50 commits, 50 events.
      const answers = await Promise.all(
        crewJobs.map(async ({ crewId, jobs }) => {
          const at = performance.now() + performance.timeOrigin;
          const stops = round % 2 === 0 ? [...jobs].reverse() : jobs;
          const route = (await call('PUT', `/v1/fsm/routes/${DATE}/${crewId}`, { stops })) as { id: string; revision: number };
          started.set(`${route.id}:${route.revision}`, at);
          return route;
        }),
      );
      await receiver.waitFor(seen + answers.length, 60_000);
      for (const got of receiver.received.slice(seen)) {
        const object = (JSON.parse(got.body) as { data: { object: { id: string; revision: number } } }).data.object;
        const at = started.get(`${object.id}:${object.revision}`);
        if (at === undefined) throw new Error(`a receipt of no request of this round: ${object.id} revision ${object.revision}`);
        latencies.push(got.at - at);
      }
      console.log(`round ${round + 1}: ${answers.length} routes changed at once, ${receiver.received.length - seen} events received`);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
    console.log(
      `dispatch.updated commit request -> loopback receipt, ${CREWS} routes at once x ${ROUNDS}: p50 ${pct(50).toFixed(0)} ms, p95 ${pct(95).toFixed(0)} ms, slowest ${sorted.at(-1)!.toFixed(0)} ms; target p95 within ${TARGET_MS} ms: ${pct(95) <= TARGET_MS ? 'PASS' : 'FAIL'}`,
    );
    const eta = await etaRecomputation();
    console.log(`ETA recomputation of a 12-stop route x ${ETA_RUNS}: p50 ${eta.p50.toFixed(3)} ms, p95 ${eta.p95.toFixed(3)} ms; target within ${ETA_TARGET_MS} ms: ${eta.p95 <= ETA_TARGET_MS ? 'PASS' : 'FAIL'}`);
    if (pct(95) > TARGET_MS || eta.p95 > ETA_TARGET_MS) process.exitCode = 1;
  } finally {
    await receiver.close();
    await api.close();
    await temporal.close();
    await owner.end();
  }
});
