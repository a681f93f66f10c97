import { Worker, type NativeConnection } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createActivities, type ActivityDependencies } from '../activities';
import { installQuietRuntime } from './runtime';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDependencies;
  /** 0 in tests: every workflow task replays the history from the start (catches non-determinism). */
  maxCachedWorkflows?: number;
}

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** One worker: workflows bundled from workflows/, activities from activities/. */
export function createWorker(options: WorkerOptions): Promise<Worker> {
  installQuietRuntime();
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: createActivities(options.deps),
    ...(options.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
  });
}
