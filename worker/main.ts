import { Client, Connection } from '@temporalio/client';
import { smtpMailer } from '../infra/email/mailer';
import { createOrm } from '../db/orm';
import { workerDatabaseUrl } from '../db/database-urls';
import { createLogger } from '../infra/runtime/logger';
import { databasePassword, databaseTimeouts, loadSettings } from '../infra/runtime/settings';
import { EventDispatcher } from '../infra/events/dispatcher';
import { createStripeClient } from '../infra/payments/stripe-client';
import { connectWorker } from './temporal-connection';
import { createRoutingWorker, createWorker } from './create-worker';
import { routeSolverFromSettings } from '../infra/routing/solver';
import type { ActivityDependencies } from '../activities';
import { OutboxRelay } from './outbox-relay';
import { ensureSchedules } from './schedules';
import { createOAuthProviders } from '../infra/integrations/providers';
import { refreshTargets } from '../infra/integrations/connection-store';
import { CredentialCipher } from '../db/security/credential-cipher';
import { IntegrationWorkflows } from '../infra/temporal/integration-workflows';
import { clientInterceptors } from '../infra/temporal/client-interceptors';
import { tenantSubdomainsFrom } from '../infra/temporal/tenant-subdomains';
import { createMetricsRegistry, serveMetrics } from '../infra/runtime/metrics';
import { activeTracing } from '../infra/runtime/tracing-state';
import { installRuntime } from './runtime';
import { createWorkerMetrics, freeLoopbackPort, operationsFrom, subdomainsFrom, syncRunLagFrom, temporalRuntimeMetrics } from './metrics';
import { ProviderSyncSchedules } from '../infra/temporal/provider-sync-schedules';
import { allTenantIds } from '../db/organizations';
import { ReleaseHeartbeat } from '../infra/runtime/release-heartbeat';
import { WorkerLiveness } from './liveness';

/**
 * The worker process: one Temporal worker, and the outbox relay that starts the workflows of
 * committed events. SIGINT/SIGTERM stop the relay, drain in-flight tasks, then exit.
 */
const settings = loadSettings();
const logger = createLogger(settings.LOG_LEVEL).child({ process: 'worker' });
// Bounded waits on the database (docs/operations.md): an activity's statement longer than the
// API's may run, and a frozen server fails it (Temporal retries it) instead of holding it.
const orm = await createOrm({ url: workerDatabaseUrl(settings.DATABASE_URL, databasePassword(settings, 'worker')), poolMax: settings.DATABASE_POOL_MAX, timeouts: databaseTimeouts(settings, 'worker') });
// The SDK logs through pino; its own metrics join ours at WORKER_METRICS_PORT /metrics.
const runtimeMetrics = `127.0.0.1:${await freeLoopbackPort()}`;
installRuntime({ logger, prometheusBindAddress: runtimeMetrics });
const metrics = createWorkerMetrics(createMetricsRegistry('worker'), { operations: operationsFrom(orm.em), syncRunLag: syncRunLagFrom(orm.em), subdomains: subdomainsFrom(orm.em) });
const connection = await connectWorker(settings.TEMPORAL_ADDRESS);
const cipher = CredentialCipher.fromSettings(settings);
const payments = settings.PAYMENTS_SECRET_KEY ? createStripeClient({ secretKey: settings.PAYMENTS_SECRET_KEY, baseUrl: settings.PAYMENTS_API_BASE_URL }) : undefined;
const clientConnection = await Connection.connect({ address: settings.TEMPORAL_ADDRESS });
const client = new Client({ connection: clientConnection, namespace: settings.TEMPORAL_NAMESPACE, interceptors: clientInterceptors() });
// D18: a sync that finds its connection unusable pauses its own schedule.
const subdomains = tenantSubdomainsFrom(orm.em);
const syncSchedules = new ProviderSyncSchedules(client, { taskQueue: settings.TEMPORAL_TASK_QUEUE, subdomains, interval: settings.PROVIDER_SYNC_INTERVAL, logger });
const workerDeps: ActivityDependencies = {
  em: orm.em,
  logger,
  payments,
  integrations: { providers: createOAuthProviders(settings), cipher },
  webhooks: {
    cipher,
    allowPrivateNetworks: settings.OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS,
    allowLoopback: settings.OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK,
    // D13: the notice of a disabled endpoint goes through SMTP_URL.
    mailer: settings.SMTP_URL ? smtpMailer(settings.SMTP_URL, settings.MAIL_FROM) : undefined,
    publicBaseUrl: settings.PUBLIC_BASE_URL ?? `http://localhost:${settings.PORT}`,
  },
  providerSync: { schedules: syncSchedules },
  // D23: travel times from OSRM when ROUTING_OSRM_URL is set, else the great circle; plans solved
  // by VROOM when ROUTING_VROOM_URL is set, else by the built-in solver on a thread of its own.
  routing: { travel: { osrmUrl: settings.ROUTING_OSRM_URL, osrmTimeoutMs: settings.ROUTING_OSRM_TIMEOUT_MS }, solver: routeSolverFromSettings(settings) },
};
// This replica's own liveness, at /healthz on the metrics port (the container health check).
const liveness = new WorkerLiveness();
const worker = await createWorker({ connection, namespace: settings.TEMPORAL_NAMESPACE, taskQueue: settings.TEMPORAL_TASK_QUEUE, metrics, liveness, deps: workerDeps });
// D23: the same process polls the routing queue too, for the route plans' activities.
const routingWorker = await createRoutingWorker({ connection, namespace: settings.TEMPORAL_NAMESPACE, taskQueue: settings.TEMPORAL_ROUTING_TASK_QUEUE, metrics, liveness, deps: workerDeps });
liveness.watch(worker);
liveness.watchActivitiesOnly(routingWorker);

