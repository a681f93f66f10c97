import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the code running now is doing, for every log line it writes and every workflow it starts:
 * the API's request id, and in an activity its workflow id, run id and the business
 * ids of its input. Set by api/http/request-scope.ts for a request and by the worker's activity
 * interceptor (worker/activity-interceptors.ts) for an activity; read by the logger's mixin
 * (infra/runtime/logger.ts) and by the Temporal client interceptor that passes the request id
 * on (infra/temporal/request-id-interceptor.ts).
 */
export interface LogContext {
  /** The API request this code serves (section 7's request_id), when it serves one. */
  requestId?: string | undefined;
  /** Fields every log line gets (snake_case, as our log lines name them). */
  fields: Record<string, string | number>;
}

const storage = new AsyncLocalStorage<LogContext>();

export function runWithLogContext<T>(context: LogContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}
