import { serviceName, startTracing } from './tracing';

/**
 * Loaded before the API's or the worker's own modules (`node --import` of this file: see
 * scripts/infra/processes.ts and docker-compose.yml), so that the OpenTelemetry
 * instrumentations patch node:http and pg before anything uses them. Does nothing unless
 * OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
if (endpoint) startTracing({ serviceName: serviceName(), endpoint });
