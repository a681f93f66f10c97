import { basename, dirname } from 'node:path';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * Whether this process traces, apart from the OpenTelemetry SDK that does it (infra/runtime/
 * tracing.ts): the processes ask `activeTracing()` at every start, while the SDK and its
 * instrumentations (about 30 MB of resident memory once loaded) are imported only when
 * OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on (infra/runtime/instrument.ts).
 */
export interface Tracing {
  readonly provider: NodeTracerProvider;
  /** For the worker's workflow spans, which the Temporal SDK exports through a sink. */
  readonly spanProcessor: SpanProcessor;
  readonly resource: Resource;
  shutdown(): Promise<void>;
}

let active: Tracing | undefined;

/** The tracing of this process, when it is on. */
export function activeTracing(): Tracing | undefined {
  return active;
}

/** Set by infra/runtime/tracing.ts when it starts, cleared when it shuts down. */
export function setActiveTracing(tracing: Tracing | undefined): void {
  active = tracing;
}

/** `shade-office-api` for api/main, `shade-office-worker` for worker/main (OTEL_SERVICE_NAME wins). */
export function serviceName(env: NodeJS.ProcessEnv = process.env, entry = process.argv[1] ?? ''): string {
  if (env.OTEL_SERVICE_NAME) return env.OTEL_SERVICE_NAME;
  return `shade-office-${basename(dirname(entry)) || 'process'}`;
}
