import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventEnvelope } from '../../db/events/catalogue';
import { closeMissedDelivery, createDeliveriesForEvent, createReplayDelivery, missedDeliveries, type DeliveryRow } from '../../db/webhooks/deliveries';
import type { WebhookWorkflows } from '../temporal/webhook-workflows';

/**
 * Section 6 and D6 as a feature: the deliveries an event calls for (db/webhooks/deliveries.ts)
 * and the workflow that carries each (activities/temporal/webhook-workflows.ts).
 */
export class WebhookDeliveries {
  constructor(
    private readonly em: EntityManager,
    private readonly workflows: WebhookWorkflows,
  ) {}

  async fanOut(envelope: EventEnvelope): Promise<void> {
    const quoteId = (envelope.data as { quote_id?: unknown }).quote_id;
    for (const delivery of await createDeliveriesForEvent(this.em, envelope)) await this.workflows.start(envelope.organization_id, delivery, { quoteId: typeof quoteId === 'string' ? quoteId : undefined });
  }

  /** D6 replay: a new series of attempts of the same event (same envelope id) to the same endpoint. */
  async replay(organizationId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
    const next = await createReplayDelivery(this.em, organizationId, deliveryId);
    if (next) await this.workflows.start(organizationId, next);
    return next;
  }

  /** D6: re-enabling an endpoint replays what it missed while disabled. */
  async replayMissed(organizationId: string, endpointId: string): Promise<number> {
    const missed = await missedDeliveries(this.em, organizationId, endpointId);
    for (const delivery of missed) {
      await closeMissedDelivery(this.em, organizationId, delivery.id);
      await this.replay(organizationId, delivery.id);
    }
    return missed.length;
  }
}
