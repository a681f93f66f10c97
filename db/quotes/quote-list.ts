import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { QuoteStatus } from '../../domain/quotes/quote-status';
import { beyond, keyset, microseconds, TimeAndId } from '../cursor';
import { tablesOf } from '../tables';
import { containsPattern, customerText, quoteReference } from '../text-search';

/**
 * The one list query of `quotes` (section 4.3's list, GraphQL's quotes, a customer's quotes) and
 * the batch loaders of what hangs off a quote (its lines, its revisions). Everything runs inside
 * the caller's tenant transaction (db/tenant-scope.ts): row-level security decides what exists,
 * so an id of another tenant finds nothing, at the top or nested. The batch loaders read many
 * parents in one statement (the first `limit` of each, by a window), for DataLoader.
 */

export interface QuoteRecord {
  id: string;
  quote_number: number;
  status: QuoteStatus;
  customer_id: string | null;
  created_by_user_id: string | null;
  labor_tier_code: string;
  total_cost_cents: string;
  total_amount_cents: string;
  margin_percent: string;
  applied_margin: string;
  created_at: Date;
  sent_at: Date | null;
  approved_at: Date | null;
  rejected_at: Date | null;
  expired_at: Date | null;
  paid_at: Date | null;
  /** D14: the revision the quote is at, and the tax region it was priced for (null for /api/ quotes). */
  revision: number;
  tax_region: string | null;
  /** Section 4.3's summary names the customer and the author. */
  customer_name: string | null;
  author_name: string | null;
  author_email: string | null;
  /** created_at to the microsecond, the list's position. */
  cursor_created_at: string;
}

/** Newest first: (created_at, id) descending. */
export const QUOTE_KEYSET = keyset(TimeAndId, (row: QuoteRecord) => [row.cursor_created_at, row.id] as const);

function quotes(em: EntityManager) {
  return tablesOf(em)
    .selectFrom('quotes as q')
    .leftJoin('customers as c', 'c.id', 'q.customer_id')
    .leftJoin('users as u', 'u.id', 'q.created_by_user_id')
    .select((eb) => [
      'q.id',
      'q.quote_number',
      eb.ref('q.status').$castTo<QuoteStatus>().as('status'),
      'q.revision',
      'q.tax_region',
      'q.customer_id',
      'q.created_by_user_id',
      'q.labor_tier_code',
      sql<string>`${eb.ref('q.total_cost_cents')}::text`.as('total_cost_cents'),
      sql<string>`${eb.ref('q.total_amount_cents')}::text`.as('total_amount_cents'),
      sql<string>`${eb.ref('q.margin_percent')}::text`.as('margin_percent'),
      sql<string>`${eb.ref('q.applied_margin')}::text`.as('applied_margin'),
      'q.created_at',
      'q.sent_at',
      'q.approved_at',
      'q.rejected_at',
      'q.expired_at',
      'q.paid_at',
      'c.name as customer_name',
      'u.full_name as author_name',
      'u.email as author_email',
      microseconds(eb.ref('q.created_at')).as('cursor_created_at'),
    ]);
}

export interface QuoteFilter {
  status?: QuoteStatus | undefined;
  /** The quote of this number (its reference is Q-<number>). */
  number?: number | undefined;
  /** Text in the customer's name or the reference (db/text-search.ts). */
  q?: string | undefined;
  /** After this position of QUOTE_KEYSET. */
  after?: readonly [string, string] | undefined;
  limit: number;
}

/** One page, newest first: `limit` + 1 rows so the caller sees whether more follow. */
export function quotePage(em: EntityManager, filter: QuoteFilter): Promise<QuoteRecord[]> {
  let query = quotes(em);
  if (filter.status) query = query.where('q.status', '=', filter.status);
  if (filter.number !== undefined) query = query.where('q.quote_number', '=', filter.number);
  if (filter.q !== undefined) {
    const pattern = containsPattern(filter.q);
    query = query.where((eb) =>
      eb.or([
        eb('q.customer_id', 'in', eb.selectFrom('customers as cu').select('cu.id').where((sub) => sub(customerText(sub.ref('cu.name'), sub.ref('cu.email')), 'ilike', pattern))),
        eb(quoteReference(eb.ref('q.quote_number')), 'ilike', pattern),
      ]),
    );
  }
  if (filter.after) {
    const [createdAt, id] = filter.after;
    query = query.where((eb) => beyond([eb.ref('q.created_at'), eb.ref('q.id')], 'desc', [createdAt, id]));
  }
  return query.orderBy('q.created_at', 'desc').orderBy('q.id', 'desc').limit(filter.limit + 1).execute();
}

