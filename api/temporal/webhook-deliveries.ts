import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import type { EventEnvelope } from '../events/catalogue';
import type { Timing } from '../../workflows/activity-profiles';
import { OrganizationIdKey } from '../../workflows/search-attributes';

/** One delivery series of one event to one endpoint; a replay is the next series. */
export const webhookWorkflowId = (eventId: string, endpointId: string, series: number) => `webhook-${eventId}-${endpointId}-${series}`;

interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  series: number;
}

/**
 * Starts delivery workflows (section 6, D6): one per (event, endpoint) for every enabled
 * endpoint of the event's tenant subscribed to it; a disabled endpoint's share is kept as a
 * `missed` delivery, replayed when it is re-enabled. Everything runs in the event's own tenant,
 * so an event can never reach another tenant's endpoint.
 */
export class WebhookDeliveries {
  constructor(
    private readonly client: Client,
    private readonly em: EntityManager,
    private readonly options: { taskQueue: string; timing?: Timing },
  ) {}

  async fanOut(envelope: EventEnvelope): Promise<void> {
    const pending = await inTenant(this.em, envelope.organization_id, async (tx) => {
      await tx.execute(
        `insert into webhook_deliveries (organization_id, endpoint_id, event_id, event, series, status)
         select app_current_organization(), e.id, ?, ?, 0, case when e.status = 'enabled' then 'pending' else 'missed' end
           from webhook_endpoints e
          where e.events @> array[?]::text[] or e.events @> array['*']::text[]
         on conflict (event_id, endpoint_id, series) do nothing`,
        [envelope.id, envelope.event, envelope.event],
      );
      return tx.execute<DeliveryRow[]>(`select id, event_id, endpoint_id, series from webhook_deliveries where event_id = ? and status = 'pending'`, [envelope.id]);
    });
    for (const delivery of pending) await this.start(envelope.organization_id, delivery);
  }

  /** D6 replay: a new series of attempts of the same event (same envelope id) to the same endpoint. */
  async replay(organizationId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
    const next = await inTenant(this.em, organizationId, async (tx) => {
      const [source] = await tx.execute<(DeliveryRow & { event: string })[]>('select id, event_id, endpoint_id, series, event from webhook_deliveries where id = ?', [deliveryId]);
      if (!source) return undefined;
      const [created] = await tx.execute<DeliveryRow[]>(
        `insert into webhook_deliveries (organization_id, endpoint_id, event_id, event, series, status)
         values (app_current_organization(), ?, ?, ?, (select coalesce(max(series), -1) + 1 from webhook_deliveries where event_id = ? and endpoint_id = ?), 'pending')
         returning id, event_id, endpoint_id, series`,
        [source.endpoint_id, source.event_id, source.event, source.event_id, source.endpoint_id],
      );
      return created;
    });
    if (next) await this.start(organizationId, next);
    return next;
  }

  /** D6: re-enabling an endpoint replays what it missed while disabled. */
  async replayMissed(organizationId: string, endpointId: string): Promise<number> {
    const missed = await inTenant(this.em, organizationId, (tx) =>
      tx.execute<DeliveryRow[]>(`select id, event_id, endpoint_id, series from webhook_deliveries where endpoint_id = ? and status = 'missed' order by created_at`, [endpointId]),
    );
    for (const delivery of missed) {
      await inTenant(this.em, organizationId, (tx) => tx.execute(`update webhook_deliveries set status = 'failed', last_error = 'missed while disabled; replayed' where id = ?`, [delivery.id]));
      await this.replay(organizationId, delivery.id);
    }
    return missed.length;
  }

  private async start(organizationId: string, delivery: DeliveryRow): Promise<void> {
    try {
      await this.client.workflow.start('deliverWebhook', {
        taskQueue: this.options.taskQueue,
        workflowId: webhookWorkflowId(delivery.event_id, delivery.endpoint_id, delivery.series),
        args: [{ organizationId, deliveryId: delivery.id, timing: this.options.timing ?? {} }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [{ key: OrganizationIdKey, value: organizationId }],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}
