import type { EntityManager } from '@mikro-orm/postgresql';
import { ENTITY_TYPE } from '../sync-records';

/** What invoicing and checkout read and write of a quote, inside the caller's tenant transaction. */

export interface QuoteForPayments<Calculation> {
  id: string;
  quote_number: number;
  status: string;
  /** D14's region; null for a quote made through /api/ (D25: the default region). */
  tax_region: string | null;
  paid_at: Date | null;
  frozen_calculation: Calculation | null;
  checkout_session_id: string | null;
  /** The payments provider's invoice id, once the payments leg succeeded. */
  invoice_id: string | null;
}

/**
 * `Calculation` is the shape the caller froze at approval (the `frozen_calculation` JSON). The
 * quote's own invoice is its payments sync row of the invoice entity: a change order's invoice or
 * credit note (D12) is another row of the same quote and provider, never this one.
 */
export async function quoteForPayments<Calculation>(em: EntityManager, id: string): Promise<QuoteForPayments<Calculation> | undefined> {
  const [row] = await em.execute<QuoteForPayments<Calculation>[]>(
    `select q.id, q.quote_number, q.status, q.tax_region, q.paid_at, q.frozen_calculation, q.checkout_session_id,
            (select s.external_id from sync_records s
              where s.quote_id = q.id and s.provider = 'PAYMENTS' and s.entity_type = ? and s.status = 'SUCCEEDED') as invoice_id
       from quotes q where q.id = ?`,
    [ENTITY_TYPE.PAYMENTS, id],
  );
  return row;
}

export async function rememberCheckoutSession(em: EntityManager, quoteId: string, sessionId: string): Promise<void> {
  await em.execute('update quotes set checkout_session_id = ? where id = ?', [sessionId, quoteId]);
}

/** Section 4.5: `paid_at` is set once, from the provider's time of payment. */
export async function markQuotePaid(em: EntityManager, quoteId: string, paidAtSeconds: number): Promise<void> {
  await em.execute(`update quotes set paid_at = to_timestamp(?), updated_at = now() where id = ? and paid_at is null`, [paidAtSeconds, quoteId]);
}
