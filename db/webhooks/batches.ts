import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookFormat } from '../../domain/events/catalogue';
import type { EndpointSecretsRow } from './endpoint-secrets';
import type { AttemptRecord } from './attempts';

/**
 * An endpoint's deliveries taken in batches by its one delivery workflow
 * (docs/webhook-delivery.md). Every function runs inside the endpoint's tenant transaction.
 *
 * A pending delivery is due at its `next_attempt_at` (the column's default is the moment the row
 * is written; the workflow's retry decisions move it on).
 */

/** The endpoint as a batch needs it: address, format, version pin, secrets and tenant. */
export type EndpointForBatch = EndpointSecretsRow & {
  url: string;
  status: 'enabled' | 'disabled';
  format: WebhookFormat;
  api_version: string | null;
  subdomain: string;
  /** D22: when the endpoint's workspace was suspended (its deliveries are held), null when it is not. */
  suspended_at: Date | null;
};

export async function endpointForBatch(em: EntityManager, endpointId: string): Promise<EndpointForBatch | undefined> {
  const [row] = await em.execute<EndpointForBatch[]>(
    `select e.id, e.url, e.status, e.format, e.api_version, org.subdomain, org.suspended_at, e.secret_ciphertext, e.secret_key_id,
            e.previous_secret_ciphertext, e.previous_secret_key_id, e.previous_secret_expires_at
       from webhook_endpoints e join organizations org on org.id = e.organization_id
      where e.id = ?`,
    [endpointId],
  );
  return row;
}

/** One claimed delivery: its next attempt's number and the stored event it carries. */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  event: string;
  /** The attempt about to be made (attempts so far + 1). */
  attempt: number;
  /** 0 for the event's first delivery to the endpoint; more for a replay (sent in order, below). */
  series: number;
  /** A test event from the deliveries page (the receiver is told so by a header). */
  is_test: boolean;
  payload: string;
}

/**
 * Claims up to `limit` due deliveries of the endpoint for the batch `token`, oldest due first,
 * leased for `leaseSeconds`. Rows held by another live batch are skipped (`skip locked` for the
 * moment of the claim, the lease after it); rows already held by this same token are taken back
 * (the same batch activity retried after its worker died), so a crash redelivers at once.
 * Of replays (series above 0: one replay, what a disabled endpoint missed, a recovery) at most
 * `replayLimit` are taken: the batch sends them one after another in this order (their lane's
 * time fits the lease, which counts `limit / concurrency` rounds). Returned oldest due first.
 * Marks the endpoint's workflow as seen in the same transaction.
 */
export async function claimDueDeliveries(em: EntityManager, input: { endpointId: string; token: string; limit: number; replayLimit?: number; leaseSeconds: number }): Promise<ClaimedDelivery[]> {
  if (input.limit <= 0) return [];
  await em.execute('update webhook_endpoints set delivery_seen_at = clock_timestamp() where id = ?', [input.endpointId]);
  const due = (series: string) => `select id, next_attempt_at from webhook_deliveries
        where endpoint_id = ? and status = 'pending' and ${series} and next_attempt_at <= clock_timestamp()
          and (claimed_until is null or claimed_until < clock_timestamp() or claimed_by = ?)
        order by next_attempt_at, id
        limit ? for update skip locked`;
  return em.execute<ClaimedDelivery[]>(
    `with first_series as (${due('series = 0')}), replays as (${due('series > 0')}),
     due as (
       select id from (select * from first_series union all select * from replays) u order by next_attempt_at, id limit ?
     ), claimed as (
       update webhook_deliveries d set claimed_by = ?, claimed_until = clock_timestamp() + make_interval(secs => ?)
         from due where d.id = due.id
       returning d.id, d.event_id, d.event, d.attempts + 1 as attempt, d.series, d.is_test, d.next_attempt_at
     )
     select c.id, c.event_id, c.event, c.attempt, c.series, c.is_test, coalesce(o.payload, o.envelope::text) as payload
       from claimed c join outbox_events o on o.id = c.event_id
      order by c.next_attempt_at, c.id`,
    [input.endpointId, input.token, input.limit, input.endpointId, input.token, Math.min(input.limit, input.replayLimit ?? input.limit), input.limit, input.token, input.leaseSeconds],
  );
}

