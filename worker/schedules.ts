import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { QUOTE_EXPIRY_SCHEDULE_ID, WORKFLOW_TYPES, type ExpireQuotesWorkflow } from '../infra/temporal/contracts';

export { QUOTE_EXPIRY_SCHEDULE_ID };

/**
 * The Temporal schedules the service relies on, created when a worker starts (creating one that
 * exists is a no-op): D3's quote expiry, hourly, never overlapping itself.
 */
export async function ensureSchedules(client: Client, taskQueue: string, scheduleId = QUOTE_EXPIRY_SCHEDULE_ID): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      action: { type: 'startWorkflow', workflowType: WORKFLOW_TYPES.expireQuotes, taskQueue, args: [{}] satisfies Parameters<ExpireQuotesWorkflow> },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
