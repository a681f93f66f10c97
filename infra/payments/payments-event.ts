import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { z } from 'zod';
import { inTenant } from '../../db/tenant-scope';
import { markQuotePaid } from '../../db/payments/quote-payments';
import { paymentsEventSeen, recordHandledPaymentsEvent, recordIgnoredPaymentsEvent } from '../../db/payments/webhook-events';

/**
 * Section 4.5's handling of a payments provider event, shared by the inbound webhook
 * (api/payments/webhook.ts, after it verified the signature) and D18's scheduled sync (which reads
 * the provider's events list): the same parse, the same rule, one de-duplication table, so an
 * event applied by one is never applied again by the other.
 */

/** The events the sync asks for (D18); the webhook may receive others, which are acknowledged. */
export const SYNCED_PAYMENTS_EVENT_TYPES = ['invoice.paid', 'invoice.payment_failed', 'invoice.voided', 'checkout.session.completed'] as const;

/** Provider ids and type names are short printable tokens (`evt_1Nq...`, `invoice.paid`). */
const Token = z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/);
/** What makes a body an event at all; anything else about it is read only when it matters. */
export const ProviderEvent = z.looseObject({ id: Token, type: Token });

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

export type ReadEvent =
  | { kind: 'paid'; id: string; type: string; organizationId: string; quoteId: string; paidAtSeconds: number }
  | { kind: 'ignored'; id: string; type: string; malformed: string[] | null };

/**
 * What an event (already known to be one: `ProviderEvent`) calls for. `invoice.paid` and a paid
 * `checkout.session.completed` set `paid_at` on the quote named by their metadata; anything else,
 * and a paying event whose fields are malformed, is acknowledged without acting.
 */
export function readPaymentsEvent(event: z.infer<typeof ProviderEvent>, now: () => number = Date.now): ReadEvent {
  if (!marksPaid(event)) return { kind: 'ignored', id: event.id, type: event.type, malformed: null };
  const paid = PaidEvent.safeParse(event);
  if (!paid.success) return { kind: 'ignored', id: event.id, type: event.type, malformed: paid.error.issues.map((i) => i.path.join('.')) };
  const { organization_id: organizationId, quote_id: quoteId } = paid.data.data.object.metadata;
  const paidAtSeconds = paid.data.data.object.status_transitions?.paid_at ?? paid.data.created ?? Math.floor(now() / 1000);
  return { kind: 'paid', id: event.id, type: event.type, organizationId, quoteId, paidAtSeconds };
}

/**
 * Applies a paying event inside its tenant's transaction `tx`: false when it was already applied
 * (by the webhook, the sync, or a concurrent delivery). `paid_at` is set only while null.
 */
export async function applyPaidEvent(tx: EntityManager, event: Extract<ReadEvent, { kind: 'paid' }>): Promise<boolean> {
  if (!(await recordHandledPaymentsEvent(tx, event.id, event.type))) return false;
  await markQuotePaid(tx, event.quoteId, event.paidAtSeconds);
  return true;
}

/** The webhook's whole handling of one verified event. */
export async function handlePaymentsEvent(deps: { em: EntityManager; log?: Logger | undefined }, event: z.infer<typeof ProviderEvent>): Promise<{ handled: boolean }> {
  if (await paymentsEventSeen(deps.em.fork(), event.id)) return { handled: false };
  const read = readPaymentsEvent(event);
  if (read.kind === 'ignored') {
    // A signed event stays malformed on every redelivery: it is recorded as not handled (and
    // answered 200), so the provider stops sending it, rather than refused into a retry loop.
    if (read.malformed) deps.log?.warn({ event_id: event.id, event_type: event.type, problems: read.malformed }, 'payments event malformed; recorded as not handled');
    await recordIgnoredPaymentsEvent(deps.em.fork(), event.id, event.type);
    return { handled: false };
  }
  return { handled: await inTenant(deps.em, read.organizationId, (tx) => applyPaidEvent(tx, read)) };
}
