import type { EntityManager } from '@mikro-orm/postgresql';
import { beyond, keyset, microseconds, TimeAndId } from '../cursor';
import { tablesOf } from '../tables';
import { inTenant } from '../tenant-scope';
import { formatsCarrying, type EventEnvelope, type WebhookFormat } from '../../domain/events/catalogue';

/** One delivery series of one event to one endpoint (D6); a replay is the next series. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  series: number;
  /** The endpoint's format (D13), which picks the delivery's envelope, window and schedule. */
  format: WebhookFormat;
}

const RETURNING = `id, event_id, endpoint_id, series, (select format from webhook_endpoints e where e.id = endpoint_id) as format`;

/**
 * The `webhook_deliveries` table (section 6, D6). Everything runs in the event's own tenant, so
 * an event can never reach another tenant's endpoint.
 */

/**
 * One delivery per (event, endpoint) for every endpoint of the event's tenant subscribed to it:
 * `pending` for an enabled endpoint, `missed` for a disabled one (replayed when it is re-enabled).
 * Only endpoints of a format whose catalogue carries the event are subscribed to it (D13): a
 * `core` endpoint's "*" means every core event, never `quote.created`. Only endpoints created
 * no later than the event are (Stripe's rule: docs/webhooks.md). Returns the pending ones, whose
 * workflows are to be started.
 */
export async function createDeliveriesForEvent(em: EntityManager, envelope: EventEnvelope): Promise<DeliveryRow[]> {
  return createDeliveriesForEvents(em, envelope.organization_id, [envelope]);
}

/**
 * The same for many events of one tenant in one transaction (the relay's batches):
 * one insert for all of them, then their pending deliveries.
 */
export async function createDeliveriesForEvents(em: EntityManager, organizationId: string, envelopes: readonly EventEnvelope[]): Promise<DeliveryRow[]> {
  if (envelopes.length === 0) return [];
  const events = JSON.stringify(envelopes.map((e) => ({ event_id: e.id, event: e.event, formats: formatsCarrying(e.event), created_at: e.created_at })));
  return inTenant(em, organizationId, async (tx) => {
    // An endpoint gets only the events created at or after its own creation (Stripe's rule): an
    // event fanned out late (the relay behind, a coalesced dispatch) never reaches an endpoint
    // registered after the event's `created_at`, which the receiver would see predate it. To the
    // millisecond, as `created_at` is written.
    await tx.execute(
      `insert into webhook_deliveries (organization_id, endpoint_id, event_id, event, series, status)
       select app_current_organization(), e.id, r.event_id, r.event, 0, case when e.status = 'enabled' then 'pending' else 'missed' end
         from jsonb_to_recordset(?::jsonb) as r(event_id uuid, event text, formats jsonb, created_at timestamptz)
         join webhook_endpoints e
           on (e.events @> array[r.event]::text[] or e.events @> array['*']::text[])
          and e.format in (select jsonb_array_elements_text(r.formats))
          and date_trunc('milliseconds', e.created_at) <= r.created_at
       on conflict (event_id, endpoint_id, series) do nothing`,
      [events],
    );
    return tx.execute<DeliveryRow[]>(`select ${RETURNING} from webhook_deliveries where event_id in (select (jsonb_array_elements(?::jsonb)->>'event_id')::uuid) and status = 'pending'`, [events]);
  });
}

/** D6 replay: the next series of the same event (same envelope id) to the same endpoint. */
export async function createReplayDelivery(em: EntityManager, organizationId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  return inTenant(em, organizationId, async (tx) => {
    const [source] = await tx.execute<{ event_id: string; endpoint_id: string; event: string; is_test: boolean }[]>('select event_id, endpoint_id, event, is_test from webhook_deliveries where id = ?', [deliveryId]);
    if (!source) return undefined;
    // A test event's replay is a test event too (the page and the receiver's header say so).
    const [created] = await tx.execute<DeliveryRow[]>(
      `insert into webhook_deliveries (organization_id, endpoint_id, event_id, event, series, status, is_test)
       values (app_current_organization(), ?, ?, ?, (select coalesce(max(series), -1) + 1 from webhook_deliveries where event_id = ? and endpoint_id = ?), 'pending', ?)
       returning ${RETURNING}`,
      [source.endpoint_id, source.event_id, source.event, source.event_id, source.endpoint_id, source.is_test],
    );
    return created;
  });
}

/**
 * Svix-style recovery: the next series of every event whose latest delivery to the endpoint
 * failed, of the events recorded at or after `since`, each once, due one microsecond apart in
 * the order the events were recorded (outbox sequence), so that the endpoint's workflow claims
 * them in that order and sends them one after another (db/webhooks/batches.ts: replays go out
 * in order). An event still pending or already delivered in a later series is left alone, so a
 * second recovery re-sends nothing the first one did. Runs in the caller's tenant transaction;
 * returns the new deliveries, oldest event first.
 */
