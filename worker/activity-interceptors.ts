import { ApplicationFailure, type Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptors, Next } from '@temporalio/worker';
import type { Logger } from 'pino';
import { runWithLogContext } from '../infra/runtime/log-context';
import type { ProviderCallOutcome, WorkerMetrics } from './metrics';
import type { WorkerLiveness } from './liveness';

/** The activities that call a provider, and which provider (a token refresh says in its input). */
const PROVIDER_OF_ACTIVITY: Record<string, (input: Record<string, unknown>) => string | undefined> = {
  writePaymentsInvoice: () => 'payments',
  writeAccountingInvoice: () => 'accounting',
  upsertCrmOpportunity: () => 'crm',
  refreshConnectionToken: (input) => (typeof input.provider === 'string' ? input.provider.toLowerCase() : undefined),
};

/** The input fields that are business ids, under the names our log lines give them. */
const ID_FIELDS: Record<string, string> = {
  organizationId: 'organization_id',
  quoteId: 'quote_id',
  deliveryId: 'delivery_id',
  endpointId: 'endpoint_id',
  provider: 'provider',
};

function firstArgument(args: readonly unknown[]): Record<string, unknown> {
  const input = args[0];
  return typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
}

/**
 * Around every activity:
 * - its log lines (our pino logger, through the log context's mixin) carry the workflow id, run
 *   id, activity type and attempt, and the business ids of its input;
 * - provider calls are counted by provider and outcome, webhook attempts and deliveries by outcome;
 * - a failed provider leg and a webhook delivery that failed are logged at warn with their ids.
 */
export function activityInterceptors(deps: { logger: Logger; metrics?: WorkerMetrics | undefined; liveness?: WorkerLiveness | undefined }): (ctx: Context) => ActivityInterceptors {
  return (ctx) => {
    const inbound: ActivityInboundCallsInterceptor = {
      async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>) {
        const info = ctx.info;
        const args = firstArgument(input.args);
        // Every activity of ours runs in a workflow (none is started standalone).
        const fields: Record<string, string | number> = { activity_type: info.activityType, attempt: info.attempt };
        if (info.workflowExecution) Object.assign(fields, { workflow_id: info.workflowExecution.workflowId, run_id: info.workflowExecution.runId });
        if (info.workflowType) fields.workflow_type = info.workflowType;
        for (const [key, field] of Object.entries(ID_FIELDS)) {
          const value = args[key];
          if (typeof value === 'string' || typeof value === 'number') fields[field] = value;
        }
        return runWithLogContext({ fields }, async () => {
          const provider = PROVIDER_OF_ACTIVITY[info.activityType]?.(args);
          try {
            const result = await next(input);
            if (provider) deps.metrics?.providerCalls.inc({ provider, outcome: 'succeeded' });
            observe(info.activityType, args, result, deps);
            return result;
          } catch (error) {
            if (provider) deps.metrics?.providerCalls.inc({ provider, outcome: outcomeOf(error) });
            throw error;
          } finally {
            // A task that ended, either way, is progress (worker/liveness.ts).
            deps.liveness?.taskCompleted();
          }
        });
      },
    };
    return { inbound };
  };
}

function outcomeOf(error: unknown): ProviderCallOutcome {
  return error instanceof ApplicationFailure && error.nonRetryable ? 'refused' : 'failed';
}

/** What some activities' results mean for an operator. */
function observe(activityType: string, args: Record<string, unknown>, result: unknown, deps: { logger: Logger; metrics?: WorkerMetrics | undefined }): void {
  switch (activityType) {
    case 'deliverWebhookBatch': {
      // A batch reports its attempts by outcome and the deliveries it ended.
      const report = result as { attempts?: Record<string, number>; delivered?: number; failed?: number; missed?: number; timedOut?: number; failedIds?: string[] } | undefined;
      if (!report?.attempts) return;
      for (const [outcome, count] of Object.entries(report.attempts)) if (count > 0) deps.metrics?.webhookAttempts.inc({ outcome }, count);
      for (const outcome of ['delivered', 'failed', 'missed'] as const) if ((report[outcome] ?? 0) > 0) deps.metrics?.webhookDeliveries.inc({ outcome }, report[outcome]);
      const notDelivered = (report.attempts.retryable_failure ?? 0) + (report.attempts.permanent_failure ?? 0);
      if (notDelivered > 0) deps.logger.info({ not_delivered: notDelivered, timed_out: report.timedOut ?? 0 }, 'webhook delivery attempts did not deliver');
      for (const deliveryId of report.failedIds ?? []) deps.logger.warn({ delivery_id: deliveryId, delivery_status: 'failed' }, 'webhook delivery failed');
      if ((report.missed ?? 0) > 0) deps.logger.warn({ delivery_status: 'missed', count: report.missed }, 'webhook delivery missed: its endpoint is disabled');
      return;
    }
    case 'recordSyncFailed':
      deps.logger.warn({ last_error: args.lastError }, 'provider leg failed: its sync record is FAILED and awaits a repair');
      return;
    default:
      return;
  }
}
