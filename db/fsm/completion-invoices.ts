import type { EntityManager } from '@mikro-orm/postgresql';
import { RateCardRepository } from '../rate-cards/repository';
import { recordLocalSync, type LocalSyncOutcome } from '../sync-records';
import {
  drawsBeyondQuote,
  missingPrices,
  type MissingPrices,
  partsConsumed,
  timeAndMaterials,
  TIME_AND_MATERIALS_TIER,
  type CompletionInvoice,
  type CompletionInvoiceKind,
  type CompletionInvoiceLine,
  type MaterialDraw,
  type PartConsumed,
  type SkuLookup,
} from '../../domain/invoicing/completion-invoice';
import type { RateCardSku, RateCardSnapshot } from '../../domain/pricing/rate-card';

/**
 * The completion invoice of a job (issue 30), stored by the transaction that completes the job:
 * the rules are domain/invoicing/completion-invoice.ts; this reads what they need (the job's
 * draws and logged time, its quote's bill of materials and price book revision, or the tenant's
 * current price book) and keeps what they decided in `job_completion_invoices`, which the
 * worker's `job-completion-invoice-<job id>` workflow invoices. Inside the caller's tenant
 * transaction, the job row locked by the caller.
 */

const rateCards = new RateCardRepository();

/** The sync-log entity of a completion invoice's payments call, keyed by the job. */
export const JOB_INVOICE_ENTITY = 'job_invoice';

interface CompletingJob {
  quote_id: string | null;
  customer_id: string | null;
  site_region: string | null;
}

/** The job's customer, its quote and its site's region: what completing it needs to know first. */
export async function completingJob(em: EntityManager, jobId: string): Promise<CompletingJob | undefined> {
  const [row] = await em.execute<CompletingJob[]>(
    `select w.quote_id, w.customer_id, s.region as site_region from work_orders w left join sites s on s.id = w.site_id where w.id = ?`,
    [jobId],
  );
  return row;
}

async function drawsOf(em: EntityManager, jobId: string): Promise<MaterialDraw[]> {
  const rows = await em.execute<{ sku_code: string; quantity: string; van_id: string | null }[]>(
    `select sku_code, quantity::text as quantity, van_id from material_draws where work_order_id = ? order by created_at, id`,
    [jobId],
  );
  return rows.map((r) => ({ sku: r.sku_code, quantity: r.quantity, vanId: r.van_id }));
}

interface QuoteForCompletion {
  status: string;
  tax_region: string | null;
  applied_margin: string;
  rate_card_revision_id: string;
  components: { sku: string; quantity: string }[] | null;
}

/**
 * The tenant's price book revision current now (D21), named by the tenant selected for the
 * transaction rather than left to row-level security: the owner's repair (`npm run ops -- retry
 * --job`) prices through here too, and the owner is subject to no policy.
 */
async function currentRateCard(em: EntityManager): Promise<{ snapshot: RateCardSnapshot } | undefined> {
  const [row] = await em.execute<{ id: string }[]>(
    `select id from rate_card_revisions where organization_id = app_current_organization() and effective_from <= now() order by effective_from desc, revision desc limit 1`,
  );
  return row && { snapshot: await rateCards.byId(em, row.id) };
}

/** What pricing a completed job's invoice decided: the invoice, or what the price book lacks for it. */
type Priced =
  | { kind: CompletionInvoiceKind; invoice: CompletionInvoice | null; region: string | null; missing: null }
  | { kind: CompletionInvoiceKind; invoice: null; region: string | null; missing: MissingPrices };

/**
 * Prices a completed job's invoice: with an approved quote, the draws beyond its bill of
 * materials on the quote's revision (a SKU it never had, the current one's, else the newest that
 * had it) at its applied margin; without a quote, the time and materials on the price book current
 * now. Null when the job's quote is not approved (nothing to reconcile). What the price book lacks
 * (domain `missingPrices`) is answered, never thrown (D11).
 */