// Rolling deploys: which schema this release was built for, while it runs (docs/operations.md).
const release = new ReleaseHeartbeat(orm.em, 'worker', logger);
await release.start();
const relay = new OutboxRelay(orm.em, new EventDispatcher(client, orm.em, { taskQueue: settings.TEMPORAL_TASK_QUEUE, logger }), logger);
relay.start();
await ensureSchedules(client, settings.TEMPORAL_TASK_QUEUE);
// Every usable connection has its token refresh workflow, even one whose start the API could not
// make (Temporal was down at consent time). Starting one that runs only wakes it.
const connectedTargets = await refreshTargets(orm.em);
const ensuredRefreshes = await new IntegrationWorkflows(client, { taskQueue: settings.TEMPORAL_TASK_QUEUE, subdomains, logger }).ensureAll(connectedTargets);
// D18: every usable provider of every tenant has its sync schedule (payments: the platform's account).
const ensuredSyncs = await syncSchedules.ensureAll([
  ...connectedTargets,
  ...(payments ? (await allTenantIds(orm.em.fork())).map((organizationId) => ({ organizationId, provider: 'PAYMENTS' as const })) : []),
]);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    logger.info({ signal }, 'worker shutting down');
    void relay.stop().finally(() => {
      // A second signal while draining has nothing left to start.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      if (routingWorker.getState() === 'RUNNING') routingWorker.shutdown();
    });
  });
}
const metricsServer = await serveMetrics(metrics.registry, { host: settings.METRICS_HOST, port: settings.WORKER_METRICS_PORT, extra: temporalRuntimeMetrics(runtimeMetrics), health: () => ({ ...liveness.report() }) });
if (!settings.SMTP_URL) logger.warn('no SMTP_URL: when a webhook endpoint is disabled, its technical contact is not emailed (D13)');
logger.info({ taskQueue: settings.TEMPORAL_TASK_QUEUE, routingTaskQueue: settings.TEMPORAL_ROUTING_TASK_QUEUE, namespace: settings.TEMPORAL_NAMESPACE, payments: Boolean(payments), token_refresh_workflows: ensuredRefreshes, provider_sync_schedules: ensuredSyncs, metrics: metricsServer.url, tracing: Boolean(activeTracing()) }, 'worker polling');
try {
  await Promise.all([worker.run(), routingWorker.run()]);
} finally {
  await relay.stop();
  await release.stop();
  await clientConnection.close();
  await connection.close();
  await orm.close(true);
  await metricsServer.close();
  await activeTracing()?.shutdown();
  logger.info('worker stopped');
}
