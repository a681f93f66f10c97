import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { MikroORM } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import { randomUUID } from 'node:crypto';
import { createRoutingWorker, createWorker } from '../../worker/create-worker';
import type { RoutingDependencies } from '../../activities/routing';
import { connectWorker } from '../../worker/temporal-connection';
import { createOrm } from '../../db/orm';
import { workerDatabaseUrl } from '../../db/database-urls';
import { createLogger } from '../../infra/runtime/logger';
import { EventDispatcher } from '../../infra/events/dispatcher';
import { OutboxRelay } from '../../worker/outbox-relay';
import type { IntegrationDependencies } from '../../activities/integrations';
import type { WebhookDependencies } from '../../activities/webhooks';
import type { Logger } from '../../infra/runtime/logger';
import { clientInterceptors } from '../../infra/temporal/client-interceptors';
import { tenantSubdomainsFrom, type TenantSubdomains } from '../../infra/temporal/tenant-subdomains';
import type { WorkerMetrics } from '../../worker/metrics';
import type { ProviderSyncDependencies } from '../../activities/provider-sync';

/** Retry intervals at 2 % of production's: a 2 s backoff becomes 40 ms. */
export const TEST_TIMING = { retryScale: 0.02 };

/**
 * A provider sync schedule interval (D18) that never fires while a test runs. Temporal aligns an
 * interval schedule's times to the epoch, so '15m' fires at every quarter hour of the wall clock
 * and '1h' at every hour: a test that happens to run across one meets a scheduled run it did not
 * start, which applies the test's changes first. 999,999 hours is the longest PROVIDER_SYNC_INTERVAL.
 */
export const SYNC_INTERVAL_NEVER_IN_A_TEST = '999999h';

export interface TemporalHarness {
  taskQueue: string;
  /** D23: the routing task queue, polled by a second worker of the same process (as worker/main.ts does). */
  routingTaskQueue: string;
  client: Client;
  orm: MikroORM;
  dispatcher: EventDispatcher;
  relay: OutboxRelay;
  /** For the starters a test builds (InvoiceRunner, IntegrationWorkflows, ProviderSyncSchedules). */
  subdomains: TenantSubdomains;
  /** `cacheWorkflows: true` runs with the SDK's default cache, as production does (benchmarks). */
  /** `metrics` and `logger`: the worker's counters, and a logger to read its lines (silent otherwise). */
  startWorker(deps?: {
    payments?: Stripe;
    integrations?: IntegrationDependencies;
    webhooks?: WebhookDependencies;
    providerSync?: ProviderSyncDependencies;
    routing?: RoutingDependencies;
    cacheWorkflows?: boolean;
    metrics?: WorkerMetrics;
    logger?: Logger;
  }): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real Temporal server of the test run with a worker of ours in this process, on a task
 * queue of its own, caching no workflow (every task replays the history from the start).
 */
export async function startTemporalHarness(): Promise<TemporalHarness> {
  const taskQueue = `test-${randomUUID()}`;
  // As the worker's role: the relay, the dispatcher and the activities here are the worker's.
  const orm = await createOrm({ url: workerDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_WORKER_PASSWORD!), poolMax: 5 });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  // With the interceptors of api/main.ts and worker/main.ts: a start carries the request id.
  const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default', interceptors: clientInterceptors() });
  const logger = createLogger('silent');
  const dispatcher = new EventDispatcher(client, orm.em, { taskQueue, timing: TEST_TIMING, logger });
  const relay = new OutboxRelay(orm.em, dispatcher, logger, 100);
  let worker: Worker | undefined;
  let routingWorker: Worker | undefined;
  let running: Promise<void> | undefined;
  let workerConnection: Awaited<ReturnType<typeof connectWorker>> | undefined;

  const harness: TemporalHarness = {
    taskQueue,
    routingTaskQueue: `${taskQueue}-routing`,
    client,
    orm,
    dispatcher,
    relay,
    subdomains: tenantSubdomainsFrom(orm.em),
    async startWorker(deps = {}) {
      workerConnection ??= await connectWorker(process.env.TEMPORAL_ADDRESS!);
      const options = {
        connection: workerConnection,
        namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
        ...(deps.metrics ? { metrics: deps.metrics } : {}),
        deps: {
          em: orm.em,
          logger: deps.logger ?? logger,
          payments: deps.payments,
          integrations: deps.integrations ?? { providers: {}, cipher: undefined },
          webhooks: deps.webhooks ?? { cipher: undefined, allowPrivateNetworks: false },
          providerSync: deps.providerSync,
          routing: deps.routing,
        },
        ...(deps.cacheWorkflows ? {} : { maxCachedWorkflows: 0 }),
      };
      worker = await createWorker({ ...options, taskQueue });
      routingWorker = await createRoutingWorker({ ...options, taskQueue: harness.routingTaskQueue });
      running = Promise.all([worker.run(), routingWorker.run()]).then(() => undefined);
    },
    async stopWorker() {
      worker?.shutdown();
      routingWorker?.shutdown();
      await running;
      worker = undefined;
      routingWorker = undefined;
    },
    async close() {
      await relay.stop();
      await harness.stopWorker();
      await workerConnection?.close();
      await connection.close();
      await orm.close(true);
    },
  };
  return harness;
}
