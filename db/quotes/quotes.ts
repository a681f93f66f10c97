import type { EntityManager } from '@mikro-orm/postgresql';
import { QUOTE_TRANSITIONS, type QuoteAction, type QuoteStatus } from '../../domain/quotes/quote-status';
import type { FrozenCalculation } from '../../domain/quotes/frozen-calculation';
import { pageOf } from '../cursor';
import { linesByQuoteIds, QUOTE_KEYSET, quotePage, quotePosition, type QuoteLineRecord, type QuoteRecord } from './quote-list';
import { quoteExpiryCutoff } from '../../domain/quotes/validity';
import { organizationSettings } from '../organizations';

/**
 * The `quotes` table with its lines, numbers and customers. Every function runs inside a tenant
 * transaction (db/tenant-scope.ts): rows are written with `app_current_organization()` and read
 * through row-level security, so nothing here names or filters a tenant itself.
 */

/**
 * What a new quote is made of: the request as sent and the engine's result as priced. Only the
 * fields stored in columns are named here; the API's CalculateBody and PricedQuote satisfy these
 * shapes, and both are kept whole as JSON.
 */
export interface NewQuote {
  body: {
    customer?: { name: string; email?: string | undefined } | undefined;
    /** An existing customer of the tenant (checked by the caller); wins over `customer`. */
    customerId?: string | undefined;
    marginOverride?: { reason: string } | undefined;
    lineItems: readonly {
      reference?: string | undefined;
      widthInches: number;
      dropInches: number;
      quantity: number;
      fabricSkuCode: string;
      hardwareSkuCode: string;
      motorSkuCode?: string | undefined;
      trimSkuCode?: string | undefined;
    }[];
  };
  priced: {
    labor_tier: { code: string };
    margin_floor: string;
    applied_margin: string;
    floor_overridden: boolean;
    totals: { cost_cents: number; amount_cents: number; margin_percent: string };
    line_items: readonly { cost_cents: number; price_cents: number }[];
  };
  revisionId: string;
  createdByUserId: string;
}

/**
 * Next number of the tenant, gap-free: the counter row is locked until the transaction ends, and
 * a rolled-back quote rolls its number back with it.
 */
async function nextQuoteNumber(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ last_number: number }[]>(
    `insert into quote_number_counters (organization_id, last_number) values (app_current_organization(), 1)
     on conflict (organization_id) do update set last_number = quote_number_counters.last_number + 1
     returning last_number`,
  );
  return row!.last_number;
}

async function upsertCustomer(em: EntityManager, customer: NonNullable<NewQuote['body']['customer']>): Promise<string> {
  const [row] = customer.email
    ? await em.execute<{ id: string }[]>(
        `insert into customers (organization_id, name, email) values (app_current_organization(), ?, ?)
         on conflict (organization_id, lower(email)) where email is not null do update set name = excluded.name
         returning id`,
        [customer.name, customer.email],
      )
    : await em.execute<{ id: string }[]>(`insert into customers (organization_id, name) values (app_current_organization(), ?) returning id`, [customer.name]);
  return row!.id;
}

export async function insertQuote(em: EntityManager, quote: NewQuote): Promise<{ id: string; quoteNumber: number; status: QuoteStatus }> {
  const quoteNumber = await nextQuoteNumber(em);
  const customerId = quote.body.customerId ?? (quote.body.customer ? await upsertCustomer(em, quote.body.customer) : null);
  const { priced, body } = quote;
  const [row] = await em.execute<{ id: string }[]>(
    `insert into quotes (organization_id, quote_number, status, created_by_user_id, customer_id, rate_card_revision_id,
       labor_tier_code, margin_floor, applied_margin, floor_overridden, override_reason, total_cost_cents, total_amount_cents,
       margin_percent, request, calculation)
     values (app_current_organization(), ?, 'DRAFT', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb)
     returning id`,
    [
      quoteNumber, quote.createdByUserId, customerId, quote.revisionId, priced.labor_tier.code, priced.margin_floor, priced.applied_margin,
      priced.floor_overridden, priced.floor_overridden ? (body.marginOverride?.reason ?? null) : null,
      priced.totals.cost_cents, priced.totals.amount_cents, priced.totals.margin_percent, JSON.stringify(body), JSON.stringify(priced),
    ],
  );
  const quoteId = row!.id;
  await insertQuoteLines(em, quoteId, quote);
  return { id: quoteId, quoteNumber, status: 'DRAFT' };
}

