import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from './outbox';
import type { EventEnvelope } from '../../domain/events/catalogue';
import { frozenQuoteRow } from '../quotes/quotes';
import { quoteTax, type QuoteTax } from '../../domain/tax/quote-tax';
import { dollars, percentOf } from '../../domain/money';
import type { QuoteStatus } from '../../domain/quotes/quote-status';
import { quoteStatusInEvents, type EventData } from '../../domain/events/event-data';
import type { PartConsumed } from '../../domain/invoicing/completion-invoice';

/**
 * D13's two quote events, recorded in the outbox inside the caller's tenant transaction, so they
 * commit with the change they describe. Their data is document 001 section 6.2's object (the
 * `events` format sends it as `data.object`; the `field` format as `data`). Money is as the
 * document 001 interfaces answer it: a JSON number of dollars made from integer cents
 * (domain/money.ts), rates as numbers (docs/webhooks.md).
 */

/** The proposal reference of a quote (D11: `Q-<quote number>`). */
export const quoteReference = (quoteNumber: number) => `Q-${quoteNumber}`;

interface QuoteCreatedRow {
  id: string;
  quote_number: number;
  status: QuoteStatus;
  revision: number | null;
  customer_id: string | null;
  created_by_user_id: string;
  total_amount_cents: string | number;
  total_cost_cents: string | number;
  tax_region: string | null;
  floor_overridden: boolean;
  override_reason: string | null;
  pricebook_revision: Date;
}

/**
 * `quote.created` (D13, document 001 section 6.2): whenever a quote, or a new revision of one, is
 * persisted, from `POST /api/v1/quotes/calculate` with `persist` or from `/v1/quotes` and its
 * revisions. Call it in the transaction that persisted it, after the quote row holds the revision.
 * The object is built from the row alone, so both interfaces send one shape: section 6.2's
 * fields with `totals` as `/v1/quotes` answers them (document 001 section 2: dollars, the
 * region's tax lines summed, the margin in percent) and `status` in lower case.
 */
export async function recordQuoteCreated(em: EntityManager, organizationId: string, input: { quoteId: string }): Promise<EventEnvelope> {
  const [row] = await em.execute<QuoteCreatedRow[]>(
    `select q.id, q.quote_number, q.status, q.revision, q.customer_id, q.created_by_user_id, q.total_amount_cents, q.total_cost_cents, q.tax_region,
            q.floor_overridden, q.override_reason, r.revision as pricebook_revision
       from quotes q join rate_card_revisions r on r.id = q.rate_card_revision_id where q.id = ?`,
    [input.quoteId],
  );
  if (!row) throw new Error(`quote ${input.quoteId} is not in this tenant`);
  const subtotal = Number(row.total_amount_cents);
  const taxTotal = quoteTax(row.tax_region, subtotal).total_cents;
  return recordEvent(em, organizationId, 'quote.created', {
    id: row.id,
    reference: quoteReference(row.quote_number),
    revision: row.revision ?? 1,
    status: quoteStatusInEvents(row.status),
    customerId: row.customer_id,
    ownerId: row.created_by_user_id,
    currency: 'CAD',
    totals: {
      subtotal: dollars(subtotal),
      taxTotal: dollars(taxTotal),
      grandTotal: dollars(subtotal + taxTotal),
      marginPct: percentOf(subtotal - Number(row.total_cost_cents), subtotal),
      currency: 'CAD',
    },
    pricebookRevision: new Date(row.pricebook_revision).toISOString(),
    // A price below the tenant's margin floor needed an ADMIN's override and its reason (section 4.3).
    approval: { required: row.floor_overridden, reason: row.floor_overridden ? row.override_reason : null },
  });
}

export interface GeneratedInvoice {
  quoteId: string;
  /** The payments provider's invoice id. */
  invoiceId: string;
  /** The invoice's total as the provider finalised it, in cents. */
  totalCents: number | null;
  /**
   * What was invoiced when it is not the quote itself: a change order's delta (D12), with its
   * subtotal before tax in cents. Absent: the quote's frozen calculation (D3).
   */
  source?: { type: 'change_order' | 'job'; id: string; subtotalCents?: number };
  /** Issue 30: a completed job's material draws (its quote's invoice reconciled, or the draws beyond it). */
  partsConsumed?: PartConsumed[];
}

