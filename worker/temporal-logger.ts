import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import type { Logger } from 'pino';

/** The SDK's metadata names, as our log lines name things (snake_case). */
const RENAMED: Record<string, string> = {
  sdkComponent: 'sdk_component',
  namespace: 'namespace',
  taskQueue: 'task_queue',
  workflowId: 'workflow_id',
  runId: 'run_id',
  workflowRunId: 'run_id',
  workflowType: 'workflow_type',
  activityId: 'activity_id',
  activityType: 'activity_type',
  attempt: 'attempt',
  isLocal: 'is_local',
  durationMs: 'duration_ms',
  taskToken: 'task_token',
};
const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/**
 * The Temporal SDK's logger (worker, workflows' `log`, core) writes through our pino
 * logger, as JSON lines like every other, with the workflow id, run id and our business ids
 * (workflows/interceptors.ts adds those) under our names. Installed by worker/runtime.ts.
 */
export class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly logger: Logger) {}

  log(level: LogLevel, message: string, meta: LogMetadata = {}): void {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(meta)) {
      // The SDK's own timestamp is a symbol key; pino stamps the line itself.
      if (key === 'error' || key === 'failure') fields.err = value;
      else fields[RENAMED[key] ?? key] = value;
    }
    this.logger[LEVELS[level]](fields, message);
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

/**
 * SDK warnings that are expected here: the routing queue's worker runs activities only
 * (worker/create-worker.ts), which the SDK warns about at every start.
 */
const EXPECTED_WARNINGS = new Set(['No workflows registered, not polling for workflow tasks']);

/** The SDK's logger with the warnings we expect told at info, whatever logger writes them (worker/runtime.ts). */
export function expectedWarningsAsInfo(inner: TemporalLogger): TemporalLogger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => inner.log(level === 'WARN' && EXPECTED_WARNINGS.has(message) ? 'INFO' : level, message, meta);
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
