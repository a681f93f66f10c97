import { Worker, bundleWorkflowCode, type NativeConnection, type WorkflowBundleWithSourceMap, type WorkerOptions as SdkWorkerOptions } from '@temporalio/worker';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { createActivities, type ActivityDependencies } from '../activities';
import { activeTracing } from '../infra/runtime/tracing';
import { installQuietRuntime } from './runtime';
import { activityInterceptors } from './activity-interceptors';
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
}

/**
 * D23: the routing task queue's worker, in the same process as the main one (the process polls
 * both queues). Route plans and their activities run here, as many at once as the machine has
 * cores: solving is CPU work, and on its own queue it never takes the slots of the main queue's
 * I/O activities (webhook deliveries, provider legs).
 */
export function createRoutingWorker(options: WorkerOptions): Promise<Worker> {
  return createWorker({ ...options, maxConcurrentActivities: options.maxConcurrentActivities ?? availableParallelism() });
}

/** `.ts` from source (tsx), `.js` in the compiled image (scripts/container/Dockerfile). */
const SOURCE_EXTENSION = import.meta.url.endsWith('.js') ? '.js' : '.ts';
export const WORKFLOWS_PATH = fileURLToPath(new URL(`../workflows/index${SOURCE_EXTENSION}`, import.meta.url));
/** Our workflow interceptors (log attributes): bundled with the workflows. */
export const WORKFLOW_INTERCEPTORS_PATH = fileURLToPath(new URL(`../workflows/interceptors${SOURCE_EXTENSION}`, import.meta.url));
/** Temporal's OpenTelemetry workflow interceptors (spans of workflows and the activities they schedule). */
export const OTEL_WORKFLOW_INTERCEPTORS_PATH = createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/**
 * The workflow interceptor modules of a worker: ours always, OpenTelemetry's when tracing is on
 * (infra/runtime/tracing.ts). The replay test replays with both.
 */
export function workflowInterceptorModules(tracing: boolean): string[] {
  return tracing ? [WORKFLOW_INTERCEPTORS_PATH, OTEL_WORKFLOW_INTERCEPTORS_PATH] : [WORKFLOW_INTERCEPTORS_PATH];
}

/**
 * The compiled image's workflows import each other without extensions, as the source does:
 * webpack must not demand fully specified paths of those ES modules.
 */
type WebpackConfiguration = Parameters<NonNullable<NonNullable<SdkWorkerOptions['bundlerOptions']>['webpackConfigHook']>>[0];
function compiledImports(config: WebpackConfiguration): WebpackConfiguration {
  return { ...config, module: { ...config.module, rules: [...(config.module?.rules ?? []), { test: /\.js$/, resolve: { fullySpecified: false } }] } };
}

/**
 * The workflows bundled once per process (and per tracing choice): the main worker and the routing
 * worker (D23) run the same code, and a bundle takes seconds to build.
 */
const bundles = new Map<boolean, Promise<WorkflowBundleWithSourceMap>>();
function workflowBundle(tracing: boolean): Promise<WorkflowBundleWithSourceMap> {
  let bundle = bundles.get(tracing);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      workflowInterceptorModules: workflowInterceptorModules(tracing),
      ...(SOURCE_EXTENSION === '.js' ? { webpackConfigHook: compiledImports } : {}),
      logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
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
    workflowBundle: await workflowBundle(Boolean(tracing)),
    activities: createActivities(options.deps),
    interceptors: {
      activity: [
        // OpenTelemetry's first: its span is open while ours (and the activity) run.
        ...(tracing ? [(ctx: Parameters<typeof ours>[0]) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })] : []),
        ours,
      ],
    },
    // Workflow code cannot export spans itself: it hands them to this sink, outside the sandbox.
    ...(tracing ? { sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) } } : {}),
    ...(options.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
    ...(options.maxConcurrentActivities !== undefined ? { maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities } : {}),
  });
}
