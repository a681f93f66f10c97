import { Client, Connection } from '@temporalio/client';
import { WORKFLOW_TYPES, type RoundTripWorkflow } from '../../infra/temporal/contracts';

/** Runs the empty workflow once, proving that the server answers and a worker polls. */
export async function runRoundTrip(options: { address: string; namespace: string; taskQueue: string }): Promise<void> {
  const connection = await Connection.connect({ address: options.address });
  try {
    const client = new Client({ connection, namespace: options.namespace });
    const sentAt = new Date().toISOString();
    const result = await client.workflow.execute<RoundTripWorkflow>(WORKFLOW_TYPES.roundTrip, {
      taskQueue: options.taskQueue,
      workflowId: `startup-round-trip-${Date.now()}`,
      args: [{ sentAt }],
      workflowExecutionTimeout: '2 minutes',
    });
    if (result.sentAt !== sentAt) throw new Error('the round-trip workflow answered something else');
  } finally {
    await connection.close();
  }
}
