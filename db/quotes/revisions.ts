import type { EntityManager } from '@mikro-orm/postgresql';
import { insertQuoteLines, type NewQuote } from './quotes';
import type { QuoteStatus } from '../../domain/quotes/quote-status';

/**
 * D14: the revisions of a quote made through `/v1/quotes`. The quote itself is the one record of
 * `quotes` (listed, approved and invoiced through `/api/`); it carries the figures of its latest
 * revision, and every revision is kept whole in `quote_revisions` (the request as sent and the
 * quote as answered). All of it runs inside a tenant transaction (db/tenant-scope.ts).
 */

export async function customerExists(em: EntityManager, id: string): Promise<boolean> {
  const [row] = await em.execute<{ id: string }[]>('select id from customers where id = ?', [id]);
  return row !== undefined;
}

/** After insertQuote: the fields a `/v1/quotes` quote has beyond a calculated one. */
export async function setQuoteOrigin(em: EntityManager, quoteId: string, origin: { customerId: string; taxRegion: string }): Promise<Date> {
  const [row] = await em.execute<{ created_at: Date }[]>(
    'update quotes set customer_id = ?, tax_region = ?, revision = 1 where id = ? returning created_at',
    [origin.customerId, origin.taxRegion, quoteId],
  );
  return new Date(row!.created_at);
}

export interface RevisableQuote {
  quoteNumber: number;
  status: QuoteStatus;
  revision: number;
  createdAt: Date;
}

/** The quote, locked until the transaction ends so two revisions of it cannot take one number. */
export async function lockQuoteForRevision(em: EntityManager, quoteId: string): Promise<RevisableQuote | undefined> {
  const [row] = await em.execute<{ quote_number: number; status: QuoteStatus; revision: number; created_at: Date }[]>(
    'select quote_number, status, revision, created_at from quotes where id = ? for update',
    [quoteId],
  );
  return row && { quoteNumber: row.quote_number, status: row.status, revision: row.revision, createdAt: new Date(row.created_at) };
}

/** Replaces the quote's figures and lines by those of its next revision. */
export async function reviseQuote(
  em: EntityManager,
  quoteId: string,
  next: Pick<NewQuote, 'body' | 'priced' | 'revisionId'> & { revision: number; customerId: string; taxRegion: string },
): Promise<void> {
  const { priced } = next;
  await em.execute(
    `update quotes set revision = ?, customer_id = ?, tax_region = ?, rate_card_revision_id = ?, labor_tier_code = ?, margin_floor = ?,
       applied_margin = ?, floor_overridden = false, override_reason = null, total_cost_cents = ?, total_amount_cents = ?,
       margin_percent = ?, request = ?::jsonb, calculation = ?::jsonb, updated_at = now()
     where id = ?`,
    [
      next.revision, next.customerId, next.taxRegion, next.revisionId, priced.labor_tier.code, priced.margin_floor, priced.applied_margin,
      priced.totals.cost_cents, priced.totals.amount_cents, priced.totals.margin_percent, JSON.stringify(next.body), JSON.stringify(priced), quoteId,
    ],
  );
  await em.execute('delete from quote_lines where quote_id = ?', [quoteId]);
  await insertQuoteLines(em, quoteId, next);
}

export async function insertQuoteRevision(
  em: EntityManager,
  revision: { quoteId: string; revision: number; rateCardRevisionId: string; createdByUserId: string; request: unknown; quote: unknown },
): Promise<void> {
  await em.execute(
    `insert into quote_revisions (organization_id, quote_id, revision, rate_card_revision_id, created_by_user_id, request, quote)
     values (app_current_organization(), ?, ?, ?, ?, ?::jsonb, ?::jsonb)`,
    [revision.quoteId, revision.revision, revision.rateCardRevisionId, revision.createdByUserId, JSON.stringify(revision.request), JSON.stringify(revision.quote)],
  );
}

/**
 * The quote as its latest revision answered it, with its status now (it may have been sent or
 * approved through `/api/` since); undefined for a quote of another tenant, or one that was
 * never made through `/v1/quotes`.
 */
export async function latestRevision(em: EntityManager, quoteId: string): Promise<{ quote: Record<string, unknown>; status: QuoteStatus } | undefined> {
  const [row] = await em.execute<{ quote: Record<string, unknown>; status: QuoteStatus }[]>(
    `select r.quote, q.status from quotes q join quote_revisions r on r.quote_id = q.id and r.revision = q.revision where q.id = ?`,
    [quoteId],
  );
  return row;
}