/**
 * `invoice.generated` (D13): the payments leg finalised an invoice for an approved quote (at
 * approval, or by `POST /api/v1/quotes/{id}/invoice`), or for an approved change order of its job
 * (`source`). The caller records it once per invoice, in the transaction that records the leg's
 * success.
 */
export async function recordInvoiceGenerated(em: EntityManager, organizationId: string, invoice: GeneratedInvoice): Promise<EventEnvelope> {
  await lockQuoteForInvoiceEvents(em, invoice.quoteId);
  const quote = await frozenQuoteRow(em, invoice.quoteId);
  if (!quote?.frozen_calculation) throw new Error(`quote ${invoice.quoteId} has no frozen calculation`);
  const subtotal = invoice.source?.subtotalCents ?? quote.frozen_calculation.line_items.reduce((sum, line) => sum + line.price_cents, 0);
  // D25: the invoice's tax lines are its quote's region's, as the payments leg wrote them.
  const tax = quoteTax(quote.tax_region, subtotal);
  return recordEvent(em, organizationId, 'invoice.generated', {
    id: invoice.invoiceId,
    reference: quoteReference(quote.quote_number),
    revision: await nextInvoiceRevision(em, invoice.invoiceId),
    sourceType: invoice.source?.type ?? 'quote',
    sourceId: invoice.source?.id ?? quote.id,
    quoteId: quote.id,
    customerId: quote.customer_id,
    currency: 'CAD',
    status: 'open',
    totals: { subtotal: dollars(subtotal), taxTotal: dollars(tax.total_cents), grandTotal: dollars(invoice.totalCents ?? subtotal + tax.total_cents), currency: 'CAD' },
    taxLines: eventTaxLines(tax),
    // Parts are drawn against jobs (D11): the quote's approval consumes none; its job's completion does.
    partsConsumed: invoice.partsConsumed ?? [],
    erpSync: await erpSyncOf(em, { quoteId: invoice.quoteId, quotesOwnInvoice: invoice.source?.subtotalCents === undefined }),
  });
}

/** The reference of an invoice of a job without a quote (it has no proposal reference). */
export const jobReference = (jobId: string) => `J-${jobId}`;

/**
 * `invoice.generated` for a job without a quote, billed at completion for its time and materials
 * (issue 30): to the job's customer, with the job site's region's tax lines (D25) and the job's
 * draws. No accounting leg mirrors it (see erpSyncOf).
 */
export async function recordServiceInvoiceGenerated(
  em: EntityManager,
  organizationId: string,
  invoice: { jobId: string; invoiceId: string; totalCents: number | null; customerId: string | null; taxRegion: string | null; subtotalCents: number; partsConsumed: PartConsumed[] },
): Promise<EventEnvelope> {
  const tax = quoteTax(invoice.taxRegion, invoice.subtotalCents);
  return recordEvent(em, organizationId, 'invoice.generated', {
    id: invoice.invoiceId,
    reference: jobReference(invoice.jobId),
    revision: await nextInvoiceRevision(em, invoice.invoiceId),
    sourceType: 'job',
    sourceId: invoice.jobId,
    quoteId: null,
    customerId: invoice.customerId,
    currency: 'CAD',
    status: 'open',
    totals: { subtotal: dollars(invoice.subtotalCents), taxTotal: dollars(tax.total_cents), grandTotal: dollars(invoice.totalCents ?? invoice.subtotalCents + tax.total_cents), currency: 'CAD' },
    taxLines: eventTaxLines(tax),
    partsConsumed: invoice.partsConsumed,
    erpSync: await erpSyncOf(em, { quoteId: null, quotesOwnInvoice: false }),
  });
}

/**
 * The quote row, locked until the transaction ends. Every transaction that records an
 * `invoice.generated` or settles the quote's accounting leg takes it first, so the two commits
 * never race: whichever commits second sees the other (issue 30, defect 4).
 */
export async function lockQuoteForInvoiceEvents(em: EntityManager, quoteId: string): Promise<void> {
  await em.execute('select id from quotes where id = ? for update', [quoteId]);
}

type ErpSync = EventData<'invoice.generated'>['erpSync'];