/** The lines of a quote as asked for and priced, in one statement for all of them (up to 200). */
export async function insertQuoteLines(em: EntityManager, quoteId: string, quote: Pick<NewQuote, 'body' | 'priced'>): Promise<void> {
  const { priced, body } = quote;
  const lines = body.lineItems.map((line, position) => ({
    position,
    reference: line.reference ?? null,
    width_inches: String(line.widthInches),
    drop_inches: String(line.dropInches),
    quantity: line.quantity,
    fabric_sku_code: line.fabricSkuCode,
    hardware_sku_code: line.hardwareSkuCode,
    motor_sku_code: line.motorSkuCode ?? null,
    trim_sku_code: line.trimSkuCode ?? null,
    cost_cents: priced.line_items[position]!.cost_cents,
    price_cents: priced.line_items[position]!.price_cents,
  }));
  await em.execute(
    `insert into quote_lines (organization_id, quote_id, position, reference, width_inches, drop_inches, quantity,
       fabric_sku_code, hardware_sku_code, motor_sku_code, trim_sku_code, cost_cents, price_cents)
     select app_current_organization(), ?, x.position, x.reference, x.width_inches::numeric, x.drop_inches::numeric, x.quantity,
            x.fabric_sku_code, x.hardware_sku_code, x.motor_sku_code, x.trim_sku_code, x.cost_cents, x.price_cents
       from jsonb_to_recordset(?::jsonb) as x(position int, reference text, width_inches text, drop_inches text, quantity int,
            fabric_sku_code text, hardware_sku_code text, motor_sku_code text, trim_sku_code text, cost_cents bigint, price_cents bigint)`,
    [quoteId, JSON.stringify(lines)],
  );
}

/** Section 4.3's QuoteSummary (the API's schema type is checked against it where it is used). */
export interface QuoteSummaryRecord {
  id: string;
  quote_number: number;
  status: QuoteStatus;
  total_amount_cents: number;
  margin_percent: string;
  customer_name: string | null;
  created_at: string;
  created_by: { id: string; name: string; email: string } | null;
}

export interface QuoteListFilter {
  status?: QuoteStatus | undefined;
  number?: number | undefined;
  q?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

interface SummaryRow {
  id: string;
  quote_number: number;
  status: QuoteStatus;
  total_amount_cents: string;
  margin_percent: string;
  customer_name: string | null;
  created_at: Date;
  user_id: string | null;
  user_name: string | null;
  user_email: string | null;
}

const SUMMARY_SELECT = `
  select q.id, q.quote_number, q.status, q.total_amount_cents, q.margin_percent, c.name as customer_name, q.created_at,
         u.id as user_id, u.full_name as user_name, u.email as user_email
    from quotes q
    left join customers c on c.id = q.customer_id
    left join users u on u.id = q.created_by_user_id`;

function toSummary(row: SummaryRow): QuoteSummaryRecord {
  return {
    id: row.id,
    quote_number: row.quote_number,
    status: row.status,
    total_amount_cents: Number(row.total_amount_cents),
    margin_percent: row.margin_percent,
    customer_name: row.customer_name,
    created_at: new Date(row.created_at).toISOString(),
    created_by: row.user_id ? { id: row.user_id, name: row.user_name!, email: row.user_email! } : null,
  };
}

export class UnknownCursorError extends Error {}

/**
 * Section 4.3: newest first, a page of the one quote list (quote-list.ts). The contract fixes
 * this list's cursor as the id of the last quote seen; it names that quote's position, and the
 * next page is everything strictly older in that order, so quotes created meanwhile (newer)
 * never shift or repeat what is left.
 */
export async function listQuotes(em: EntityManager, query: QuoteListFilter): Promise<{ data: QuoteSummaryRecord[]; next_cursor: string | null }> {
  let after: readonly [string, string] | undefined;
  if (query.cursor) {
    after = await quotePosition(em, query.cursor);
    if (!after) throw new UnknownCursorError();
  }
  const { rows, hasMore } = pageOf(await quotePage(em, { status: query.status, number: query.number, q: query.q, after, limit: query.limit }), query.limit, QUOTE_KEYSET);
  const data = rows.map(summaryOf);
  return { data, next_cursor: hasMore ? data[data.length - 1]!.id : null };
}

function summaryOf(quote: QuoteRecord): QuoteSummaryRecord {
  return toSummary({
    ...quote,
    user_id: quote.created_by_user_id,
    user_name: quote.author_name,
    user_email: quote.author_email,
  });
}

export async function quoteSummary(em: EntityManager, id: string): Promise<QuoteSummaryRecord | undefined> {
  const [row] = await em.execute<SummaryRow[]>(`${SUMMARY_SELECT} where q.id = ?`, [id]);
  return row ? toSummary(row) : undefined;
}

interface DetailRow extends SummaryRow {
  customer_email: string | null;
  override_reason: string | null;
  sent_at: Date | null;
  approved_at: Date | null;
  rejected_at: Date | null;
  expired_at: Date | null;
  paid_at: Date | null;
  acceptance_name: string | null;
  acceptance_at: Date | null;
  acceptance_address: string | null;
  acceptance_user_agent: string | null;
  customer_declined_at: Date | null;
  customer_decline_reason: string | null;
  /** The engine's result as priced (domain/pricing/reference-engine.ts), kept as stored JSON. */
  calculation: unknown;
  customer_id: string | null;
  revision: number;
  tax_region: string | null;
  pricebook_revision: Date;
  v1_quote: Record<string, unknown> | null;
}


const isoOrNull = (value: Date | null) => (value ? new Date(value).toISOString() : null);

/**
 * One quote with its lines and calculation: the one read of a quote by id, whichever interface
 * made it and whichever reads it (`GET /api/v1/quotes/{id}` and `GET /v1/quotes/{id}` map it each
 * their own way). `v1_quote` is the quote as its latest `/v1/quotes` revision answered it, null
 * for a quote made by `/api/` calculate.
 */
export async function quoteDetails(em: EntityManager, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const rows = await em.execute<DetailRow[]>(
    `select q.id, q.quote_number, q.status, q.total_amount_cents, q.margin_percent, c.name as customer_name, q.created_at,
            u.id as user_id, u.full_name as user_name, u.email as user_email,
            c.email as customer_email, q.override_reason, q.sent_at, q.approved_at, q.rejected_at, q.expired_at, q.paid_at, q.calculation,
            q.acceptance_name, q.acceptance_at, q.acceptance_address, q.acceptance_user_agent, q.customer_declined_at, q.customer_decline_reason,
            q.customer_id, q.revision, q.tax_region, rc.revision as pricebook_revision, r.quote as v1_quote
       from quotes q
       join rate_card_revisions rc on rc.id = q.rate_card_revision_id
       left join customers c on c.id = q.customer_id
       left join users u on u.id = q.created_by_user_id
       left join quote_revisions r on r.quote_id = q.id and r.revision = q.revision
      where q.id in (${ids.map(() => '?').join(', ')})`,
    [...ids],
  );
  const lines: QuoteLineRecord[] = await linesByQuoteIds(em, rows.map((row) => row.id));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [detailOf(row, lines.filter((line) => line.quote_id === id))] : [];
  });
}