export async function createRecoveryDeliveries(tx: EntityManager, endpointId: string, since: string): Promise<DeliveryRow[]> {
  const rows = await tx.execute<(DeliveryRow & { sequence: string })[]>(
    `with latest as (
       select distinct on (d.event_id) d.event_id, d.event, d.series, d.status, d.is_test
         from webhook_deliveries d where d.endpoint_id = ?
        order by d.event_id, d.series desc
     ), chosen as (
       select l.event_id, l.event, l.series, l.is_test, o.sequence,
              row_number() over (order by o.sequence) as position, count(*) over () as total
         from latest l join outbox_events o on o.id = l.event_id
        where l.status = 'failed' and o.created_at >= ?::timestamptz
     ), inserted as (
       insert into webhook_deliveries (organization_id, endpoint_id, event_id, event, series, status, is_test, next_attempt_at)
       select app_current_organization(), ?, c.event_id, c.event, c.series + 1, 'pending', c.is_test,
              now() - make_interval(secs => (c.total - c.position + 1) / 1000000.0)
         from chosen c
       on conflict (event_id, endpoint_id, series) do nothing
       returning ${RETURNING}
     )
     select i.*, c.sequence from inserted i join chosen c on c.event_id = i.event_id order by c.sequence`,
    [endpointId, since, endpointId],
  );
  return rows.map(({ sequence: _sequence, ...row }) => row);
}

/**
 * A test event to one endpoint (the deliveries page): its one pending delivery, marked as a test.
 * Runs in the transaction that recorded the event as already dispatched, so no one else gets it.
 */
export async function createTestDelivery(tx: EntityManager, endpointId: string, envelope: Pick<EventEnvelope, 'id' | 'event'>): Promise<DeliveryRow> {
  const [created] = await tx.execute<DeliveryRow[]>(
    `insert into webhook_deliveries (organization_id, endpoint_id, event_id, event, series, status, is_test)
     values (app_current_organization(), ?, ?, ?, 0, 'pending', true)
     returning ${RETURNING}`,
    [endpointId, envelope.id, envelope.event],
  );
  return created!;
}

/** What an endpoint missed while disabled, oldest first. */
export async function missedDeliveries(em: EntityManager, organizationId: string, endpointId: string): Promise<DeliveryRow[]> {
  return inTenant(em, organizationId, (tx) =>
    tx.execute<DeliveryRow[]>(`select ${RETURNING} from webhook_deliveries where endpoint_id = ? and status = 'missed' order by created_at`, [endpointId]),
  );
}

/** A missed delivery that is being replayed ends as failed, pointing at its replay. */
export async function closeMissedDelivery(em: EntityManager, organizationId: string, deliveryId: string): Promise<void> {
  await inTenant(em, organizationId, (tx) => tx.execute(`update webhook_deliveries set status = 'failed', last_error = 'missed while disabled; replayed' where id = ?`, [deliveryId]));
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'missed';

export interface DeliveryListRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event: string;
  series: number;
  status: DeliveryStatus;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
  /** When a pending delivery's next attempt is due (null once it ended). */
  next_attempt_at: Date | null;
  is_test: boolean;
  cursor_created_at: string;
}

/** Newest first: (created_at, id) descending. */
export const DELIVERY_KEYSET = keyset(TimeAndId, (row: DeliveryListRow) => [row.cursor_created_at, row.id] as const);

export interface DeliveryFilter {
  endpointId?: string | undefined;
  status?: DeliveryStatus | undefined;
  event?: string | undefined;
}

/**
 * One page of the tenant's deliveries (`limit` + 1 rows), newest first, after (created_at, id),
 * narrowed by endpoint, status and event (D13's deliveries page). Runs in the tenant transaction.
 */
export function deliveryPage(em: EntityManager, filter: DeliveryFilter, after: readonly [string, string] | undefined, limit: number): Promise<DeliveryListRow[]> {
  let query = tablesOf(em)
    .selectFrom('webhook_deliveries as d')
    .select((eb) => [
      'd.id',
      'd.endpoint_id',
      'd.event_id',
      'd.event',
      'd.series',
      eb.ref('d.status').$castTo<DeliveryStatus>().as('status'),
      'd.attempts',
      'd.last_error',
      'd.created_at',
      'd.updated_at',
      'd.delivered_at',
      eb.case().when('d.status', '=', 'pending').then(eb.ref('d.next_attempt_at')).else(null).end().as('next_attempt_at'),
      'd.is_test',
      microseconds(eb.ref('d.created_at')).as('cursor_created_at'),
    ]);
  if (filter.endpointId) query = query.where('d.endpoint_id', '=', filter.endpointId);
  if (filter.status) query = query.where('d.status', '=', filter.status);
  if (filter.event) query = query.where('d.event', '=', filter.event);
  if (after) query = query.where((eb) => beyond([eb.ref('d.created_at'), eb.ref('d.id')], 'desc', after));
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit + 1).execute();
}
