import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from './outbox';
import type { EventEnvelope, EventName } from './catalogue';

/**
 * `quote.created` (document 001 section 6.2, D14): every persisted revision of a quote, recorded
 * in the outbox inside the transaction that persisted it. Its object is section 6.2's: the
 * totals are those of the revision as `/v1/quotes` answers it (decimal dollars, section 2).
 */
export interface QuoteCreated {
  id: string;
  reference: string;
  revision: number;
  status: string;
  customerId: string;
  ownerId: string;
  currency: string;
  totals: Record<string, unknown>;
  pricebookRevision: string;
  approval: { required: boolean; reason: string | null };
}

export function recordQuoteCreated(tx: EntityManager, organizationId: string, quote: QuoteCreated): Promise<EventEnvelope<QuoteCreated & Record<string, unknown>>> {
  // The core catalogue (D6 subscriptions) does not list it; issue 15's formats route it (D13).
  return recordEvent(tx, organizationId, 'quote.created' as EventName, { ...quote });
}