/** How a batch's attempt left its delivery. */
export type BatchOutcome =
  /** 2xx: delivered. */
  | { deliveryId: string; ending: 'delivered' }
  /** Not retried (section 6.3 rule 4, a refusal, a 410): failed. */
  | { deliveryId: string; ending: 'failed' }
  /** To be retried or given up by the workflow's schedule; pending, held until it decides. */
  | { deliveryId: string; ending: 'retry' };

/**
 * Records a batch's attempts (one multi-row insert) and their deliveries (one update): delivered
 * and failed end; a retryable failure stays pending, out of reach (`next_attempt_at` an hour on,
 * as a fallback) until the workflow records its schedule's decision (`applyRetryDecisions`).
 * Only rows still held by `token` change: a batch whose lease ran out and whose rows another
 * batch took records its attempts but leaves the rows to the newer batch.
 */
export async function recordBatchAttempts(em: EntityManager, token: string, attempts: readonly (AttemptRecord & { ending: BatchOutcome['ending'] })[]): Promise<void> {
  if (attempts.length === 0) return;
  const rows = attempts.map((a) => ({
    delivery_id: a.deliveryId,
    endpoint_id: a.endpointId,
    event_id: a.eventId,
    event: a.event,
    attempt: a.attempt,
    outcome: a.outcome,
    response_status: a.responseStatus,
    error: a.error,
    duration_ms: a.durationMs,
    response_excerpt: a.responseExcerpt,
    request_headers: a.requestHeaders,
    request_body: a.requestBody,
    response_headers: a.responseHeaders,
    ending: a.ending,
  }));
  // One JSON parameter for the whole batch: the query builder would spread arrays into values.
  await em.execute(
    `insert into webhook_delivery_attempts (organization_id, delivery_id, endpoint_id, event_id, event, attempt, outcome, response_status, error, duration_ms, response_excerpt,
                                            request_headers, request_body, response_headers)
     select app_current_organization(), r.delivery_id, r.endpoint_id, r.event_id, r.event, r.attempt, r.outcome, r.response_status, r.error, r.duration_ms, r.response_excerpt,
            r.request_headers, r.request_body, r.response_headers
       from jsonb_to_recordset(?::jsonb) as r(delivery_id uuid, endpoint_id uuid, event_id uuid, event text, attempt int, outcome text, response_status int, error text,
                                              duration_ms int, response_excerpt text, request_headers jsonb, request_body text, response_headers jsonb)
      -- A delivery deleted meanwhile (its endpoint deleted mid-batch) has nothing to log against.
      where exists (select 1 from webhook_deliveries d where d.id = r.delivery_id)`,
    [JSON.stringify(rows)],
  );
  await em.execute(
    `update webhook_deliveries d
        set attempts = r.attempt, last_error = r.error, updated_at = clock_timestamp(),
            status = case r.ending when 'delivered' then 'delivered' when 'failed' then 'failed' else d.status end,
            delivered_at = case when r.ending = 'delivered' then clock_timestamp() else d.delivered_at end,
            next_attempt_at = case when r.ending = 'retry' then clock_timestamp() + interval '1 hour' else d.next_attempt_at end,
            claimed_by = null, claimed_until = null
       from jsonb_to_recordset(?::jsonb) as r(delivery_id uuid, attempt int, error text, ending text)
      where d.id = r.delivery_id and d.status = 'pending' and d.claimed_by = ?`,
    [JSON.stringify(rows.map(({ delivery_id, attempt, error, ending }) => ({ delivery_id, attempt, error, ending }))), token],
  );
}

/** Claimed rows a batch did not attempt (its endpoint's breaker tripped mid-batch): free again at once. */
export async function releaseDeliveries(em: EntityManager, token: string, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await em.execute(`update webhook_deliveries set claimed_by = null, claimed_until = null where claimed_by = ? and id in (select jsonb_array_elements_text(?::jsonb)::uuid)`, [
    token,
    JSON.stringify(deliveryIds),
  ]);
}

/** The workflow's schedule decision after a retryable failure of attempt `attempt`. */
export type RetryDecision = { deliveryId: string; attempt: number; delayMs: number } | { deliveryId: string; attempt: number; exhausted: true };

