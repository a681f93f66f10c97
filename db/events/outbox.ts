import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventEnvelope, OutboxEventName } from '../../domain/events/catalogue';
import type { EventData, PendingEvent } from '../../domain/events/event-data';
import { inTenant } from '../tenant-scope';

/**
 * Records an event in the outbox inside the caller's tenant transaction: it commits with the
 * change it describes or not at all. The envelope (6.1) is fixed here, id and created_at
 * included, so every delivery and replay carries the same bytes of data. The data is typed by
 * the event's name (domain/events/event-data.ts), so a payload of another shape does not compile.
 */
export function recordEvent<N extends OutboxEventName>(em: EntityManager, organizationId: string, event: N, data: EventData<N>, at: Date = new Date()): Promise<EventEnvelope<EventData<N>>> {
  return insertEnvelope(em, organizationId, event, data, at);
}

/** Records events decided elsewhere (domain/), in their order, each at its own time. */
export async function recordEvents(em: EntityManager, organizationId: string, events: readonly PendingEvent[]): Promise<EventEnvelope[]> {
  const recorded: EventEnvelope[] = [];
  for (const pending of events) recorded.push(await insertEnvelope(em, organizationId, pending.event, pending.data, pending.at));
  return recorded;
}

async function insertEnvelope<D>(em: EntityManager, organizationId: string, event: OutboxEventName, data: D, at: Date): Promise<EventEnvelope<D>> {
  const envelope: EventEnvelope<D> = { event, id: randomUUID(), organization_id: organizationId, created_at: at.toISOString(), data };
  const payload = JSON.stringify(envelope);
  await em.execute(`insert into outbox_events (id, organization_id, event, envelope, payload, created_at) values (?, ?, ?, ?::jsonb, ?, ?)`, [
    envelope.id,
    organizationId,
    event,
    payload,
    payload,
    envelope.created_at,
  ]);
  return envelope;
}

/**
 * Marks an event whose workflows have all been started (the relay then leaves it alone), scoped
 * to the event's tenant: neither process may mark another tenant's events.
 */
export async function markEventDispatched(em: EntityManager, organizationId: string, eventId: string): Promise<void> {
  await markEventsDispatched(em, organizationId, [eventId]);
}

/**
 * An event addressed to one endpoint alone (a test event): recorded already dispatched, in the
 * caller's tenant transaction, so the relay never fans it out to the tenant's other endpoints.
 */
export async function recordDispatchedEvent<N extends OutboxEventName>(tx: EntityManager, organizationId: string, event: N, data: EventData<N>, at: Date = new Date()): Promise<EventEnvelope<EventData<N>>> {
  const envelope = await insertEnvelope(tx, organizationId, event, data, at);
  await tx.execute('select outbox_mark_dispatched_in_tenant(array[?]::uuid[])', [envelope.id]);
  return envelope;
}

/** The same for many events of one tenant, in one statement. */
export async function markEventsDispatched(em: EntityManager, organizationId: string, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await inTenant(em, organizationId, (tx) => tx.execute('select outbox_mark_dispatched_in_tenant(array(select jsonb_array_elements_text(?::jsonb))::uuid[])', [JSON.stringify(eventIds)]));
}

/**
 * Leases undispatched events across tenants through the one security-definer door (the relay's
 * only cross-tenant read): at most `batch`, each held `leaseSeconds`, none younger than
 * `graceSeconds` (the API dispatches its own at once).
 */
export async function leaseUndispatchedEvents(em: EntityManager, options: { batch: number; leaseSeconds: number; graceSeconds: number }): Promise<EventEnvelope[]> {
  const rows = await em.fork().execute<{ envelope: EventEnvelope }[]>('select envelope from outbox_lease(?, ?, ?)', [options.batch, options.leaseSeconds, options.graceSeconds]);
  return rows.map((row) => row.envelope);
}