async function priceCompletion(em: EntityManager, jobId: string, job: CompletingJob, draws: MaterialDraw[]): Promise<Priced | null> {
  if (job.quote_id) {
    const [quote] = await em.execute<QuoteForCompletion[]>(
      `select q.status, q.tax_region, q.applied_margin::text as applied_margin, q.rate_card_revision_id,
              (select jsonb_agg(jsonb_build_object('sku', c->>'sku_code', 'quantity', c->>'quantity'))
                 from jsonb_array_elements(q.frozen_calculation->'line_items') li, jsonb_array_elements(li->'components') c
                where c->>'sku_code' is not null) as components
         from quotes q where q.id = ?`,
      [job.quote_id],
    );
    if (quote?.status !== 'APPROVED') return null;
    const quoteCard = await rateCards.byId(em, quote.rate_card_revision_id);
    const current = await currentRateCard(em);
    // The quote's revision prices the draw; a SKU it never had, the price book's current one.
    const skus = await skuLookup(em, draws, [quoteCard, current?.snapshot]);
    const billOfMaterials = quote.components ?? [];
    const missing = missingPrices({ draws, billOfMaterials, skus, labourTiers: null });
    if (missing) return { kind: 'beyond_quote', invoice: null, region: quote.tax_region, missing };
    return { kind: 'beyond_quote', invoice: drawsBeyondQuote({ draws, billOfMaterials, skus, appliedMargin: quote.applied_margin, region: quote.tax_region }), region: quote.tax_region, missing: null };
  }
  const current = await currentRateCard(em);
  const skus = await skuLookup(em, draws, [current?.snapshot]);
  const region = job.site_region;
  const missing = missingPrices({ draws, billOfMaterials: null, skus, labourTiers: current ? new Set(current.snapshot.labourTiers.keys()) : null });
  const tier = current?.snapshot.labourTiers.get(TIME_AND_MATERIALS_TIER);
  if (missing || !current || !tier) return { kind: 'time_and_materials', invoice: null, region, missing: missing ?? { price_book: !current, labour_tier: TIME_AND_MATERIALS_TIER, skus: [] } };
  const [logged] = await em.execute<{ seconds: string }[]>(
    `select coalesce(sum(extract(epoch from (ended_at - started_at))), 0)::text as seconds from time_entries where work_order_id = ?`,
    [jobId],
  );
  return { kind: 'time_and_materials', invoice: timeAndMaterials({ loggedSeconds: logged!.seconds, labourTier: tier, draws, skus, marginFloor: current.snapshot.marginFloor, region }), region, missing: null };
}

/**
 * Decides and stores the completion invoice of a job being completed, when it has one: a job
 * with an approved quote (its partsConsumed, and the draws beyond the quote's bill of materials
 * if any), or a job without a quote (time and materials), billed to its customer or, without one,
 * waiting for a customer (`customer_id` null: domain `completionBilling`) with what it would bill.
 * D11: what the price book lacks never refuses the completion: the invoice is kept waiting for
 * prices (`awaiting_price`, what is missing; no lines yet) until `npm run ops -- retry --job`
 * prices it again (`repriceCompletionInvoice`). A job whose quote is not approved has no invoice
 * to reconcile. Answers whether a row was stored.
 */
export async function storeCompletionInvoice(em: EntityManager, jobId: string): Promise<boolean> {
  const job = await completingJob(em, jobId);
  if (!job) return false;
  const draws = await drawsOf(em, jobId);
  const priced = await priceCompletion(em, jobId, job, draws);
  if (!priced) return false;
  const { invoice } = priced;
  await em.execute(
    `insert into job_completion_invoices (organization_id, work_order_id, quote_id, customer_id, kind, tax_region, lines, subtotal_cents, parts_consumed, awaiting_price)
     values (app_current_organization(), ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?::jsonb) on conflict do nothing`,
    [
      jobId,
      job.quote_id,
      job.customer_id,
      priced.missing ? priced.kind : (invoice?.kind ?? null),
      priced.region,
      JSON.stringify(invoice?.lines ?? []),
      invoice?.subtotalCents ?? 0,
      JSON.stringify(partsConsumed(draws)),
      priced.missing ? JSON.stringify(priced.missing) : null,
    ],
  );
  return true;
}

/** What pricing a waiting completion invoice again found. */
export type RepriceOutcome =
  | { kind: 'not_waiting' }
  | { kind: 'still_missing'; missing: MissingPrices }
  | { kind: 'priced'; quoteId: string | null; customerId: string | null; subtotalCents: number };

