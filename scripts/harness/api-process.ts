import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { EventDispatcher } from '../../activities/events/dispatcher';
import { InvoiceRunner } from '../../activities/temporal/invoice-runner';
import { IntegrationWorkflows } from '../../activities/temporal/integration-workflows';
import { ProviderSyncSchedules } from '../../activities/temporal/provider-sync-schedules';
import { createStripeClient } from '../../activities/payments/stripe-client';
import { createLogger } from '../../activities/runtime/logger';
import { databasePassword, loadSettings } from '../../activities/runtime/settings';
import { createOrm } from '../../db/orm';
import { appDatabaseUrl } from '../../db/database-urls';
import { createApp } from '../../api/app';
import { serve } from '../../api/http/server';

/**
 * The API as a process of its own, for the crash campaign (scripts/harness/crash-campaign.ts),
 * which must be able to SIGKILL it and start it again on the same port. It is api/main.ts's
 * composition on 127.0.0.1:PORT, with one difference: HARNESS_RETRY_SCALE, when set, shortens
 * the retry and timeout intervals of the workflows this API starts (the `timing` the test
 * harnesses give the dispatcher), so the suite's small campaign does not wait out production's
 * two-minute leg timeout after each kill. Workflows the worker's outbox relay starts (events a
 * killed API committed but never started) keep production timing, as deployed.
 */
const settings = loadSettings();
const logger = createLogger(settings.LOG_LEVEL).child({ process: 'api' });
const appUrl = appDatabaseUrl(settings.DATABASE_URL, databasePassword(settings, 'api'));
const orm = await createOrm({ url: appUrl, poolMax: settings.DATABASE_POOL_MAX });
const limiterPool = new pg.Pool({ connectionString: appUrl, max: 5 });
limiterPool.on('error', (err) => logger.warn({ err }, 'rate-limit pool connection error'));

const retryScale = process.env.HARNESS_RETRY_SCALE ? Number(process.env.HARNESS_RETRY_SCALE) : undefined;
if (retryScale !== undefined && !(retryScale > 0 && retryScale <= 1)) throw new Error(`HARNESS_RETRY_SCALE must be in (0, 1], not ${process.env.HARNESS_RETRY_SCALE}`);
const timing = retryScale === undefined ? undefined : { retryScale };

const temporalConnection = Connection.lazy({ address: settings.TEMPORAL_ADDRESS });
const temporal = new Client({ connection: temporalConnection, namespace: settings.TEMPORAL_NAMESPACE });
const taskQueue = settings.TEMPORAL_TASK_QUEUE;
const events = new EventDispatcher(temporal, orm.em, { taskQueue, logger, ...(timing ? { timing } : {}) });
const invoices = new InvoiceRunner(temporal, { taskQueue });
const payments = settings.PAYMENTS_SECRET_KEY ? createStripeClient({ secretKey: settings.PAYMENTS_SECRET_KEY, baseUrl: settings.PAYMENTS_API_BASE_URL }) : undefined;
const syncSchedules = new ProviderSyncSchedules(temporal, { taskQueue, interval: settings.PROVIDER_SYNC_INTERVAL, logger });
const integrationWorkflows = new IntegrationWorkflows(temporal, { taskQueue, logger, syncSchedules });

const app = createApp({ settings, em: orm.em, limiterPool, logger, events, invoices, integrationWorkflows, ...(payments ? { payments } : {}) });
const api = await serve(app, { port: settings.PORT, host: '127.0.0.1' });
logger.info({ url: api.url }, 'api listening');

// A campaign ends its processes with SIGTERM: drain briefly, close the pools, exit.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void api
      .stop(2_000)
      .then(() => Promise.allSettled([orm.close(true), limiterPool.end(), temporalConnection.close()]))
      .finally(() => process.exit(0));
  });
}
