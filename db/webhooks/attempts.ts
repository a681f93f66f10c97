import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookFormat } from '../../domain/events/catalogue';
import { beyond, keyset, microseconds, TimeAndId } from '../cursor';
import { tablesOf } from '../tables';
import type { EndpointSecretsRow } from './endpoint-secrets';

/**
 * One attempt of one delivery (section 6.3): what it reads before sending and what it records
 * after, in `webhook_delivery_attempts` and its delivery row. Every function runs inside the
 * delivery's tenant transaction.
 */

export type DeliveryForAttempt = EndpointSecretsRow & {
  delivery_status: string;
  event_id: string;
  event: string;
  payload: string;
  url: string;
  endpoint_status: string;
  /** D13: the endpoint's format and (events) pinned version. */
  format: WebhookFormat;
  api_version: string | null;
  /** The tenant's workspace subdomain (a D1 sandbox one is not live). */
  subdomain: string;
};

/** The delivery with its fixed payload and its endpoint's address and secrets; none once the endpoint is deleted. */
export async function deliveryForAttempt(em: EntityManager, deliveryId: string): Promise<DeliveryForAttempt | undefined> {
  const [row] = await em.execute<DeliveryForAttempt[]>(
    `select d.status as delivery_status, d.event_id, d.event, coalesce(o.payload, o.envelope::text) as payload,
            e.id, e.url, e.status as endpoint_status, e.format, e.api_version, org.subdomain, e.secret_ciphertext, e.secret_key_id,
            e.previous_secret_ciphertext, e.previous_secret_key_id, e.previous_secret_expires_at
       from webhook_deliveries d
       join webhook_endpoints e on e.id = d.endpoint_id
       join outbox_events o on o.id = d.event_id
       join organizations org on org.id = d.organization_id
      where d.id = ?`,
    [deliveryId],
  );
  return row;
}

export interface AttemptRecord {
  deliveryId: string;
  endpointId: string;
  eventId: string;
  event: string;
  attempt: number;
  outcome: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  responseExcerpt: string | null;
  /** The request as sent (D13); null when nothing could be sent. */
  requestHeaders: Record<string, string> | null;
  requestBody: string | null;
  responseHeaders: Record<string, string> | null;
}

/** Logs the attempt and brings its delivery up to date; a delivered attempt marks the delivery delivered. */
export async function recordDeliveryAttempt(em: EntityManager, attempt: AttemptRecord): Promise<void> {
  await em.execute(
    `insert into webhook_delivery_attempts (organization_id, delivery_id, endpoint_id, event_id, event, attempt, outcome, response_status, error, duration_ms, response_excerpt,
                                            request_headers, request_body, response_headers)
     values (app_current_organization(), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb)`,
    [
      attempt.deliveryId, attempt.endpointId, attempt.eventId, attempt.event, attempt.attempt, attempt.outcome, attempt.responseStatus, attempt.error, attempt.durationMs, attempt.responseExcerpt,
      attempt.requestHeaders && JSON.stringify(attempt.requestHeaders), attempt.requestBody, attempt.responseHeaders && JSON.stringify(attempt.responseHeaders),
    ],
  );
  const delivered = attempt.outcome === 'delivered' ? 'delivered' : null;
  await em.execute(
    `update webhook_deliveries set attempts = ?, last_error = ?, updated_at = clock_timestamp(),
            status = coalesce(?, status), delivered_at = case when ? = 'delivered' then clock_timestamp() else delivered_at end
      where id = ?`,
    [attempt.attempt, attempt.error, delivered, delivered, attempt.deliveryId],
  );
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  event_id: string;
  event: string;
  attempt: number;
  outcome: 'delivered' | 'retryable_failure' | 'permanent_failure';
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  response_excerpt: string | null;
  request_headers: Record<string, string> | null;
  request_body: string | null;
  response_headers: Record<string, string> | null;
  attempted_at: Date;
}

/** One page of an endpoint's attempts (`limit` + 1 rows), newest first, after (attempted_at, id). */
export function attemptPage(
  em: EntityManager,
  endpointId: string,
  after: readonly [string, string] | undefined,
  limit: number,
  filter: { deliveryId?: string | undefined } = {},
): Promise<(AttemptRow & { cursor_attempted_at: string })[]> {
  let query = tablesOf(em)
    .selectFrom('webhook_delivery_attempts as a')
    .select((eb) => [
      'a.id',
      'a.delivery_id',
      'a.event_id',
      'a.event',
      'a.attempt',
      eb.ref('a.outcome').$castTo<AttemptRow['outcome']>().as('outcome'),
      'a.response_status',
      'a.error',
      'a.duration_ms',
      'a.response_excerpt',
      eb.ref('a.request_headers').$castTo<AttemptRow['request_headers']>().as('request_headers'),
      'a.request_body',
      eb.ref('a.response_headers').$castTo<AttemptRow['response_headers']>().as('response_headers'),
      'a.attempted_at',
      microseconds(eb.ref('a.attempted_at')).as('cursor_attempted_at'),
    ])
    .where('a.endpoint_id', '=', endpointId);
  if (filter.deliveryId) query = query.where('a.delivery_id', '=', filter.deliveryId);
  if (after) query = query.where((eb) => beyond([eb.ref('a.attempted_at'), eb.ref('a.id')], 'desc', after));
  return query.orderBy('a.attempted_at', 'desc').orderBy('a.id', 'desc').limit(limit + 1).execute();
}

/** Newest first: (attempted_at, id) descending. */
export const ATTEMPT_KEYSET = keyset(TimeAndId, (row: { cursor_attempted_at: string; id: string }) => [row.cursor_attempted_at, row.id] as const);
