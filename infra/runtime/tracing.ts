import { createRequire, syncBuiltinESMExports } from 'node:module';
import { activeTracing, setActiveTracing, type Tracing } from './tracing-state';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/**
 * OpenTelemetry traces, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set (OTLP over
 * HTTP to `<endpoint>/v1/traces`), off (no tracer, no patched module) otherwise. A request's
 * span (HTTP instrumentation) is the parent of the workflow it starts (Temporal's client
 * interceptor, infra/temporal/client-interceptors.ts), whose spans and its activities'
 * (Temporal's worker interceptors, worker/create-worker.ts) carry the same trace; inside an
 * activity, each provider call (HTTP: node:http for Stripe and QuickBooks' clients, undici for
 * fetch) and each PostgreSQL query (pg) is a child span.
 *
 * Started by infra/runtime/instrument.ts, which `node --import` loads before the process's
 * own modules (the instrumentations patch modules as they are first loaded).
 */
export { activeTracing, serviceName, type Tracing } from './tracing-state';

export function startTracing(options: { serviceName: string; endpoint?: string | undefined; exporter?: SpanExporter }): Tracing | undefined {
  const running = activeTracing();
  if (running) return running;
  const exporter = options.exporter ?? (options.endpoint ? new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` }) : undefined);
  if (!exporter) return undefined;
  const resource = new Resource({ [ATTR_SERVICE_NAME]: options.serviceName });
  // A given exporter (tests) sees each span at once; OTLP gets batches.
  const spanProcessor = options.exporter ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The global provider, W3C trace-context propagation and an AsyncLocalStorage context.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Health checks (every few seconds from compose and the supervisor) are not worth a trace.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/api/health' }),
      new UndiciInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  // ES modules that import node:http by name (`import { request } from 'node:http'`) see the
  // patched functions only once the built-in's ESM bindings are synchronised with it.
  const require = createRequire(import.meta.url);
  require('node:http');
  require('node:https');
  syncBuiltinESMExports();
  const tracing: Tracing = {
    provider,
    spanProcessor,
    resource,
    shutdown: async () => {
      await provider.shutdown();
      setActiveTracing(undefined);
    },
  };
  setActiveTracing(tracing);
  return tracing;
}
