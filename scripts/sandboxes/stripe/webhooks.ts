// Stripe webhook events and their `Stripe-Signature` header (`t=<unix>,v1=<hex HMAC-SHA256 of
// "<t>.<payload>" keyed by the endpoint secret>`), built independently of stripe-node so that the
// library's verifier is what the tests exercise.
import { createHmac } from 'node:crypto';
import { randomAlnum } from '../core/random';

export const STRIPE_API_VERSION = '2026-10-28.endive';

export interface StripeEventJson {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: unknown; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

export function buildStripeEvent(
  type: string,
  object: unknown,
  opts: {
    id?: string;
    created?: number;
    previousAttributes?: Record<string, unknown>;
    requestId?: string | null;
    idempotencyKey?: string | null;
    apiVersion?: string;
    pendingWebhooks?: number;
  } = {},
): StripeEventJson {
  const data: StripeEventJson['data'] = { object: structuredClone(object) };
  if (opts.previousAttributes) data.previous_attributes = structuredClone(opts.previousAttributes);
  return {
    id: opts.id ?? `evt_${randomAlnum(24)}`,
    object: 'event',
    api_version: opts.apiVersion ?? STRIPE_API_VERSION,
    created: opts.created ?? Math.floor(Date.now() / 1000),
    data,
    livemode: false,
    pending_webhooks: opts.pendingWebhooks ?? 1,
    request: { id: opts.requestId ?? null, idempotency_key: opts.idempotencyKey ?? null },
    type,
  };
}

/** The `Stripe-Signature` header value for an exact payload string. */
export function stripeSignatureHeader(payload: string, secret: string, timestampSeconds = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac('sha256', secret).update(`${timestampSeconds}.${payload}`, 'utf8').digest('hex');
  return `t=${timestampSeconds},v1=${v1}`;
}

export interface SignedStripeEvent {
  event: StripeEventJson;
  /** The exact bytes to deliver; the signature covers this string, not a re-serialisation. */
  payload: string;
  header: string;
}

export function signStripeEvent(event: StripeEventJson, secret: string, timestampSeconds?: number): SignedStripeEvent {
  const payload = JSON.stringify(event, null, 2);
  return { event, payload, header: stripeSignatureHeader(payload, secret, timestampSeconds) };
}

/** Builds an `invoice.paid` event for an invoice object (e.g. from the fake's inspector) and signs it. */
export function signedInvoicePaidEvent(invoice: unknown, secret: string, timestampSeconds?: number): SignedStripeEvent {
  return signStripeEvent(buildStripeEvent('invoice.paid', invoice), secret, timestampSeconds);
}

export interface DeliveryResult {
  eventId: string;
  url: string;
  status: number | null;
  error: string | null;
  at: number;
}

function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') {
    throw new Error(`webhook delivery is restricted to loopback addresses, not ${host}`);
  }
}

/** POSTs a signed event the way Stripe does (JSON body, Stripe-Signature header). Loopback only. */
export async function deliverStripeEvent(url: string, signed: SignedStripeEvent, timeoutMs = 10_000): Promise<DeliveryResult> {
  assertLoopback(url);
  const at = Date.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signed.header,
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        'cache-control': 'no-cache',
        accept: '*/*; q=0.5, application/xml',
      },
      body: signed.payload,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    return { eventId: signed.event.id, url, status: res.status, error: null, at };
  } catch (err) {
    return { eventId: signed.event.id, url, status: null, error: String(err), at };
  }
}
