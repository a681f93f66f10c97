import { ReleaseHeartbeat } from '../infra/runtime/release-heartbeat';
import { smtpMailer } from '../infra/email/mailer';
import { Client, Connection } from '@temporalio/client';
import { EventDispatcher } from '../infra/events/dispatcher';
import { InvoiceRunner } from '../infra/temporal/invoice-runner';
import { RoutePlans } from '../infra/temporal/route-plans';
import { IntegrationWorkflows } from '../infra/temporal/integration-workflows';
import { PricebookWorkflows } from '../infra/temporal/pricebook-workflows';
import { ProviderSyncSchedules } from '../infra/temporal/provider-sync-schedules';
import { createStripeClient } from '../infra/payments/stripe-client';
import { createOrm } from '../db/orm';
import { appDatabaseUrl } from '../db/database-urls';
import { boundedPool } from '../db/database-timeouts';
import { createApp } from './app';
import { DRAIN_DEADLINE_MS, serve } from './http/server';
import { createLogger } from '../infra/runtime/logger';
import type { Timing } from '../infra/temporal/contracts';
import { databasePassword, databaseTimeouts, loadSettings } from '../infra/runtime/settings';
import { createMetricsRegistry, serveMetrics } from '../infra/runtime/metrics';
import { activeTracing } from '../infra/runtime/tracing-state';
import { clientInterceptors } from '../infra/temporal/client-interceptors';
import { tenantSubdomainsFrom } from '../infra/temporal/tenant-subdomains';
import { createRequestMetrics } from './http/metrics';

export interface ApiProcessOptions {
  /**
   * The retry timing of the workflows this API starts. Production leaves it unset; the crash
   * campaign's harness (scripts/harness/api-process.ts) shortens it, as the test harnesses do.
   */
  dispatchTiming?: Timing;
  /** The address to listen on, over API_HOST (the settings' default: loopback outside production). */
  host?: string;
}

/** The API process: settings, the application role's pools, the app, and a clean shutdown. */
export async function startApiProcess(options: ApiProcessOptions = {}): Promise<void> {
  const settings = loadSettings();
  const logger = createLogger(settings.LOG_LEVEL);
  const appUrl = appDatabaseUrl(settings.DATABASE_URL, databasePassword(settings, 'api'));
  // Every wait on the database bounded (docs/operations.md): a frozen server answers 503, not a hang.
  const timeouts = databaseTimeouts(settings, 'api');
  const orm = await createOrm({ url: appUrl, poolMax: settings.DATABASE_POOL_MAX, timeouts });
  const limiterPool = boundedPool(appUrl, 5, timeouts);
  limiterPool.on('error', (err) => logger.warn({ err }, 'rate-limit pool connection error'));

  // Lazy: the API serves (health, reads, pricing) even while Temporal is unreachable; events
  // committed meanwhile are started by the worker's outbox relay.
  const temporalConnection = Connection.lazy({ address: settings.TEMPORAL_ADDRESS });
  const temporal = new Client({ connection: temporalConnection, namespace: settings.TEMPORAL_NAMESPACE, interceptors: clientInterceptors() });
  const events = new EventDispatcher(temporal, orm.em, { taskQueue: settings.TEMPORAL_TASK_QUEUE, logger, ...(options.dispatchTiming ? { timing: options.dispatchTiming } : {}) });

  // The tenant's subdomain on every workflow it starts (search attribute `OrganizationSubdomain`).
  const subdomains = tenantSubdomainsFrom(orm.em);
  const invoices = new InvoiceRunner(temporal, { taskQueue: settings.TEMPORAL_TASK_QUEUE, subdomains });
  const routePlans = new RoutePlans(temporal, { taskQueue: settings.TEMPORAL_TASK_QUEUE, routingTaskQueue: settings.TEMPORAL_ROUTING_TASK_QUEUE, subdomains });
  // Reads (the invoice view) and the checkout page call the provider directly; invoice writes run
  // in the worker's workflows.
  const payments = settings.PAYMENTS_SECRET_KEY ? createStripeClient({ secretKey: settings.PAYMENTS_SECRET_KEY, baseUrl: settings.PAYMENTS_API_BASE_URL }) : undefined;

  const syncSchedules = new ProviderSyncSchedules(temporal, { taskQueue: settings.TEMPORAL_TASK_QUEUE, subdomains, interval: settings.PROVIDER_SYNC_INTERVAL, logger });
  const integrationWorkflows = new IntegrationWorkflows(temporal, { taskQueue: settings.TEMPORAL_TASK_QUEUE, subdomains, logger, syncSchedules });

  // Prometheus metrics on their own port (docs/operations.md).
  const metricsRegistry = createMetricsRegistry('api');
  const metrics = createRequestMetrics(metricsRegistry);
  // D24: the quote's link to the customer and the office's notices go through SMTP_URL.
  const mailer = settings.SMTP_URL ? smtpMailer(settings.SMTP_URL, settings.MAIL_FROM) : undefined;
  const app = createApp({
    settings, em: orm.em, limiterPool, logger, events, invoices, routePlans, integrationWorkflows,
    pricebookWorkflows: new PricebookWorkflows(temporal, { taskQueue: settings.TEMPORAL_TASK_QUEUE }), metrics,
    ...(payments ? { payments } : {}), ...(mailer ? { mailer } : {}),
  });
  const host = options.host ?? settings.API_HOST;
  const api = await serve(app, { port: settings.PORT, ...(host ? { host } : {}) });
  const metricsServer = await serveMetrics(metricsRegistry, { host: settings.METRICS_HOST, port: settings.METRICS_PORT });
  // Rolling deploys: which schema this release was built for, while it runs (docs/operations.md).
  const release = new ReleaseHeartbeat(orm.em, 'api', logger);
  await release.start();
  logger.info({ url: api.url, metrics: metricsServer.url, tracing: Boolean(activeTracing()) }, 'api listening');

  let stopping = false;
  /**
   * Drain, then close: no new connections, every request in flight finishes (an approval that
   * commits is answered), and only then do the pools its handlers use go away.
   */
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'api shutting down: finishing the requests in flight');
    const { drained } = await api.stop(DRAIN_DEADLINE_MS);
    if (!drained) logger.warn({ deadline_ms: DRAIN_DEADLINE_MS }, 'requests still running at the drain deadline were cut off');
    await release.stop();
    mailer?.close();
    await Promise.allSettled([orm.close(true), limiterPool.end(), temporalConnection.close(), metricsServer.close(), activeTracing()?.shutdown()]);
    logger.info('api stopped');
    process.exit(0);
  }
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
