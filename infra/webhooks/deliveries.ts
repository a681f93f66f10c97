import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventEnvelope, OutboxEventName } from '../../domain/events/catalogue';
import { inTenant } from '../../db/tenant-scope';
import { endpointsToWake, markDeliveryIdle } from '../../db/webhooks/batches';
import { closeMissedDelivery, createDeliveriesForEvents, createRecoveryDeliveries, createReplayDelivery, createTestDelivery, missedDeliveries, type DeliveryRow } from '../../db/webhooks/deliveries';
import { lockEndpoint, type EndpointRow } from '../../db/webhooks/endpoints';
import { recordDispatchedEvent } from '../../db/events/outbox';
import type { EventData } from '../../domain/events/event-data';
import type { WebhookWorkflows } from '../temporal/webhook-workflows';

/**
 * Section 6 and D6 as a feature: the deliveries an event calls for (db/webhooks/deliveries.ts)
 * and the workflow that carries them (infra/temporal/webhook-workflows.ts): each endpoint's one
 * delivery workflow, woken once the rows are committed.
 */
export class WebhookDeliveries {
  constructor(
    private readonly em: EntityManager,
    private readonly workflows: WebhookWorkflows,
  ) {}

  async fanOut(envelope: EventEnvelope): Promise<void> {
    await this.fanOutMany(envelope.organization_id, [envelope]);
  }

  /** Many events of one tenant: their deliveries in one transaction, each endpoint woken once. */
  async fanOutMany(organizationId: string, envelopes: readonly EventEnvelope[]): Promise<void> {
    const pending = await createDeliveriesForEvents(this.em, organizationId, envelopes);
    await this.wake(organizationId, pending);
  }

  /** D6 replay: a new series of attempts of the same event (same envelope id) to the same endpoint. */
  async replay(organizationId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
    const next = await createReplayDelivery(this.em, organizationId, deliveryId);
    if (next) await this.wake(organizationId, [next]);
    return next;
  }

  /**
   * A test event to one endpoint: `choose` sees the endpoint (locked) and names the event and its
   * data, or refuses; the event is recorded already dispatched with its one delivery, then the
   * endpoint's workflow is woken. Undefined when there is no such endpoint.
   */
  async sendTest<N extends OutboxEventName>(organizationId: string, endpointId: string, choose: (endpoint: EndpointRow) => { event: N; data: EventData<N> }): Promise<DeliveryRow | undefined> {
    const delivery = await inTenant(this.em, organizationId, async (tx) => {
      const endpoint = await lockEndpoint(tx, endpointId);
      if (!endpoint) return undefined;
      const { event, data } = choose(endpoint);
      const envelope = await recordDispatchedEvent(tx, organizationId, event, data);
      return createTestDelivery(tx, endpointId, envelope);
    });
    if (delivery) await this.wake(organizationId, [delivery]);
    return delivery;
  }

  /**
   * Recovery (Svix's "recover failed messages"): every event the endpoint failed that was
   * recorded at or after `since`, re-sent once each, in the order the events happened, with
   * their envelope ids. `check` sees the endpoint (locked) and may refuse; `record` runs in the
   * same transaction with what was recovered (the audit entry). Undefined when there is no such
   * endpoint.
   */
  async recover(
    organizationId: string,
    endpointId: string,
    since: string,
    hooks: { check: (endpoint: EndpointRow) => void; record: (tx: EntityManager, recovered: readonly DeliveryRow[]) => Promise<void> },
  ): Promise<DeliveryRow[] | undefined> {
    const recovered = await inTenant(this.em, organizationId, async (tx) => {
      const endpoint = await lockEndpoint(tx, endpointId);
      if (!endpoint) return undefined;
      hooks.check(endpoint);
      const rows = await createRecoveryDeliveries(tx, endpointId, since);
      await hooks.record(tx, rows);
      return rows;
    });
    if (recovered) await this.wake(organizationId, recovered);
    return recovered;
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

  /**
   * After the rows are committed: signal (with start) the workflow of each endpoint that is idle,
   * once per idle period rather than once per event (db/webhooks/batches.ts, endpointsToWake).
   */
  private async wake(organizationId: string, deliveries: readonly DeliveryRow[]): Promise<void> {
    if (deliveries.length === 0) return;
    const formats = new Map(deliveries.map((d) => [d.endpoint_id, d.format]));
    const woken = await inTenant(this.em, organizationId, (tx) => endpointsToWake(tx, [...formats.keys()]));
    for (const endpointId of woken) {
      try {
        await this.workflows.wake(organizationId, { endpointId, format: formats.get(endpointId)! });
      } catch (error) {
        // Not signalled (Temporal down): idle again, so the relay's retry of this event signals.
        await inTenant(this.em, organizationId, (tx) => markDeliveryIdle(tx, endpointId)).catch(() => undefined);
        throw error;
      }
    }
  }
}
