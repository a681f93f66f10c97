import { Worker, type NativeConnection, type WorkflowBundleOption } from '@temporalio/worker';
import { availableParallelism } from 'node:os';
import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { createActivities, type ActivityDependencies } from '../activities';
import { activeTracing } from '../infra/runtime/tracing-state';
import { installQuietRuntime } from './runtime';
import { activityInterceptors } from './activity-interceptors';
import { SOURCE_EXTENSION, bundleWorkflows, prebuiltBundle, prebuiltBundlePath } from './workflow-bundle';
import type { WorkerMetrics } from './metrics';
import type { WorkerLiveness } from './liveness';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDependencies;
  /** 0 in tests: every workflow task replays the history from the start (catches non-determinism). */
  maxCachedWorkflows?: number;
  /** Counters of provider calls and webhook deliveries, served by worker/main.ts. */
  metrics?: WorkerMetrics;
  /** This replica's liveness (worker/liveness.ts): told of each completed activity. */
  liveness?: WorkerLiveness;
  /** How many activities run at once (the SDK's default when absent). */
  maxConcurrentActivities?: number;
  /** No workflows: the worker polls its queue for activity tasks only. */
  activitiesOnly?: boolean;
}

/**
 * D23: the routing task queue's worker, in the same process as the main one (the process polls
 * both queues). It runs the route plans' activities only, as many at once as the machine has
 * cores: solving is CPU work, and on its own queue it never takes the slots of the main queue's
 * I/O activities (webhook deliveries, provider legs). The plan workflows themselves run on the main
 * queue (infra/temporal/route-plans.ts): a worker with workflows keeps a V8 isolate with the
 * workflow bundle on a thread of its own, about 40 MB, and one per process is enough.
 */
export function createRoutingWorker(options: WorkerOptions): Promise<Worker> {
  return createWorker({ ...options, maxConcurrentActivities: options.maxConcurrentActivities ?? availableParallelism(), activitiesOnly: true });
}

export { WORKFLOWS_PATH, WORKFLOW_INTERCEPTORS_PATH, OTEL_WORKFLOW_INTERCEPTORS_PATH, workflowInterceptorModules } from './workflow-bundle';

/**
 * The workflows of this process, per tracing choice: the compiled image's prebuilt bundle when
 * it has one (worker/bundle-workflows.ts), else bundled once per process, since the main worker
 * and the routing worker (D23) run the same code and a bundle takes seconds to build.
 */
const bundles = new Map<boolean, Promise<WorkflowBundleOption>>();
function workflowBundle(tracing: boolean, logger: ActivityDependencies['logger']): Promise<WorkflowBundleOption> {
  let bundle = bundles.get(tracing);
  if (!bundle) {
    const codePath = prebuiltBundle(tracing);
    if (!codePath && SOURCE_EXTENSION === '.js') logger.warn({ expected: prebuiltBundlePath(tracing) }, 'no prebuilt workflow bundle: bundling the workflows at start (more memory and start-up time)');
    bundle = codePath ? Promise.resolve({ codePath }) : bundleWorkflows(tracing);
    bundle.catch(() => bundles.delete(tracing));
    bundles.set(tracing, bundle);
  }
  return bundle;
}

/** One worker: workflows bundled from workflows/, activities from activities/. */
export async function createWorker(options: WorkerOptions): Promise<Worker> {
  installQuietRuntime();
  const tracing = activeTracing();
  const ours = activityInterceptors({ logger: options.deps.logger, metrics: options.metrics, liveness: options.liveness });
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.activitiesOnly ? {} : { workflowBundle: await workflowBundle(Boolean(tracing), options.deps.logger) }),
    activities: createActivities(options.deps),
    interceptors: {
      activity: [
        // OpenTelemetry's first: its span is open while ours (and the activity) run.
        ...(tracing ? [(ctx: Parameters<typeof ours>[0]) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })] : []),
        ours,
      ],
    },
    // Workflow code cannot export spans itself: it hands them to this sink, outside the sandbox.
    ...(tracing && !options.activitiesOnly ? { sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) } } : {}),
    ...(options.maxCachedWorkflows !== undefined && !options.activitiesOnly ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
    ...(options.maxConcurrentActivities !== undefined ? { maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities } : {}),
  });
}
