import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * What the notice of a disabled endpoint (D13) reads and records, in the endpoint's tenant
 * transaction: the endpoint, its latest failures, and the one notice per disabling.
 */

export interface DisabledEndpointRow {
  id: string;
  url: string;
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
}

export async function endpointForNotice(em: EntityManager, endpointId: string): Promise<DisabledEndpointRow | undefined> {
  const [row] = await em.execute<DisabledEndpointRow[]>(
    'select id, url, description, status, disabled_at, disabled_reason, failing_since from webhook_endpoints where id = ?',
    [endpointId],
  );
  return row;
}

export interface FailedAttemptRow {
  event: string;
  event_id: string;
  attempt: number;
  response_status: number | null;
  error: string | null;
  attempted_at: Date;
}

/** The endpoint's latest failed attempts, newest first. */
export function latestFailedAttempts(em: EntityManager, endpointId: string, limit: number): Promise<FailedAttemptRow[]> {
  return em.execute<FailedAttemptRow[]>(
    `select event, event_id, attempt, response_status, error, attempted_at from webhook_delivery_attempts
      where endpoint_id = ? and outcome <> 'delivered' order by attempted_at desc, id desc limit ?`,
    [endpointId, limit],
  );
}

/**
 * Claims the notice of one disabling (endpoint and disabled_at): true for the first caller only.
 * A concurrent second caller waits on the unique key until the first commits, then gets false;
 * if the first rolls back (its mail failed) the second claims it.
 */
export async function claimDisabledNotice(em: EntityManager, notice: { endpointId: string; disabledAt: Date; recipient: string; messageId: string }): Promise<boolean> {
  const inserted = await em.execute<{ id: string }[]>(
    `insert into webhook_endpoint_notices (organization_id, endpoint_id, disabled_at, recipient, message_id)
     values (app_current_organization(), ?, ?, ?, ?) on conflict (endpoint_id, disabled_at) do nothing returning id`,
    [notice.endpointId, notice.disabledAt, notice.recipient, notice.messageId],
  );
  return inserted.length > 0;
}
