import { Connection } from '@temporalio/client';
import { loadSettings } from '../infra/runtime/settings';

/**
 * Container health check of the worker: healthy while Temporal sees at least one poller on our
 * task queue. Exit code 0 or 1, nothing else.
 */
const settings = loadSettings();
try {
  const connection = await Connection.connect({ address: settings.TEMPORAL_ADDRESS, connectTimeout: '3s' });
  const answer = await connection.workflowService.describeTaskQueue({
    namespace: settings.TEMPORAL_NAMESPACE,
    taskQueue: { name: settings.TEMPORAL_TASK_QUEUE },
    taskQueueType: 1, // workflow task queue
  });
  await connection.close();
  process.exit((answer.pollers?.length ?? 0) > 0 ? 0 : 1);
} catch {
  process.exit(1);
}
