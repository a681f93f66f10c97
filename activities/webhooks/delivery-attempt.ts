import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import type { CredentialCipher } from '../../api/security/credential-cipher';
import { signingSecrets, type EndpointSecretsRow } from '../../api/webhooks/endpoint-secrets';
import { deliverOnce, type DeliveryAttemptResult } from './deliver';
import { signPayload, WEBHOOK_HEADERS } from './signature';
import type { Resolver } from './address-policy';
import { MAX_DELIVERY_ATTEMPTS } from '../../workflows/webhook-backoff';

/** D6: an endpoint whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 72 * 3600 * 1000;

export interface WebhookDeliveryDeps {
  em: EntityManager;
  cipher: CredentialCipher | undefined;
  allowPrivateNetworks: boolean;
  /** OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK (development): loopback receivers only. */
  allowLoopback?: boolean | undefined;
  /** Tests inject DNS answers; production resolves for real, at connect time. */
  lookup?: Resolver | undefined;
  timeoutMs?: number | undefined;
  now?: () => Date;
}

type DeliveryRow = EndpointSecretsRow & {
  delivery_status: string;
  event_id: string;
  event: string;
  payload: string;
  url: string;
  endpoint_status: string;
};

export type AttemptResult = { finished: 'delivered' | 'failed' | 'missed' | null; outcome: DeliveryAttemptResult['outcome'] | null };

/**
 * One attempt of one delivery (section 6.3): sign the fixed payload afresh, POST it through the
 * connect-time address guard, log the attempt, and keep the endpoint's failure clock. A disabled
 * endpoint is not called: the delivery is marked missed, to be replayed when it is re-enabled.
 */
export async function attemptWebhookDelivery(deps: WebhookDeliveryDeps, input: { organizationId: string; deliveryId: string; attempt: number }): Promise<AttemptResult> {
  const now = deps.now ?? (() => new Date());
  const [row] = await inTenant(deps.em, input.organizationId, (tx) =>
    tx.execute<DeliveryRow[]>(
      `select d.status as delivery_status, d.event_id, d.event, coalesce(o.payload, o.envelope::text) as payload,
              e.id, e.url, e.status as endpoint_status, e.secret_ciphertext, e.secret_key_id,
              e.previous_secret_ciphertext, e.previous_secret_key_id, e.previous_secret_expires_at
         from webhook_deliveries d
         join webhook_endpoints e on e.id = d.endpoint_id
         join outbox_events o on o.id = d.event_id
        where d.id = ?`,
      [input.deliveryId],
    ),
  );
  if (!row) return { finished: 'failed', outcome: null }; // the endpoint was deleted with its deliveries
  if (row.delivery_status === 'delivered') return { finished: 'delivered', outcome: null };
  if (row.endpoint_status !== 'enabled') {
    await finishWebhookDelivery(deps.em, { organizationId: input.organizationId, deliveryId: input.deliveryId, status: 'missed', error: 'endpoint disabled' });
    return { finished: 'missed', outcome: null };
  }
  if (!deps.cipher) throw new Error('webhook secrets cannot be read: no credential encryption key is configured');

  const signature = signPayload({ secrets: signingSecrets(deps.cipher, row, now()), body: row.payload, timestamp: Math.floor(now().getTime() / 1000) });
  const result = await deliverOnce({
    url: row.url,
    body: row.payload,
    headers: { [WEBHOOK_HEADERS.event]: row.event, [WEBHOOK_HEADERS.delivery]: row.event_id, [WEBHOOK_HEADERS.signature]: signature },
    allowPrivateNetworks: deps.allowPrivateNetworks,
    allowLoopback: deps.allowLoopback ?? false,
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
    ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
  });

  const finished: AttemptResult['finished'] =
    result.outcome === 'delivered' ? 'delivered' : result.outcome === 'permanent_failure' || input.attempt >= MAX_DELIVERY_ATTEMPTS ? 'failed' : null;
  const error = result.error ?? (result.status !== null && result.outcome !== 'delivered' ? `HTTP ${result.status}` : null);
  await inTenant(deps.em, input.organizationId, async (tx) => {
    await tx.execute(
      `insert into webhook_delivery_attempts (organization_id, delivery_id, endpoint_id, event_id, event, attempt, outcome, response_status, error, duration_ms, response_excerpt)
       values (app_current_organization(), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [input.deliveryId, row.id, row.event_id, row.event, input.attempt, result.outcome, result.status, error, Math.round(result.durationMs), result.responseExcerpt],
    );
    await tx.execute(
      `update webhook_deliveries set attempts = ?, last_error = ?, updated_at = clock_timestamp(),
              status = coalesce(?, status), delivered_at = case when ? = 'delivered' then clock_timestamp() else delivered_at end
        where id = ?`,
      [input.attempt, error, finished, finished, input.deliveryId],
    );
    if (result.outcome === 'delivered') {
      await tx.execute('update webhook_endpoints set failing_since = null where id = ?', [row.id]);
    } else {
      // The failure clock starts at the first failure after a success; 72 hours of nothing but
      // failures disables the endpoint (D6).
      await tx.execute('update webhook_endpoints set failing_since = coalesce(failing_since, ?::timestamptz), updated_at = now() where id = ?', [now(), row.id]);
      await tx.execute(
        `update webhook_endpoints set status = 'disabled', disabled_reason = 'failing for 72 hours'
          where id = ? and status = 'enabled' and failing_since <= ?::timestamptz`,
        [row.id, new Date(now().getTime() - DISABLE_AFTER_FAILING_MS)],
      );
    }
  });
  return { finished, outcome: result.outcome };
}

export async function finishWebhookDelivery(em: EntityManager, input: { organizationId: string; deliveryId: string; status: 'failed' | 'missed'; error?: string }): Promise<void> {
  await inTenant(em, input.organizationId, (tx) =>
    tx.execute(`update webhook_deliveries set status = ?, last_error = coalesce(?, last_error), updated_at = clock_timestamp() where id = ? and status = 'pending'`, [
      input.status,
      input.error ?? null,
      input.deliveryId,
    ]),
  );
}
