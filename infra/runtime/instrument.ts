/**
 * Loaded before the API's or the worker's own modules (`node --import` of this file: see
 * scripts/infra/processes.ts and docker-compose.yml), so that the OpenTelemetry
 * instrumentations patch node:http and pg before anything uses them. Does nothing unless
 * OTEL_EXPORTER_OTLP_ENDPOINT is set: the OpenTelemetry SDK is imported only then, since a
 * process that does not trace would otherwise hold it in memory for nothing.
 */
const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
if (endpoint) {
  const { serviceName, startTracing } = await import('./tracing');
  startTracing({ serviceName: serviceName(), endpoint });
}

// A module (for the top-level await above), with nothing to export.
export {};