function detailOf(row: DetailRow, lines: QuoteLineRecord[]) {
  const summary = toSummary(row);
  return {
    ...summary,
    customer_email: row.customer_email,
    override_reason: row.override_reason,
    sent_at: isoOrNull(row.sent_at),
    approved_at: isoOrNull(row.approved_at),
    rejected_at: isoOrNull(row.rejected_at),
    expired_at: isoOrNull(row.expired_at),
    paid_at: isoOrNull(row.paid_at),
    // D24: what the customer did on the quote's page.
    acceptance:
      row.acceptance_name && row.acceptance_at
        ? { name: row.acceptance_name, accepted_at: new Date(row.acceptance_at).toISOString(), client_address: row.acceptance_address ?? '', user_agent: row.acceptance_user_agent }
        : null,
    customer_decline: row.customer_declined_at ? { declined_at: new Date(row.customer_declined_at).toISOString(), reason: row.customer_decline_reason } : null,
    lines: lines.map((line) => ({
      position: line.position,
      reference: line.reference,
      // Stored exactly as the request's JSON numbers were written, so this reads them back.
      width_inches: Number(line.width_inches),
      drop_inches: Number(line.drop_inches),
      quantity: line.quantity,
      fabric_sku_code: line.fabric_sku_code,
      hardware_sku_code: line.hardware_sku_code,
      motor_sku_code: line.motor_sku_code,
      trim_sku_code: line.trim_sku_code,
      cost_cents: Number(line.cost_cents),
      price_cents: Number(line.price_cents),
    })),
    calculation: { ...(row.calculation as Record<string, unknown>), quote_id: row.id, quote_number: row.quote_number, status: row.status, persisted: true },
    origin: {
      customer_id: row.customer_id,
      revision: row.revision,
      tax_region: row.tax_region,
      pricebook_revision: new Date(row.pricebook_revision).toISOString(),
      v1_quote: row.v1_quote,
    },
  };
}

/** One quote by id (quoteDetails of one); undefined when it is not the tenant's. */
export async function quoteDetail(em: EntityManager, id: string) {
  const [detail] = await quoteDetails(em, [id]);
  return detail;
}

