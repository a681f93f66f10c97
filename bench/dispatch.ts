/**
 * `dispatch.updated` from the committing request to a loopback receiver (D23; a script, not a
 * test): 50 crews' routes resequenced at once by 50 concurrent `PUT /v1/fsm/routes/{date}/{crewId}`,
 * each route's event delivered to an `events` endpoint on 127.0.0.1 through the delivery
 * workflows on the real Temporal and PostgreSQL. Prints the p50, p95 and slowest from each
 * request's start to the receipt of its route's new revision; target p95 within 5 seconds.
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

await withSelfContainedStack('bench_dispatch', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { createTenant, ownerPool } = await import('../scripts/harness/owner-db');
  const { startTemporalHarness } = await import('../scripts/harness/temporal-harness');
  const { WebhookReceiver } = await import('../scripts/harness/webhook-receiver');
  const { CredentialCipher } = await import('../db/security/credential-cipher');

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
  } finally {
    await receiver.close();
    await api.close();
    await temporal.close();
    await owner.end();
  }
});
