import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { leaseUndispatchedEvents } from '../db/events/outbox';
import { dueDispatchDays } from '../db/fsm/routes';
import { flushDueDispatches } from '../db/fsm/dispatch-events';
import { inTenant } from '../db/tenant-scope';
import type { EventDispatcher } from '../infra/events/dispatcher';

const BATCH = 50;
const LEASE_SECONDS = 60;
/** The API dispatches its own events at once; the relay takes what is still undispatched after this. */
export const RELAY_GRACE_SECONDS = 2;

/**
 * Guarantees that every committed event gets its workflows, even when the process that
 * committed it died before starting them: leases undispatched outbox rows (across tenants,
 * through the one security-definer door), dispatches each, and leaves failures for the next
 * round once their lease runs out. Several relays may run; leases keep them apart.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly em: EntityManager,
    private readonly dispatcher: EventDispatcher,
    private readonly logger: Logger,
    private readonly intervalMs = 1000,
  ) {}

  start(): void {
    const tick = () => {
      this.running = this.drainOnce()
        .then(() => undefined, (error: unknown) => this.logger.error({ err: error }, 'outbox relay round failed'))
        .finally(() => {
          if (this.timer !== undefined) this.timer = setTimeout(tick, this.intervalMs);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One round; returns how many events were dispatched. */
  async drainOnce(): Promise<number> {
    let dispatched = await this.flushDueDispatches();
    for (;;) {
      const leased = await leaseUndispatchedEvents(this.em, { batch: BATCH, leaseSeconds: LEASE_SECONDS, graceSeconds: RELAY_GRACE_SECONDS });
      if (leased.length === 0) return dispatched;
      // The batch at once (one transaction of deliveries, not one per event); if that
      // fails, one by one, so that one event in trouble does not hold back the others.
      try {
        await this.dispatcher.dispatchMany(leased);
        dispatched += leased.length;
        continue;
      } catch (error) {
        this.logger.warn({ err: error, events: leased.length }, 'could not dispatch the batch at once; one by one');
      }
      for (const envelope of leased) {
        try {
          await this.dispatcher.dispatch(envelope);
          dispatched++;
        } catch (error) {
          this.logger.warn({ err: error, event_id: envelope.id }, 'could not dispatch event; will retry after its lease');
        }
      }
      if (leased.length < BATCH) return dispatched;
    }
  }

  /**
   * D23's trailing `dispatch.updated` of routes whose coalescing window has ended: recorded in
   * each tenant's transaction, then dispatched at once (what fails here the lease above retries).
   */
  private async flushDueDispatches(): Promise<number> {
    let told = 0;
    let days: Awaited<ReturnType<typeof dueDispatchDays>>;
    try {
      days = await dueDispatchDays(this.em, BATCH);
    } catch (error) {
      // Never in the way of the outbox itself.
      this.logger.warn({ err: error }, 'could not read the routes whose coalesced change is due; next round');
      return 0;
    }
    for (const day of days) {
      try {
        const events = await inTenant(this.em, day.organization_id, (tx) => flushDueDispatches(tx, day.route_date));
        await this.dispatcher.tryDispatchAll(events);
        told += events.length;
      } catch (error) {
        this.logger.warn({ err: error, organization_id: day.organization_id, date: day.route_date }, 'could not tell the coalesced route changes; next round');
      }
    }
    return told;
  }
}
