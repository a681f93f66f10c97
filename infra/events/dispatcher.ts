import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { EventEnvelope } from '../../domain/events/catalogue';
import { markEventDispatched, markEventsDispatched } from '../../db/events/outbox';
import type { EndpointDeliveryLimits, Timing } from '../temporal/contracts';
import { EventWorkflows } from '../temporal/event-workflows';
import { WebhookWorkflows } from '../temporal/webhook-workflows';
import { WebhookDeliveries } from '../webhooks/deliveries';
import { tenantSubdomainsFrom } from '../temporal/tenant-subdomains';

/**
 * Starts the workflows an outbox event calls for (its own, and wakes the delivery workflow of each
 * subscribed endpoint once its delivery rows are committed), then marks the event dispatched. Used twice: by the API right after its
 * commit (the fast path) and by the worker's relay for whatever the fast path did not finish
 * (the API died, Temporal was down). Starting twice is harmless.
 */
export class EventDispatcher {
  readonly webhooks: WebhookDeliveries;
  private readonly workflows: EventWorkflows;

  constructor(
    client: Client,
    private readonly em: EntityManager,
    private readonly options: { taskQueue: string; timing?: Timing; logger: Logger; endpointLimits?: Partial<EndpointDeliveryLimits> },
  ) {
    const subdomains = tenantSubdomainsFrom(em);
    this.workflows = new EventWorkflows(client, { ...options, subdomains });
    this.webhooks = new WebhookDeliveries(em, new WebhookWorkflows(client, { ...options, subdomains }));
  }

  /** True when every workflow of the event is running or has run. */
  async dispatch(envelope: EventEnvelope): Promise<boolean> {
    await this.workflows.startFor(envelope);
    await this.webhooks.fanOut(envelope);
    await markEventDispatched(this.em, envelope.organization_id, envelope.id);
    return true;
  }

  /**
   * Many events at once (the relay's leased batch): each event's own workflows, then the
   * deliveries of each tenant's events in one transaction, each endpoint woken once, then all
   * marked dispatched. A failure leaves them all undispatched for a retry (starting twice is harmless).
   */
  async dispatchMany(envelopes: readonly EventEnvelope[]): Promise<void> {
    const byTenant = new Map<string, EventEnvelope[]>();
    for (const envelope of envelopes) {
      const events = byTenant.get(envelope.organization_id);
      if (events) events.push(envelope);
      else byTenant.set(envelope.organization_id, [envelope]);
    }
    for (const [organizationId, events] of byTenant) {
      for (const envelope of events) await this.workflows.startFor(envelope);
      await this.webhooks.fanOutMany(organizationId, events);
      await markEventsDispatched(this.em, organizationId, events.map((e) => e.id));
    }
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

  /**
   * The API's fast path for the events of one commit (a job move records two or three): dispatched
   * together, so the last of them is not held back by the transactions of the ones before it
   * (commit-to-receipt). Never fails the request; the relay retries what is left.
   */
  async tryDispatchAll(envelopes: readonly EventEnvelope[]): Promise<boolean> {
    if (envelopes.length === 0) return true;
    try {
      await this.dispatchMany(envelopes);
      return true;
    } catch (error) {
      this.options.logger.warn({ err: error, event_ids: envelopes.map((e) => e.id) }, 'events not dispatched yet; the relay will retry');
      return false;
    }
  }
}
