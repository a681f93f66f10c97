import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { createWorker } from '../../worker/create-worker';
import { connectWorker } from '../../worker/temporal-connection';
import { createOrm } from '../../db/orm';
import { workerDatabaseUrl } from '../../db/database-urls';
import { createLogger } from '../../infra/runtime/logger';
import type { MikroORM } from '@mikro-orm/postgresql';
import { WORKFLOW_TYPES, type RoundTripWorkflow } from '../../infra/temporal/contracts';

/** The worker of worker/ against the real Temporal server of the test run. */
let connection: Awaited<ReturnType<typeof connectWorker>>;
let client: Client;
let clientConnection: Connection;
let worker: Worker;
let running: Promise<void>;
let orm: MikroORM;
const taskQueue = `test-worker-${randomUUID()}`;

beforeAll(async () => {
  orm = await createOrm({ url: workerDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_WORKER_PASSWORD!), poolMax: 2 });
  connection = await connectWorker(process.env.TEMPORAL_ADDRESS!);
  worker = await createWorker({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default', taskQueue, deps: { em: orm.em, logger: createLogger('silent'), integrations: { providers: {}, cipher: undefined }, webhooks: { cipher: undefined, allowPrivateNetworks: false } } });
  running = worker.run();
  clientConnection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection: clientConnection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
}, 120_000);
afterAll(async () => {
  worker?.shutdown();
  await running;
  await clientConnection?.close();
  await connection?.close();
  await orm?.close(true);
});

describe('worker', () => {
  it('bundles workflows/ and completes a round trip on the real server', async () => {
    const sentAt = new Date().toISOString();
    const result = await client.workflow.execute<RoundTripWorkflow>(WORKFLOW_TYPES.roundTrip, { taskQueue, workflowId: `round-trip-${randomUUID()}`, args: [{ sentAt }] });
    expect(result).toEqual({ sentAt });
  });
});
