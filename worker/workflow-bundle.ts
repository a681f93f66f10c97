import { bundleWorkflowCode, type WorkflowBundleWithSourceMap, type WorkerOptions as SdkWorkerOptions } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** `.ts` from source (tsx), `.js` in the compiled image (scripts/container/Dockerfile). */
export const SOURCE_EXTENSION = import.meta.url.endsWith('.js') ? '.js' : '.ts';
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

/** Bundles workflows/ with webpack (seconds of CPU, and a heap the process keeps afterwards). */
export function bundleWorkflows(tracing: boolean): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: workflowInterceptorModules(tracing),
    ...(SOURCE_EXTENSION === '.js' ? { webpackConfigHook: compiledImports } : {}),
    logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

/**
 * Where the image keeps the bundle it built from the same compiled workflows (dist/workflow-bundles/,
 * written by worker/bundle-workflows.ts in the Dockerfile's build stage): one per tracing choice,
 * since OpenTelemetry's interceptors are bundled only when tracing is on.
 */
export function prebuiltBundlePath(tracing: boolean): string {
  return fileURLToPath(new URL(`../workflow-bundles/workflows${tracing ? '-tracing' : ''}.js`, import.meta.url));
}

/**
 * The prebuilt bundle's path when this is the compiled image's code and the build wrote one.
 * Never from source: under tsx the workflows are edited between runs, so they are bundled at start.
 */
export function prebuiltBundle(tracing: boolean): string | undefined {
  if (SOURCE_EXTENSION !== '.js') return undefined;
  const path = prebuiltBundlePath(tracing);
  return existsSync(path) ? path : undefined;
}