export type QuoteDetailRecord = ReturnType<typeof detailOf>;

export type TransitionResult = { moved: true } | { moved: false; status: QuoteStatus | undefined };

/**
 * Applies one row of QUOTE_TRANSITIONS atomically: the update names the allowed source states,
 * so two concurrent requests cannot both move the same quote. Returns the status found when the
 * move was not allowed, or undefined when there is no such quote.
 */
export async function transitionQuote(
  em: EntityManager,
  id: string,
  action: QuoteAction,
  extraAssignments = '',
  extraParams: unknown[] = [],
): Promise<TransitionResult> {
  const rule = QUOTE_TRANSITIONS[action];
  const updated = await em.execute<{ id: string }[]>(
    `update quotes set status = ?, ${rule.stamp} = now(), updated_at = now()${extraAssignments}
      where id = ? and status in (${rule.from.map(() => '?').join(', ')}) returning id`,
    [rule.to, ...extraParams, id, ...rule.from],
  );
  if (updated.length) return { moved: true };
  const [found] = await em.execute<{ status: QuoteStatus }[]>('select status from quotes where id = ?', [id]);
  return { moved: false, status: found?.status };
}

/**
 * D3: approval records who approved and freezes the calculation as priced, in the same update;
 * `also` adds assignments of the same update (D24: the customer's acceptance).
 */
export function approveQuote(em: EntityManager, id: string, approvedByUserId: string, also: { sql: string; params: unknown[] } = { sql: '', params: [] }): Promise<TransitionResult> {
  return transitionQuote(em, id, 'approve', `, approved_by_user_id = ?, frozen_calculation = calculation${also.sql}`, [approvedByUserId, ...also.params]);
}

/** What section 6.2's `quote.approved` event says of a quote just approved. */
export interface ApprovedQuoteRow {
  quote_number: number;
  status: QuoteStatus;
  total_amount_cents: string;
  total_cost_cents: string;
  margin_percent: string;
  approved_at: Date;
  customer_name: string | null;
  customer_email: string | null;
}

export async function approvedQuoteForEvent(em: EntityManager, id: string): Promise<ApprovedQuoteRow | undefined> {
  const [row] = await em.execute<ApprovedQuoteRow[]>(
    `select q.quote_number, q.status, q.total_amount_cents, q.total_cost_cents, q.margin_percent, q.approved_at, c.name as customer_name, c.email as customer_email
       from quotes q left join customers c on c.id = q.customer_id where q.id = ?`,
    [id],
  );
  return row;
}

export async function quoteExists(em: EntityManager, id: string): Promise<boolean> {
  const [quote] = await em.execute<{ id: string }[]>('select id from quotes where id = ?', [id]);
  return quote !== undefined;
}

/**
 * D3: the tenant's DRAFT and SENT quotes older than its validity period (its setting,
 * domain/quotes/validity.ts) become EXPIRED, stamped with `now`; exactly the states the transition table lets `expire` move. Returns how many moved.
 */
export async function expireStaleQuotesOfTenant(em: EntityManager, now: Date): Promise<number> {
  const rule = QUOTE_TRANSITIONS.expire;
  const moved = await em.execute<{ id: string }[]>(
    `update quotes set status = ?, ${rule.stamp} = ?, updated_at = ?
      where status in (${rule.from.map(() => '?').join(', ')})
        and created_at < ?
      returning id`,
    [rule.to, now, now, ...rule.from, quoteExpiryCutoff(now, (await organizationSettings(em)).quote_validity_days)],
  );
  return moved.length;
}

/** An approved quote as invoicing reads it: the calculation frozen at approval (D3), its tax region and its customer. */
export interface FrozenQuoteRow {
  id: string;
  quote_number: number;
  status: string;
  /** D14's region; null for a quote made through /api/ (D25: the default region). */
  tax_region: string | null;
  frozen_calculation: FrozenCalculation | null;
  approved_at: Date | null;
  customer_id: string | null;
  name: string | null;
  email: string | null;
  payments_customer_id: string | null;
}

export async function frozenQuoteRow(em: EntityManager, id: string): Promise<FrozenQuoteRow | undefined> {
  const [row] = await em.execute<FrozenQuoteRow[]>(
    `select q.id, q.quote_number, q.status, q.tax_region, q.frozen_calculation, q.approved_at, c.id as customer_id, c.name, c.email, c.payments_customer_id
       from quotes q left join customers c on c.id = q.customer_id where q.id = ?`,
    [id],
  );
  return row;
}