/**
 * What `erpSync` says of an invoice that accounting never receives: the accounting leg mirrors
 * only the quote's own invoice (one per quote, at approval). A change order's invoice, the invoice
 * of a completed job's draws beyond its quote and a job's time-and-materials invoice have no
 * accounting call at all, so no leg's outcome is theirs to report.
 */
export const ERP_SYNC_NOT_APPLICABLE = 'not_applicable';

/**
 * `erpSync` of an invoice event, the one place it is decided. The quote's own invoice (announced at
 * approval, by a later invoice request, or again with a completed job's parts) carries the quote's
 * accounting leg. The approval plans every leg before any runs and records a SKIPPED row for an
 * accounting that is not connected, so a quote without an accounting row has a leg that has not
 * begun yet: `pending`, never `not_connected`. Every other invoice: `not_applicable`.
 */
async function erpSyncOf(em: EntityManager, invoice: { quoteId: string | null; quotesOwnInvoice: boolean }): Promise<ErpSync> {
  if (invoice.quoteId === null || !invoice.quotesOwnInvoice) return { target: 'accounting', status: ERP_SYNC_NOT_APPLICABLE };
  const [accounting] = await em.execute<{ status: string }[]>(`select status from sync_records where provider = 'ACCOUNTING' and entity_type = 'invoice' and quote_id = ?`, [invoice.quoteId]);
  return { target: 'accounting', status: accounting ? accounting.status.toLowerCase() : 'pending' };
}

/**
 * Issue 30, defect 4: the accounting leg settled (succeeded, failed, or was repaired) after an
 * invoice of the quote was announced with another `erpSync`. Each such invoice gets a later
 * revision of its `invoice.generated`: the same object with the settled `erpSync`, and
 * `previousAttributes` holding the one it corrects (document 001 section 6.2). Call it in the
 * transaction that settles the accounting leg, after lockQuoteForInvoiceEvents and the leg's row.
 */
export async function correctInvoiceErpSync(em: EntityManager, organizationId: string, quoteId: string): Promise<EventEnvelope[]> {
  const erpSync = await erpSyncOf(em, { quoteId, quotesOwnInvoice: true });
  if (erpSync.status === 'pending') return [];
  // The latest revision of each invoice's event: the one a receiver holds as current. By its
  // `revision` (events recorded before it existed have none: then by the order recorded).
  const latest = await em.execute<{ data: EventData<'invoice.generated'> }[]>(
    `select distinct on (envelope->'data'->>'id') envelope->'data' as data
       from outbox_events where event = 'invoice.generated' and envelope->'data'->>'quoteId' = ?
      order by envelope->'data'->>'id', (envelope->'data'->>'revision')::int desc nulls last, sequence desc`,
    [quoteId],
  );
  const recorded: EventEnvelope[] = [];
  for (const { data } of latest) {
    // An invoice accounting never receives has no leg to settle: its event stays as it is.
    if (data.erpSync.status === erpSync.status || data.erpSync.status === ERP_SYNC_NOT_APPLICABLE) continue;
    const { previousAttributes: _corrected, ...object } = data;
    recorded.push(
      await recordEvent(em, organizationId, 'invoice.generated', { ...object, revision: await nextInvoiceRevision(em, data.id), erpSync, previousAttributes: { erpSync: data.erpSync } }),
    );
  }
  return recorded;
}

/**
 * The `revision` of the next `invoice.generated` of one invoice: 1 for its first, then one more
 * than the highest recorded (an event recorded before revisions existed counts as one), so a
 * receiver that gets them out of order keeps the highest (docs/webhooks.md). Every caller holds
 * the quote's lock (lockQuoteForInvoiceEvents) or records the invoice's only event (a job without
 * a quote), so two events of one invoice never draw the same revision.
 */
async function nextInvoiceRevision(em: EntityManager, invoiceId: string): Promise<number> {
  const [row] = await em.execute<{ next: number }[]>(
    `select greatest(coalesce(max((envelope->'data'->>'revision')::int), 0), count(*))::int + 1 as next
       from outbox_events where event = 'invoice.generated' and envelope->'data'->>'id' = ?`,
    [invoiceId],
  );
  return Number(row!.next);
}

/** Tax lines as the document 001 interfaces answer them: rates as numbers, amounts in dollars. */
const eventTaxLines = (tax: QuoteTax) => tax.lines.map((line) => ({ code: line.code, rate: Number(line.rate), amount: dollars(line.amount_cents) }));
