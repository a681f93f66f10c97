import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The `payments_webhook_events` table (section 4.5): every provider event id we processed, so a
 * redelivery is acknowledged and ignored. It is not a tenant table: an ignored event may name no
 * tenant at all.
 */

export async function paymentsEventSeen(em: EntityManager, eventId: string): Promise<boolean> {
  const [seen] = await em.execute<{ event_id: string }[]>('select event_id from payments_webhook_events where event_id = ?', [eventId]);
  return seen !== undefined;
}

/** An event we acknowledge without acting on it. */
export async function recordIgnoredPaymentsEvent(em: EntityManager, eventId: string, eventType: string): Promise<void> {
  await em.execute('insert into payments_webhook_events (event_id, event_type, handled) values (?, ?, false) on conflict do nothing', [eventId, eventType]);
}

/** False when a concurrent delivery of the same event recorded it first. */
export async function recordHandledPaymentsEvent(em: EntityManager, eventId: string, eventType: string): Promise<boolean> {
  const inserted = await em.execute<{ event_id: string }[]>(
    'insert into payments_webhook_events (event_id, event_type, handled) values (?, ?, true) on conflict do nothing returning event_id',
    [eventId, eventType],
  );
  return inserted.length > 0;
}