/**
 * D11: prices again a completion invoice waiting for prices, on the price book current now (a job
 * without a quote), or on its quote's revision then the current one (draws beyond a quote), as
 * completing would have. Priced, its lines replace the wait; still lacking, what is missing now is
 * recorded. In the caller's tenant transaction, as the owner (`npm run ops -- retry --job`): the
 * application roles never rewrite a completion invoice's money.
 */
export async function repriceCompletionInvoice(em: EntityManager, jobId: string): Promise<RepriceOutcome> {
  const [row] = await em.execute<{ awaiting_price: MissingPrices | null }[]>(`select awaiting_price from job_completion_invoices where organization_id = app_current_organization() and work_order_id = ? for update`, [jobId]);
  if (!row?.awaiting_price) return { kind: 'not_waiting' };
  const job = await completingJob(em, jobId);
  const [stored] = await em.execute<{ quote_id: string | null; customer_id: string | null }[]>(`select quote_id, customer_id from job_completion_invoices where work_order_id = ?`, [jobId]);
  if (!job || !stored) return { kind: 'not_waiting' };
  // The quote and customer the invoice was kept with (the customer, bound since, is the invoice's).
  const draws = await drawsOf(em, jobId);
  const priced = await priceCompletion(em, jobId, { ...job, quote_id: stored.quote_id }, draws);
  if (!priced) return { kind: 'not_waiting' };
  if (priced.missing) {
    await em.execute(`update job_completion_invoices set awaiting_price = ?::jsonb where organization_id = app_current_organization() and work_order_id = ?`, [JSON.stringify(priced.missing), jobId]);
    return { kind: 'still_missing', missing: priced.missing };
  }
  const { invoice } = priced;
  await em.execute(
    `update job_completion_invoices set kind = ?, lines = ?::jsonb, subtotal_cents = ?, tax_region = ?, awaiting_price = null where organization_id = app_current_organization() and work_order_id = ?`,
    [invoice?.kind ?? null, JSON.stringify(invoice?.lines ?? []), invoice?.subtotalCents ?? 0, priced.region, jobId],
  );
  return { kind: 'priced', quoteId: stored.quote_id, customerId: stored.customer_id, subtotalCents: invoice?.subtotalCents ?? 0 };
}

/**
 * The SKUs of the draws, from the first revision given that has each, else from the newest
 * revision that ever had it: a draw names a SKU active when it was drawn, which a later revision
 * may have deactivated (D21) before the job completed.
 */
async function skuLookup(em: EntityManager, draws: readonly MaterialDraw[], revisions: readonly (RateCardSnapshot | undefined)[]): Promise<SkuLookup> {
  const inRevisions = (code: string) => revisions.find((revision) => revision?.skus.has(code))?.skus.get(code);
  const missing = [...new Set(draws.map((d) => d.sku))].filter((code) => !inRevisions(code));
  const older = new Map<string, RateCardSku>();
  if (missing.length > 0) {
    const rows = await em.execute<{ code: string; component: RateCardSku['component']; description: string; unit: RateCardSku['unit']; unit_cost_cents: string }[]>(
      `select distinct on (s.code) s.code, s.component, s.description, s.unit, s.unit_cost_cents::text as unit_cost_cents
         from rate_card_skus s join rate_card_revisions r on r.id = s.revision_id
        where r.organization_id = app_current_organization() and s.code in (select jsonb_array_elements_text(?::jsonb)) order by s.code, r.revision desc`,
      [JSON.stringify(missing)],
    );
    for (const row of rows) older.set(row.code, { code: row.code, component: row.component, description: row.description, unit: row.unit, unitCostCents: row.unit_cost_cents });
  }
  return (code) => inRevisions(code) ?? older.get(code);
}

/** What the worker invoices for a completed job. */
export interface StoredCompletionInvoice {
  jobId: string;
  quoteId: string | null;
  customerId: string | null;
  kind: CompletionInvoiceKind | null;
  taxRegion: string | null;
  lines: CompletionInvoiceLine[];
  subtotalCents: number;
  partsConsumed: PartConsumed[];
  /** D11: what the price book lacks to price it (its lines wait), or null once priced. */
  awaitingPrice: MissingPrices | null;
}

