import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookFormat } from '../../domain/events/catalogue';
import { keyset, TimeAndId } from '../cursor';

/**
 * The `webhook_endpoints` table (D6). Every function runs inside the tenant transaction of the
 * endpoint's tenant (db/tenant-scope.ts); a signing secret arrives here already sealed.
 */

export interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  /** D13: fixed at registration. */
  format: WebhookFormat;
  /** D16: the version an `events` endpoint pinned at registration; null for the other formats. */
  api_version: string | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: Date;
}

const COLUMNS = 'id, url, events, description, status, format, api_version, disabled_at, disabled_reason, created_at';

export async function insertEndpoint(
  em: EntityManager,
  endpoint: {
    id: string;
    url: string;
    events: readonly string[];
    description: string | null;
    format: WebhookFormat;
    apiVersion: string | null;
    sealed: { ciphertext: string; keyId: string };
  },
): Promise<EndpointRow | undefined> {
  const [row] = await em.execute<EndpointRow[]>(
    `insert into webhook_endpoints (id, organization_id, url, events, description, status, format, api_version, secret_ciphertext, secret_key_id)
     values (?, app_current_organization(), ?, array(select jsonb_array_elements_text(?::jsonb)), ?, 'enabled', ?, ?, ?, ?) returning ${COLUMNS}`,
    // Lists travel as JSON: the query builder would spread a JS array into separate values.
    [endpoint.id, endpoint.url, JSON.stringify(endpoint.events), endpoint.description, endpoint.format, endpoint.apiVersion, endpoint.sealed.ciphertext, endpoint.sealed.keyId],
  );
  return row;
}

/** Oldest first: (created_at to the microsecond, id). */
export const ENDPOINT_KEYSET = keyset(TimeAndId, (row: EndpointRow & { cursor_created_at: string }) => [row.cursor_created_at, row.id] as const);

/** One page (`limit` + 1 rows), oldest first, after a position of ENDPOINT_KEYSET. */
export function listEndpoints(em: EntityManager, page: { after?: readonly [string, string] | undefined; limit: number }): Promise<(EndpointRow & { cursor_created_at: string })[]> {
  const [where, params] = page.after ? [`where (created_at, id) > (?::timestamptz, ?::uuid)`, [...page.after]] : ['', []];
  return em.execute<(EndpointRow & { cursor_created_at: string })[]>(
    `select ${COLUMNS}, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_created_at
       from webhook_endpoints ${where} order by created_at, id limit ?`,
    [...params, page.limit + 1],
  );
}

/** The endpoint, locked until the transaction ends. */
export async function lockEndpoint(em: EntityManager, id: string): Promise<EndpointRow | undefined> {
  const [row] = await em.execute<EndpointRow[]>(`select ${COLUMNS} from webhook_endpoints where id = ? for update`, [id]);
  return row;
}

export interface EndpointChanges {
  url?: string | undefined;
  events?: readonly string[] | undefined;
  /** `null` clears the description; absent leaves it. */
  description?: string | null | undefined;
  status?: 'enabled' | 'disabled' | undefined;
}

/**
 * Applies what the change names and leaves the rest. Disabling by hand records why; enabling
 * clears the reason and the failure clock.
 */
export async function updateEndpoint(em: EntityManager, id: string, body: EndpointChanges): Promise<EndpointRow | undefined> {
  const [after] = await em.execute<EndpointRow[]>(
    `update webhook_endpoints set url = coalesce(?, url),
            events = case when ?::jsonb is null then events else array(select jsonb_array_elements_text(?::jsonb)) end,
            description = case when ? then ? else description end,
            status = coalesce(?, status),
            disabled_reason = case when ? = 'disabled' then 'disabled by an administrator' when ? = 'enabled' then null else disabled_reason end,
            disabled_at = case when ? = 'disabled' and status = 'enabled' then now() when ? = 'enabled' then null else disabled_at end,
            failing_since = case when ? = 'enabled' then null else failing_since end,
            updated_at = now()
      where id = ? returning ${COLUMNS}`,
    [body.url ?? null, body.events ? JSON.stringify(body.events) : null, body.events ? JSON.stringify(body.events) : null, body.description !== undefined, body.description ?? null, body.status ?? null, body.status ?? null, body.status ?? null, body.status ?? null, body.status ?? null, body.status ?? null, id],
  );
  return after;
}

/** D6: the current secret becomes the previous one, still signing for `overlapHours`. */
export async function rotateEndpointSecret(em: EntityManager, id: string, sealed: { ciphertext: string; keyId: string }, overlapHours: number): Promise<EndpointRow | undefined> {
  const [row] = await em.execute<EndpointRow[]>(
    `update webhook_endpoints
        set previous_secret_ciphertext = secret_ciphertext, previous_secret_key_id = secret_key_id,
            previous_secret_expires_at = now() + make_interval(hours => ?),
            secret_ciphertext = ?, secret_key_id = ?, updated_at = now()
      where id = ? returning ${COLUMNS}`,
    [overlapHours, sealed.ciphertext, sealed.keyId, id],
  );
  return row;
}

/** False when there was no such endpoint. */
export async function deleteEndpoint(em: EntityManager, id: string): Promise<boolean> {
  const deleted = await em.execute<{ id: string }[]>('delete from webhook_endpoints where id = ? returning id', [id]);
  return deleted.length > 0;
}

export async function endpointExists(em: EntityManager, id: string): Promise<boolean> {
  const [endpoint] = await em.execute<{ id: string }[]>('select id from webhook_endpoints where id = ?', [id]);
  return endpoint !== undefined;
}

/** A delivered attempt stops the endpoint's failure clock. */
export async function clearEndpointFailing(em: EntityManager, id: string): Promise<void> {
  await em.execute('update webhook_endpoints set failing_since = null where id = ?', [id]);
}

/**
 * A failed attempt starts the failure clock (unless it runs already), then disables an enabled
 * endpoint whose clock started at or before `disableIfFailingSince` (D6 and D13: 72 hours of
 * failures for `core` and `events`, 24 hours for `field`), recording `reason`.
 * Returns when it was disabled, if this call disabled it: that moment keys the one email (D13).
 */
export async function recordEndpointFailure(em: EntityManager, id: string, now: Date, disableIfFailingSince: Date, reason = 'failing for 72 hours'): Promise<Date | undefined> {
  await em.execute('update webhook_endpoints set failing_since = coalesce(failing_since, ?::timestamptz), updated_at = now() where id = ?', [now, id]);
  const [disabled] = await em.execute<{ disabled_at: Date }[]>(
    `update webhook_endpoints set status = 'disabled', disabled_reason = ?, disabled_at = ?::timestamptz
      where id = ? and status = 'enabled' and failing_since <= ?::timestamptz returning disabled_at`,
    [reason, now, id, disableIfFailingSince],
  );
  return disabled ? new Date(disabled.disabled_at) : undefined;
}

/** Why an endpoint whose receiver answered 410 is disabled. */
export const GONE_REASON = 'the receiver answered 410 Gone';

/** D13: a receiver that answers 410 Gone disables its endpoint at once, in every format. */
export async function disableGoneEndpoint(em: EntityManager, id: string, now: Date): Promise<Date | undefined> {
  const [disabled] = await em.execute<{ disabled_at: Date }[]>(
    `update webhook_endpoints set status = 'disabled', disabled_reason = ?, disabled_at = ?::timestamptz,
            failing_since = coalesce(failing_since, ?::timestamptz), updated_at = now()
      where id = ? and status = 'enabled' returning disabled_at`,
    [GONE_REASON, now, now, id],
  );
  return disabled ? new Date(disabled.disabled_at) : undefined;
}