/** Where a quote stands in QUOTE_KEYSET (section 4.3's cursor is a quote id); undefined when not the tenant's. */
export async function quotePosition(em: EntityManager, id: string): Promise<readonly [string, string] | undefined> {
  const row = await tablesOf(em)
    .selectFrom('quotes as q')
    .select((eb) => ['q.id', microseconds(eb.ref('q.created_at')).as('at')])
    .where('q.id', '=', id)
    .executeTakeFirst();
  return row ? [row.at, row.id] : undefined;
}

export function quotesByIds(em: EntityManager, ids: readonly string[]): Promise<QuoteRecord[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return quotes(em).where('q.id', 'in', ids).execute();
}

/** Up to `limit` quotes of each customer, newest first (one statement for every customer). */
export function quotesByCustomerIds(em: EntityManager, customerIds: readonly string[], limit: number): Promise<QuoteRecord[]> {
  if (customerIds.length === 0) return Promise.resolve([]);
  return tablesOf(em)
    .selectFrom(
      quotes(em)
        .select(sql<number>`row_number() over (partition by q.customer_id order by q.created_at desc, q.id desc)`.as('nth'))
        .where('q.customer_id', 'in', customerIds)
        .as('ranked'),
    )
    .selectAll()
    .where('nth', '<=', limit)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** A quote line as stored (`quote_lines`), with its quote. */
export interface QuoteLineRecord {
  quote_id: string;
  position: number;
  reference: string | null;
  width_inches: string;
  drop_inches: string;
  quantity: number;
  fabric_sku_code: string;
  hardware_sku_code: string;
  motor_sku_code: string | null;
  trim_sku_code: string | null;
  cost_cents: string;
  price_cents: string;
  /** Inches the tube is cut shorter than the width (the line's cut list in the quote's calculation); null without one. */
  deduction_inches: string | null;
}

/** The lines of each quote in their order; the first `limit` of each when given. */
export function linesByQuoteIds(em: EntityManager, quoteIds: readonly string[], limit?: number): Promise<QuoteLineRecord[]> {
  if (quoteIds.length === 0) return Promise.resolve([]);
  let query = tablesOf(em)
    .selectFrom('quote_lines as l')
    .select((eb) => [
      'l.quote_id',
      'l.position',
      'l.reference',
      sql<string>`${eb.ref('l.width_inches')}::text`.as('width_inches'),
      sql<string>`${eb.ref('l.drop_inches')}::text`.as('drop_inches'),
      'l.quantity',
      'l.fabric_sku_code',
      'l.hardware_sku_code',
      'l.motor_sku_code',
      'l.trim_sku_code',
      sql<string>`${eb.ref('l.cost_cents')}::text`.as('cost_cents'),
      sql<string>`${eb.ref('l.price_cents')}::text`.as('price_cents'),
      sql<string | null>`(select round(${eb.ref('l.width_inches')} - (coalesce(q.frozen_calculation, q.calculation)->'line_items'->(${eb.ref('l.position')})->'cut_list'->>'tube_length_inches')::numeric, 4)::text
                            from quotes q where q.id = ${eb.ref('l.quote_id')})`.as('deduction_inches'),
    ])
    .where('l.quote_id', 'in', quoteIds);
  // A line's position counts from 0 within its quote, so the first `limit` are those below it.
  if (limit !== undefined) query = query.where('l.position', '<', limit);
  return query.orderBy('l.quote_id').orderBy('l.position').execute();
}

export interface QuoteRevisionRecord {
  quote_id: string;
  revision: number;
  created_by_user_id: string | null;
  created_at: Date;
  /** The rate-card revision that priced it (D2's timestamp). */
  pricebook_revision: Date;
}

/** D14: the first `limit` revisions of each quote, oldest first (quotes made by /api/ calculate have none). */
export function revisionsByQuoteIds(em: EntityManager, quoteIds: readonly string[], limit: number): Promise<QuoteRevisionRecord[]> {
  if (quoteIds.length === 0) return Promise.resolve([]);
  const db = tablesOf(em);
  return db
    .selectFrom(
      db
        .selectFrom('quote_revisions as r')
        .innerJoin('rate_card_revisions as c', 'c.id', 'r.rate_card_revision_id')
        .select(['r.quote_id', 'r.revision', 'r.created_by_user_id', 'r.created_at', 'c.revision as pricebook_revision'])
        .select(sql<number>`row_number() over (partition by r.quote_id order by r.revision)`.as('nth'))
        .where('r.quote_id', 'in', quoteIds)
        .as('ranked'),
    )
    .select(['quote_id', 'revision', 'created_by_user_id', 'created_at', 'pricebook_revision'])
    .where('nth', '<=', limit)
    .orderBy('quote_id')
    .orderBy('revision')
    .execute();
}