export async function storedCompletionInvoice(em: EntityManager, jobId: string): Promise<StoredCompletionInvoice | undefined> {
  const [row] = await em.execute<{ quote_id: string | null; customer_id: string | null; kind: CompletionInvoiceKind | null; tax_region: string | null; lines: CompletionInvoiceLine[]; subtotal_cents: string; parts_consumed: PartConsumed[]; awaiting_price: MissingPrices | null }[]>(
    `select quote_id, customer_id, kind, tax_region, lines, subtotal_cents::text as subtotal_cents, parts_consumed, awaiting_price from job_completion_invoices where work_order_id = ?`,
    [jobId],
  );
  if (!row) return undefined;
  return {
    jobId,
    quoteId: row.quote_id,
    customerId: row.customer_id,
    kind: row.kind,
    taxRegion: row.tax_region,
    lines: row.lines,
    subtotalCents: Number(row.subtotal_cents),
    partsConsumed: row.parts_consumed,
    awaitingPrice: row.awaiting_price,
  };
}

/**
 * Where a completion invoice stands, as the job's money shows it: waiting for prices (the price
 * book lacked what it bills, D11: `awaitingPrice` says what), waiting for a customer (a job
 * without a quote completed without one), pending (its workflow has not settled the payments
 * call), failed (the call FAILED and waits for its repair, D19) or issued.
 */
export type CompletionInvoiceStatus = 'awaiting_price' | 'awaiting_customer' | 'pending' | 'failed' | 'issued';

export interface CompletionInvoiceRecord extends StoredCompletionInvoice {
  status: CompletionInvoiceStatus;
  /** The payments provider's invoice, once issued (for a quote's job that billed nothing more, the quote's own invoice it reconciled). */
  invoiceId: string | null;
}

/** A job's completion invoice with its payments call's state; undefined when completing it stored none. */
export async function completionInvoiceOfJob(em: EntityManager, jobId: string): Promise<CompletionInvoiceRecord | undefined> {
  const stored = await storedCompletionInvoice(em, jobId);
  if (!stored) return undefined;
  const [sync] = await em.execute<{ status: string; external_id: string | null }[]>(
    `select status, external_id from sync_records where provider = 'PAYMENTS' and entity_type = ? and local_id = ?`,
    [JOB_INVOICE_ENTITY, jobId],
  );
  const status: CompletionInvoiceStatus = stored.awaitingPrice
    ? 'awaiting_price'
    : stored.quoteId === null && stored.customerId === null ? 'awaiting_customer' : sync?.status === 'SUCCEEDED' ? 'issued' : sync?.status === 'FAILED' ? 'failed' : 'pending';
  return { ...stored, status, invoiceId: status === 'issued' ? (sync?.external_id ?? null) : null };
}

/**
 * Binds a completion invoice waiting for a customer to the customer the office set (D11): its
 * lines stay what completing decided. Answers whether one was waiting; the caller's event
 * (`job.customer_changed`) then starts the same invoice workflow a completion does.
 */
export async function bindCompletionInvoiceCustomer(em: EntityManager, jobId: string, customerId: string): Promise<boolean> {
  const rows = await em.execute<{ work_order_id: string }[]>(
    `update job_completion_invoices set customer_id = ? where work_order_id = ? and quote_id is null and customer_id is null returning work_order_id`,
    [customerId, jobId],
  );
  return rows.length === 1;
}

/** The sync-log record of a completion invoice (section 3.4's store, keyed by the job). */
export function completionInvoiceSync(em: EntityManager, ref: { quoteId: string | null; jobId: string }, outcome: LocalSyncOutcome): Promise<void> {
  return recordLocalSync(em, { entityType: JOB_INVOICE_ENTITY, quoteId: ref.quoteId, localId: ref.jobId }, outcome);
}

/** The customer a job without a quote is invoiced to, as the payments writer needs it. */
export async function invoiceCustomer(em: EntityManager, customerId: string): Promise<{ id: string; name: string; email: string | null; paymentsCustomerId: string | null } | undefined> {
  const [row] = await em.execute<{ id: string; name: string; email: string | null; payments_customer_id: string | null }[]>(
    'select id, name, email, payments_customer_id from customers where id = ?',
    [customerId],
  );
  return row && { id: row.id, name: row.name, email: row.email, paymentsCustomerId: row.payments_customer_id };
}
