import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { EventEnvelope } from '../events/catalogue';
import type { Timing } from '../../workflows/activity-profiles';
import { inTenant } from '../../db/tenant-scope';
import { workflowsForEvent } from './event-workflows';
import { WebhookDeliveries } from './webhook-deliveries';

/**
 * Starts the workflows an outbox event calls for, then marks the event dispatched. Used twice:
 * by the API right after its commit (the fast path) and by the worker's relay for whatever the
 * fast path did not finish (the API died, Temporal was down). Starting twice is harmless.
 */
export class EventDispatcher {
  readonly webhooks: WebhookDeliveries;

  constructor(
    private readonly client: Client,
    private readonly em: EntityManager,
    private readonly options: { taskQueue: string; timing?: Timing; logger: Logger },
  ) {
    this.webhooks = new WebhookDeliveries(client, em, options);
  }

  /** True when every workflow of the event is running or has run. */
  async dispatch(envelope: EventEnvelope): Promise<boolean> {
    for (const start of workflowsForEvent(envelope, this.options.timing ?? {})) {
      try {
        await this.client.workflow.start(start.workflowType, {
          taskQueue: this.options.taskQueue,
          workflowId: start.workflowId,
          args: start.args,
          typedSearchAttributes: start.searchAttributes,
          workflowIdReusePolicy: start.idReusePolicy,
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    }
    await this.webhooks.fanOut(envelope);
    // Scoped to the event's tenant: neither process may mark another tenant's events.
    await inTenant(this.em, envelope.organization_id, (tx) => tx.execute('select outbox_mark_dispatched_in_tenant(array[?]::uuid[])', [envelope.id]));
    return true;
  }

  /** For the API's fast path: never fails the request; the relay will retry. */
  async tryDispatch(envelope: EventEnvelope): Promise<boolean> {
    try {
      return await this.dispatch(envelope);
    } catch (error) {
      this.options.logger.warn({ err: error, event_id: envelope.id }, 'event not dispatched yet; the relay will retry');
      return false;
    }
  }
}
