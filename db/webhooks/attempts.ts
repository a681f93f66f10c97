import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { beyond, keyset, microseconds, TimeAndId } from '../cursor';
import { tablesOf } from '../tables';

/**
 * The `webhook_delivery_attempts` log (section 6.3): the shape of one attempt as a batch records
 * it (db/webhooks/batches.ts), and the pages the API reads. Every function runs inside the
 * delivery's tenant transaction.
 */

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

/**
 * The given endpoints' attempts of the last 24 hours and how many were delivered (the deliveries
 * page's success rate). Endpoints without an attempt in that time are absent.
 */
export async function attemptOutcomesOfLastDay(em: EntityManager, endpointIds: readonly string[]): Promise<Map<string, { attempts: number; delivered: number }>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await tablesOf(em)
    .selectFrom('webhook_delivery_attempts as a')
    .select((eb) => ['a.endpoint_id', eb.fn.countAll<string>().as('attempts'), eb.fn.count<string>(eb.case().when('a.outcome', '=', 'delivered').then(1).end()).as('delivered')])
    .where('a.endpoint_id', 'in', endpointIds)
    .where('a.attempted_at', '>', sql<Date>`now() - interval '24 hours'`)
    .groupBy('a.endpoint_id')
    .execute();
  return new Map(rows.map((row) => [row.endpoint_id, { attempts: Number(row.attempts), delivered: Number(row.delivered) }]));
}
