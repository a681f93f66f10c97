import type { EntityManager } from '@mikro-orm/postgresql';
import Stripe from 'stripe';
import { inTenant } from '../../db/tenant-scope';
import { markQuotePaid } from '../../db/payments/quote-payments';
import { paymentsEventSeen, recordHandledPaymentsEvent, recordIgnoredPaymentsEvent } from '../../db/payments/webhook-events';
import { badRequest, providerUnavailable } from '../http/errors';

/** Section 4.5's neutral name, then the provider's own (what it sends when nothing renames it). */
export const SIGNATURE_HEADERS = ['payments-signature', 'stripe-signature'] as const;
const TOLERANCE_SECONDS = 300;

interface ProviderEvent {
  id?: unknown;
  type?: unknown;
  created?: unknown;
  data?: { object?: { metadata?: Record<string, string>; status_transitions?: { paid_at?: number | null }; payment_status?: string } };
}

/**
 * Section 4.5: the payments provider's events, verified by the provider's own library
 * (`Stripe.webhooks.constructEvent`: the HMAC over the exact bytes received, 300-second
 * tolerance) before the body is used. An event id
 * already processed is acknowledged and ignored. `invoice.paid` (and a paid
 * `checkout.session.completed`) set `paid_at` on the originating quote, only while it is null.
 */
export async function receivePaymentsEvent(
  deps: { em: EntityManager; secret: string | undefined },
  raw: Buffer,
  signature: string | undefined,
): Promise<{ received: true; handled: boolean }> {
  if (!deps.secret) throw providerUnavailable('The payments webhook secret is not configured on this deployment.');
  let event: ProviderEvent;
  try {
    // The provider's own verification (its library), over the exact bytes, then the parse.
    event = Stripe.webhooks.constructEvent(raw, signature ?? '', deps.secret, TOLERANCE_SECONDS) as unknown as ProviderEvent;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) throw badRequest(`Signature verification failed (${error.message}).`);
    throw badRequest('The body is not JSON.');
  }
  if (typeof event.id !== 'string' || typeof event.type !== 'string') throw badRequest('The body is not a provider event.');

  if (await paymentsEventSeen(deps.em.fork(), event.id)) return { received: true, handled: false };

  const object = event.data?.object;
  const metadata = object?.metadata ?? {};
  const marksPaid = event.type === 'invoice.paid' || (event.type === 'checkout.session.completed' && object?.payment_status === 'paid');
  const organizationId = metadata.organization_id;
  const quoteId = metadata.quote_id;
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  if (!marksPaid || !organizationId || !quoteId || !uuid.test(organizationId) || !uuid.test(quoteId)) {
    await recordIgnoredPaymentsEvent(deps.em.fork(), event.id, event.type);
    return { received: true, handled: false };
  }
  const paidAtSeconds = object?.status_transitions?.paid_at ?? (typeof event.created === 'number' ? event.created : Math.floor(Date.now() / 1000));
  const { id: eventId, type: eventType } = event;
  return inTenant(deps.em, organizationId, async (tx) => {
    // A concurrent delivery of the same event got here first.
    if (!(await recordHandledPaymentsEvent(tx, eventId, eventType))) return { received: true as const, handled: false };
    await markQuotePaid(tx, quoteId, paidAtSeconds);
    return { received: true as const, handled: true };
  });
}
