import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import Stripe from 'stripe';
import { handlePaymentsEvent, ProviderEvent } from '../../infra/payments/payments-event';
import { badRequest, providerUnavailable } from '../../domain/errors/errors';

/** Section 4.5's neutral name, then the provider's own (what it sends when nothing renames it). */
export const SIGNATURE_HEADERS = ['payments-signature', 'stripe-signature'] as const;
const TOLERANCE_SECONDS = 300;

/**
 * Section 4.5: the payments provider's events, verified by the provider's own library
 * (`Stripe.webhooks.constructEvent`: the HMAC over the exact bytes received, 300-second
 * tolerance) before the body is used. An event id
 * already processed is acknowledged and ignored. `invoice.paid` (and a paid
 * `checkout.session.completed`) set `paid_at` on the originating quote, only while it is null.
 */
export async function receivePaymentsEvent(
  deps: { em: EntityManager; secret: string | undefined; log?: Logger },
  raw: Buffer,
  signature: string | undefined,
): Promise<{ received: true; handled: boolean }> {
  if (!deps.secret) throw providerUnavailable('The payments webhook secret is not configured on this deployment.');
  let parsed: unknown;
  try {
    // The provider's own verification (its library), over the exact bytes, then the parse.
    parsed = Stripe.webhooks.constructEvent(raw, signature ?? '', deps.secret, TOLERANCE_SECONDS);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) throw badRequest(`Signature verification failed (${error.message}).`);
    throw badRequest('The body is not JSON.');
  }
  const envelope = ProviderEvent.safeParse(parsed);
  if (!envelope.success) throw badRequest('The body is not a provider event.');
  return { received: true, ...(await handlePaymentsEvent({ em: deps.em, log: deps.log }, envelope.data)) };
}
