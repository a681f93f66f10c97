import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import type { CredentialCipher } from '../../db/security/credential-cipher';
import { signingSecrets } from '../../db/webhooks/endpoint-secrets';
import { eventPayloadForEndpoint } from '../../db/versions/pins';
import { deliveryForAttempt, recordDeliveryAttempt } from '../../db/webhooks/attempts';
import { finishDelivery } from '../../db/webhooks/deliveries';
import { clearEndpointFailing, recordEndpointFailure } from '../../db/webhooks/endpoints';
import { deliverOnce, type DeliveryAttemptResult } from './deliver';
import { signPayload, WEBHOOK_HEADERS } from './signature';
import type { Resolver } from './address-policy';

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

/**
 * What one attempt found: the receiver's verdict (section 6.3 rule 4), or why nothing was sent.
 * The attempt only reports; the delivery workflow decides what follows (retry, give up, miss).
 */
export type AttemptReport =
  | { outcome: DeliveryAttemptResult['outcome']; disabled?: EndpointDisabled }
  | { outcome: 'already_delivered' | 'endpoint_disabled' | 'endpoint_deleted' };

/** This attempt's failure disabled the endpoint (D6): the workflow then sends the one notice (D13). */
export interface EndpointDisabled {
  endpointId: string;
  /** ISO time; with the endpoint, the key of the notice. */
  disabledAt: string;
}

/**
 * One attempt of one delivery (section 6.3): sign the fixed payload afresh, POST it through the
 * connect-time address guard, log the attempt, and keep the endpoint's failure clock. A disabled
 * endpoint is not called. A success is recorded with its attempt (one transaction), so a crash
 * after it can never send the event again; every other ending is the workflow's to record.
 */
export async function attemptWebhookDelivery(deps: WebhookDeliveryDeps, input: { organizationId: string; deliveryId: string; attempt: number }): Promise<AttemptReport> {
  const now = deps.now ?? (() => new Date());
  const row = await inTenant(deps.em, input.organizationId, (tx) => deliveryForAttempt(tx, input.deliveryId));
  if (!row) return { outcome: 'endpoint_deleted' }; // deleted with its deliveries
  if (row.delivery_status === 'delivered') return { outcome: 'already_delivered' };
  if (row.endpoint_status !== 'enabled') return { outcome: 'endpoint_disabled' };
  if (!deps.cipher) throw new Error('webhook secrets cannot be read: no credential encryption key is configured');
  row.payload = await inTenant(deps.em, input.organizationId, (tx) => eventPayloadForEndpoint(tx, row.id, row.payload)); // D16: the endpoint's pinned version

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

  const error = result.error ?? (result.status !== null && result.outcome !== 'delivered' ? `HTTP ${result.status}` : null);
  const disabledAt = await inTenant(deps.em, input.organizationId, async (tx) => {
    await recordDeliveryAttempt(tx, {
      deliveryId: input.deliveryId,
      endpointId: row.id,
      eventId: row.event_id,
      event: row.event,
      attempt: input.attempt,
      outcome: result.outcome,
      responseStatus: result.status,
      error,
      durationMs: Math.round(result.durationMs),
      responseExcerpt: result.responseExcerpt,
      requestHeaders: result.requestHeaders ?? null,
      requestBody: result.requestHeaders ? row.payload : null,
      responseHeaders: result.responseHeaders ?? null,
    });
    if (result.outcome === 'delivered') {
      await clearEndpointFailing(tx, row.id);
      return undefined;
    }
    // The failure clock starts at the first failure after a success; 72 hours of nothing but
    // failures disables the endpoint (D6). The one place an endpoint is disabled automatically.
    return recordEndpointFailure(tx, row.id, now(), new Date(now().getTime() - DISABLE_AFTER_FAILING_MS));
  });
  return disabledAt ? { outcome: result.outcome, disabled: { endpointId: row.id, disabledAt: disabledAt.toISOString() } } : { outcome: result.outcome };
}

export async function finishWebhookDelivery(em: EntityManager, input: { organizationId: string; deliveryId: string; status: 'failed' | 'missed'; error?: string }): Promise<void> {
  await finishDelivery(em, input.organizationId, input);
}
