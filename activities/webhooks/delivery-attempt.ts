import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import type { CredentialCipher } from '../../db/security/credential-cipher';
import { signingSecrets } from '../../db/webhooks/endpoint-secrets';
import { eventPayloadForEndpoint } from '../../db/versions/pins';
import { deliveryForAttempt, recordDeliveryAttempt } from '../../db/webhooks/attempts';
import { finishDelivery } from '../../db/webhooks/deliveries';
import { clearEndpointFailing, disableGoneEndpoint, recordEndpointFailure } from '../../db/webhooks/endpoints';
import { SANDBOX_TENANTS } from '../../db/sandbox';
import type { WebhookFormat } from '../../domain/events/catalogue';
import { deliverOnce, type DeliveryAttemptResult } from './deliver';
import { signPayload } from '../../infra/webhooks/signature';
import { FORMAT_RULES, formatHeaders, renderBody } from '../../domain/webhooks/formats';
import type { Resolver } from '../../infra/webhooks/address-policy';

const SANDBOX_SUBDOMAINS: ReadonlySet<string> = new Set(SANDBOX_TENANTS.map((t) => t.subdomain));

/** One attempt's input: `clockScale` (tests) shortens the failure clock as the workflow's timing shortens its waits. */
export interface AttemptInput {
  organizationId: string;
  deliveryId: string;
  attempt: number;
  clockScale?: number;
}

export interface WebhookDeliveryDeps {
  em: EntityManager;
  cipher: CredentialCipher | undefined;
  allowPrivateNetworks: boolean;
  /** OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK (development): loopback receivers only. */
  allowLoopback?: boolean | undefined;
  /** Tests inject DNS answers; production resolves for real, at connect time. */
  lookup?: Resolver | undefined;
  /** Overrides every format's response window (tests of the core format). */
  timeoutMs?: number | undefined;
  /** Multiplies each format's response window (tests: an events window of 300 s in 3 s). */
  responseWindowScale?: number | undefined;
  now?: () => Date;
}

/**
 * What one attempt found: the receiver's verdict (section 6.3 rule 4), or why nothing was sent.
 * The attempt only reports; the delivery workflow decides what follows (retry, give up, miss).
 */
export type AttemptReport =
  | { outcome: DeliveryAttemptResult['outcome']; disabled?: EndpointDisabled; format?: WebhookFormat }
  | { outcome: 'already_delivered' | 'endpoint_disabled' | 'endpoint_deleted'; format?: WebhookFormat };

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
export async function attemptWebhookDelivery(deps: WebhookDeliveryDeps, input: AttemptInput): Promise<AttemptReport> {
  const now = deps.now ?? (() => new Date());
  const row = await inTenant(deps.em, input.organizationId, (tx) => deliveryForAttempt(tx, input.deliveryId));
  if (!row) return { outcome: 'endpoint_deleted' }; // deleted with its deliveries
  const format = row.format;
  if (row.delivery_status === 'delivered') return { outcome: 'already_delivered', format };
  if (row.endpoint_status !== 'enabled') return { outcome: 'endpoint_disabled', format };
  if (!deps.cipher) throw new Error('webhook secrets cannot be read: no credential encryption key is configured');
  row.payload = await inTenant(deps.em, input.organizationId, (tx) => eventPayloadForEndpoint(tx, row.id, row.payload)); // D16: the endpoint's pinned version

  // D13: the endpoint's format decides the bytes, the headers and the window.
  const rules = FORMAT_RULES[format];
  const body = renderBody(format, row.payload, { apiVersion: row.api_version, livemode: !SANDBOX_SUBDOMAINS.has(row.subdomain) });
  const signature = signPayload({ secrets: signingSecrets(deps.cipher, row, now()), body, timestamp: Math.floor(now().getTime() / 1000) });
  const sent = await deliverOnce({
    url: row.url,
    body,
    headers: formatHeaders(format, { id: row.event_id, event: row.event }, signature),
    allowPrivateNetworks: deps.allowPrivateNetworks,
    allowLoopback: deps.allowLoopback ?? false,
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
    timeoutMs: deps.timeoutMs ?? Math.max(1, Math.round(rules.responseWindowMs * (deps.responseWindowScale ?? 1))),
  });
  // Field and events retry any answer but a 2xx (and a 410, which disables the endpoint below).
  const retryAnswer = rules.retriesEveryFailure && sent.outcome === 'permanent_failure' && sent.status !== null && sent.status !== 410;
  const result: DeliveryAttemptResult = retryAnswer ? { ...sent, outcome: 'retryable_failure' } : sent;

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
      requestBody: result.requestHeaders ? body : null,
      responseHeaders: result.responseHeaders ?? null,
    });
    if (result.outcome === 'delivered') {
      await clearEndpointFailing(tx, row.id);
      return undefined;
    }
    // D13: a 410 Gone disables the endpoint at once, in every format.
    if (result.status === 410) return disableGoneEndpoint(tx, row.id, now());
    // The failure clock starts at the first failure after a success; the format's hours of
    // nothing but failures (72, or 24 for `field`) disable the endpoint (D6, D13).
    const failingFor = rules.disableAfterFailingMs * (input.clockScale ?? 1);
    return recordEndpointFailure(tx, row.id, now(), new Date(now().getTime() - failingFor), rules.disabledReason);
  });
  return disabledAt ? { outcome: result.outcome, disabled: { endpointId: row.id, disabledAt: disabledAt.toISOString() }, format } : { outcome: result.outcome, format };
}

export async function finishWebhookDelivery(em: EntityManager, input: { organizationId: string; deliveryId: string; status: 'failed' | 'missed'; error?: string }): Promise<void> {
  await finishDelivery(em, input.organizationId, input);
}
