import { createOrm } from '../db/orm';
import { appDatabaseUrl } from '../db/database-urls';
import { createLogger } from '../api/logger';
import { loadSettings } from '../api/settings';
import { connectWorker } from './temporal-connection';
import { createWorker } from './create-worker';

/** The worker process: one Temporal worker; SIGINT/SIGTERM drain in-flight tasks, then exit. */
const settings = loadSettings();
const logger = createLogger(settings.LOG_LEVEL).child({ process: 'worker' });
const orm = await createOrm({ url: appDatabaseUrl(settings.DATABASE_URL, settings.DATABASE_APP_PASSWORD), poolMax: settings.DATABASE_POOL_MAX });
const connection = await connectWorker(settings.TEMPORAL_ADDRESS);
const worker = await createWorker({
  connection,
  namespace: settings.TEMPORAL_NAMESPACE,
  taskQueue: settings.TEMPORAL_TASK_QUEUE,
  deps: { em: orm.em, logger },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    logger.info({ signal }, 'worker shutting down');
    worker.shutdown();
  });
}
logger.info({ taskQueue: settings.TEMPORAL_TASK_QUEUE, namespace: settings.TEMPORAL_NAMESPACE }, 'worker polling');
try {
  await worker.run();
} finally {
  await connection.close();
  await orm.close(true);
  logger.info('worker stopped');
}