/**
 * Records the schedule's decisions: the next attempt `delayMs` from now, or failed once the
 * attempts are used up (their ids are returned). Keyed by the attempt decided on, so applying them twice (a retried
 * activity) changes nothing more, and a delivery that moved on meanwhile is left alone.
 */
export async function applyRetryDecisions(em: EntityManager, decisions: readonly RetryDecision[]): Promise<string[]> {
  if (decisions.length === 0) return [];
  const rows = decisions.map((d) => ({ delivery_id: d.deliveryId, attempt: d.attempt, delay_ms: 'exhausted' in d ? null : d.delayMs }));
  const updated = await em.execute<{ id: string; status: string }[]>(
    `update webhook_deliveries d
        set next_attempt_at = case when r.delay_ms is null then d.next_attempt_at else clock_timestamp() + make_interval(secs => r.delay_ms / 1000.0) end,
            status = case when r.delay_ms is null then 'failed' else d.status end,
            updated_at = clock_timestamp()
       from jsonb_to_recordset(?::jsonb) as r(delivery_id uuid, attempt int, delay_ms bigint)
      where d.id = r.delivery_id and d.status = 'pending' and d.attempts = r.attempt
      returning d.id, d.status`,
    [JSON.stringify(rows)],
  );
  return updated.filter((row) => row.status === 'failed').map((row) => row.id);
}

/**
 * A disabled endpoint's pending deliveries (those of its workflow) become missed: re-enabling it
 * replays them (D6). Returns how many.
 */
export async function missPendingDeliveries(em: EntityManager, endpointId: string): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    `update webhook_deliveries set status = 'missed', last_error = 'endpoint disabled', claimed_by = null, claimed_until = null, updated_at = clock_timestamp()
      where endpoint_id = ? and status = 'pending' and next_attempt_at is not null returning id`,
    [endpointId],
  );
  return rows.length;
}

/** When the endpoint's next pending delivery falls due (milliseconds from now, 0 if due), or null when none is pending. */
export async function nextDueInMs(em: EntityManager, endpointId: string): Promise<number | null> {
  // Null with no pending row (greatest() would turn the empty min's null into 0).
  const [row] = await em.execute<{ due_in_ms: number | null }[]>(
    `select ceil(extract(epoch from (min(greatest(next_attempt_at, coalesce(claimed_until, next_attempt_at))) - clock_timestamp())) * 1000)::float8 as due_in_ms
       from webhook_deliveries where endpoint_id = ? and status = 'pending' and next_attempt_at is not null`,
    [endpointId],
  );
  const dueInMs = row?.due_in_ms;
  return dueInMs === null || dueInMs === undefined ? null : Math.max(0, dueInMs);
}

/**
 * The futex of the dispatcher's wake-up (docs/webhook-delivery.md): the workflow marks itself idle,
 * then looks for due work once more. A delivery committed before the look is found by it; one
 * committed after finds the endpoint idle, and its dispatcher signals.
 */
export async function markDeliveryIdle(em: EntityManager, endpointId: string, idle = true): Promise<void> {
  await em.execute('update webhook_endpoints set delivery_idle = ?, delivery_seen_at = clock_timestamp() where id = ?', [idle, endpointId]);
}

/** A workflow that has not reported for this long is signalled again (signal-with-start), idle or not. */
export const DELIVERY_WORKFLOW_STALE_SECONDS = 600;

/**
 * Of these endpoints, the ones whose delivery workflow is to be signalled: idle, or silent for
 * DELIVERY_WORKFLOW_STALE_SECONDS. Marks them awake, so further events do not signal again.
 */
export async function endpointsToWake(em: EntityManager, endpointIds: readonly string[]): Promise<string[]> {
  if (endpointIds.length === 0) return [];
  const rows = await em.execute<{ id: string }[]>(
    `update webhook_endpoints set delivery_idle = false, delivery_seen_at = clock_timestamp()
      where id in (select jsonb_array_elements_text(?::jsonb)::uuid)
        and (delivery_idle or delivery_seen_at is null or delivery_seen_at < clock_timestamp() - make_interval(secs => ?))
      returning id`,
    [JSON.stringify([...new Set(endpointIds)]), DELIVERY_WORKFLOW_STALE_SECONDS],
  );
  return rows.map((row) => row.id);
}
