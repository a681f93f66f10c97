import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { z } from 'zod';
import Stripe from 'stripe';
import { inTenant } from '../../db/tenant-scope';
import { markQuotePaid } from '../../db/payments/quote-payments';
import { paymentsEventSeen, recordHandledPaymentsEvent, recordIgnoredPaymentsEvent } from '../../db/payments/webhook-events';
import { badRequest, providerUnavailable } from '../http/errors';

/** Section 4.5's neutral name, then the provider's own (what it sends when nothing renames it). */
export const SIGNATURE_HEADERS = ['payments-signature', 'stripe-signature'] as const;
const TOLERANCE_SECONDS = 300;

/** Provider ids and type names are short printable tokens (`evt_1Nq...`, `invoice.paid`). */
const Token = z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/);
/** What makes a body an event at all; anything else about it is read only when it matters. */
const ProviderEvent = z.looseObject({ id: Token, type: Token });

/** Whole seconds since 1970, up to the last second of year 9999 (what PostgreSQL's to_timestamp takes). */
const UnixSeconds = z.number().int().min(1).max(253_402_300_799);
const PaidObject = z.looseObject({
  metadata: z.looseObject({ organization_id: z.uuid(), quote_id: z.uuid() }),
  status_transitions: z.looseObject({ paid_at: UnixSeconds.nullish() }).nullish(),
  payment_status: z.string().nullish(),
});
/** The fields of an event that marks a quote paid; a malformed one is recorded as not handled. */
const PaidEvent = z.looseObject({ created: UnixSeconds.optional(), data: z.looseObject({ object: PaidObject }) });

const marksPaid = (event: z.infer<typeof ProviderEvent>) => {
  if (event.type === 'invoice.paid') return true;
  if (event.type !== 'checkout.session.completed') return false;
  const object = (event.data as { object?: { payment_status?: unknown } } | null | undefined)?.object;
  return typeof object === 'object' && object !== null && object.payment_status === 'paid';
};

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
  const event = envelope.data;

  if (await paymentsEventSeen(deps.em.fork(), event.id)) return { received: true, handled: false };

  // A signed event stays malformed on every redelivery: it is recorded as not handled (and
  // answered 200), so the provider stops sending it, rather than refused into a retry loop.
  const paid = marksPaid(event) ? PaidEvent.safeParse(event) : undefined;
  if (!paid?.success) {
    if (paid) deps.log?.warn({ event_id: event.id, event_type: event.type, problems: paid.error.issues.map((i) => i.path.join('.')) }, 'payments event malformed; recorded as not handled');
    await recordIgnoredPaymentsEvent(deps.em.fork(), event.id, event.type);
    return { received: true, handled: false };
  }
  const { organization_id: organizationId, quote_id: quoteId } = paid.data.data.object.metadata;
  const paidAtSeconds = paid.data.data.object.status_transitions?.paid_at ?? paid.data.created ?? Math.floor(Date.now() / 1000);
  return inTenant(deps.em, organizationId, async (tx) => {
    // A concurrent delivery of the same event got here first.
    if (!(await recordHandledPaymentsEvent(tx, event.id, event.type))) return { received: true as const, handled: false };
    await markQuotePaid(tx, quoteId, paidAtSeconds);
    return { received: true as const, handled: true };
  });
}
