import type { ClientInterceptors, Next, WorkflowClientInterceptor, WorkflowStartInput } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { currentLogContext } from '../runtime/log-context';

/** The memo key of the API request that started a workflow; shown in the Temporal UI. */
export const REQUEST_ID_MEMO = 'request_id';

/**
 * A workflow started while serving an API request carries that request's id in its
 * memo, so an operator goes from a request's log line to its workflow (`request_id` in the
 * Temporal UI), and the workflow's own log lines carry it (workflows/interceptors.ts).
 */
export class RequestIdClientInterceptor implements WorkflowClientInterceptor {
  startWithDetails(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'startWithDetails'>) {
    return next(withRequestId(input));
  }
}

function withRequestId(input: WorkflowStartInput): WorkflowStartInput {
  const requestId = currentLogContext()?.requestId;
  if (!requestId) return input;
  return { ...input, options: { ...input.options, memo: { ...input.options.memo, [REQUEST_ID_MEMO]: requestId } } };
}

/**
 * The interceptors of every Temporal client of ours (API and worker): the request id above, and
 * OpenTelemetry's, which opens a span for each start and passes its context in the workflow's
 * headers, so the workflow's and its activities' spans join the request's trace. Without a
 * tracer provider installed (infra/runtime/tracing.ts), its spans are no-ops.
 */
export function clientInterceptors(): ClientInterceptors {
  return { workflow: [new RequestIdClientInterceptor(), new OpenTelemetryWorkflowClientInterceptor()] };
}
