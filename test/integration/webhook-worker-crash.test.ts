import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OwnDatabase } from '../support/own-database';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { WorkerProcesses } from '../../scripts/harness/worker-processes';
import { appDatabaseUrl } from '../../db/database-urls';
import { createOrm } from '../../db/orm';
import { recordEvent } from '../../db/events/outbox';
import { sampleEventData } from '../../scripts/harness/sample-events';
import { inTenant } from '../../db/tenant-scope';
import { createLogger } from '../../infra/runtime/logger';
import { EventDispatcher } from '../../infra/events/dispatcher';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { sandboxUser } from '../../scripts/harness/owner-db';
import { TEST_TIMING } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';

/**
 * At-least-once across a crash: the worker process (worker/main.ts, as deployed) is
 * SIGKILLed while a batch of an endpoint's deliveries is out, and a new worker takes over. The
 * batch activity stops heartbeating, Temporal retries it on the new worker, and the retry takes
 * its claimed rows back (same claim token): every event arrives, none is lost (some may arrive
 * twice, which section 6.3 rule 1 allows: receivers key on the envelope id). On a database of its
 * own, so its outbox relay sees only this test.
 */
const KEY = randomBytes(32).toString('base64');
const EVENTS = 40;
const own = new OwnDatabase('hook_crash');
const database = own.url;
const taskQueue = `hook-crash-${randomBytes(4).toString('hex')}`;
let owner: pg.Pool;
let orm: MikroORM;
let api: ApiHarness;
let connection: Connection;
let dispatcher: EventDispatcher;
let receiver: WebhookReceiver;
const workers = new WorkerProcesses(() => ({ DATABASE_URL: database, TEMPORAL_TASK_QUEUE: taskQueue, CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' }));

beforeAll(async () => {
  await own.create();
  owner = new pg.Pool({ connectionString: database, max: 2 });
  orm = await createOrm({ url: appDatabaseUrl(database, process.env.DATABASE_APP_PASSWORD!), poolMax: 3 });
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  dispatcher = new EventDispatcher(client, orm.em, { taskQueue, timing: TEST_TIMING, logger: createLogger('silent') });
  api = await startApi({ events: dispatcher, env: { DATABASE_URL: database, CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  receiver = await new WebhookReceiver().start();
}, 120_000);
afterAll(async () => {
  workers.killAll();
  await receiver?.close();
  await api?.close();
  await orm?.close(true);
  await connection?.close();
  await owner?.end();
  await own.drop();
});

describe('a worker killed mid-batch', () => {
  it('is replaced, and every delivery of the batch arrives (at-least-once), each recorded delivered', async () => {
    const first = workers.start();
    const adminUser = await sandboxUser(owner, 'sandbox', 'admin@sandbox.test');
    const admin = await api.tokenFor(adminUser);
    // Every answer takes 2 s: the first batch is still out when the worker dies.
    receiver.script(...Array.from({ length: EVENTS }, () => ({ status: 200, afterMs: 2000 })));
    const created = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['work_order.dispatched'] } });
    expect(created.status).toBe(201);
    const endpointId = ((await created.json()) as { id: string }).id;
    const envelopes = await inTenant(orm.em, adminUser.organizationId, async (tx) => {
      const made = [];
      for (let i = 0; i < EVENTS; i++) made.push(await recordEvent(tx, adminUser.organizationId, 'work_order.dispatched', sampleEventData('work_order.dispatched', { work_order_id: randomUUID() })));
      return made;
    });
    for (const envelope of envelopes) await dispatcher.dispatch(envelope);

    // The batch's requests have reached the receiver; none has been answered yet.
    await receiver.waitFor(5, 60_000);
    const before = (await owner.query(`select count(*)::int as n from webhook_deliveries where endpoint_id = $1 and status = 'delivered'`, [endpointId])).rows[0].n as number;
    await workers.crash(first);
    workers.start();

    const deadline = Date.now() + 90_000;
    for (;;) {
      const { rows } = await owner.query<{ status: string; n: number }>('select status, count(*)::int as n from webhook_deliveries where endpoint_id = $1 group by status', [endpointId]);
      if (rows.length === 1 && rows[0]!.status === 'delivered' && rows[0]!.n === EVENTS) break;
      if (Date.now() > deadline) throw new Error(`not all delivered: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(before).toBeLessThan(EVENTS);
    // None lost: every envelope id reached the receiver, those of the killed batch more than once.
    const received = receiver.received.map((got) => got.headers['x-service-delivery'] as string);
    expect(new Set(received)).toEqual(new Set(envelopes.map((e) => e.id)));
    expect(received.length).toBeGreaterThan(EVENTS);
    // Each attempt of the retried batch is logged under the same attempt number (one series, one attempt each).
    const { rows: attempts } = await owner.query<{ attempt: number }>('select distinct attempt from webhook_delivery_attempts where endpoint_id = $1', [endpointId]);
    expect(attempts.map((a) => a.attempt)).toEqual([1]);
  }, 180_000);
});
