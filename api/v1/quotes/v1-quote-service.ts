import { performance } from 'node:perf_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../../db/tenant-scope';
import { badRequest, conflict, notFound, validationFailed } from '../../../domain/errors/errors';
import type { Caller } from '../../http/request-context';
import type { PricedQuote } from '../../../domain/pricing/reference-engine';
import { priceQuote } from '../../../domain/pricing/engine';
import { refusedAtOwnPath } from '../../../domain/pricing/errors';
import type { CalculationRequest } from '../../../domain/pricing/request';
import type { RateCardRepository } from '../../../db/rate-cards/repository';
import type { RateCardSnapshot } from '../../../domain/pricing/rate-card';
import { insertQuote, quoteDetail, quoteDetails, type QuoteDetailRecord } from '../../../db/quotes/quotes';
import { QUOTE_KEYSET, quotePage } from '../../../db/quotes/quote-list';
import { pageOf } from '../../../db/cursor';
import type { QuoteStatus } from '../../../domain/quotes/quote-status';
import { v1CursorPosition, v1PageOf } from '../page';
import { customerExists, insertQuoteRevision, lockQuoteForRevision, reviseQuote, setQuoteOrigin } from '../../../db/quotes/revisions';
import { productsBySku } from '../../../db/catalogue/products';
import { quoteTax } from '../../../domain/tax/quote-tax';
import { recordQuoteCreated } from '../../../db/events/quote-events';
import { dollars, percentOf } from '../../../domain/money';
import type { EventEnvelope } from '../../../domain/events/catalogue';
import type { EventDispatcher } from '../../../infra/events/dispatcher';
import type { QuoteBody, V1Quote, V1QuoteListQuery } from './schemas';

/** The quote as answered, and the engine's own time (`X-Engine-Latency-Ms`, D14). */
export interface QuoteOutcome {
  quote: V1Quote;
  engineMs: number;
}

export type KeepOutcome = (tx: EntityManager, outcome: QuoteOutcome) => Promise<void>;

const engineField = (field: string): string =>
  field
    .replace(/^lineItems\.(\d+)\.(fabricSkuCode|hardwareSkuCode|trimSkuCode)$/, 'lines.$1.sku')
    .replace(/^lineItems\.(\d+)\.motorSkuCode$/, 'lines.$1.configuration.motorSku')
    .replace(/^lineItems\.(\d+)\.widthInches$/, 'lines.$1.configuration.finishedWidthIn')
    .replace(/^lineItems\.(\d+)\.dropInches$/, 'lines.$1.configuration.finishedHeightIn')
    .replace(/^lineItems\.(\d+)$/, 'lines.$1')
    .replace(/^lineItems$/, 'lines');

/** D14's `/v1/quotes`: the same engine and the same quote record as `/api/v1/quotes`. */
export class V1QuoteService {
  constructor(
    private readonly em: EntityManager,
    private readonly rateCards: RateCardRepository,
    private readonly events?: EventDispatcher,
  ) {}

  /** `keep` runs last in the transaction of the write (D14: the Idempotency-Key's answer commits with it). */
  async create(caller: Caller, body: QuoteBody, keep?: KeepOutcome): Promise<QuoteOutcome> {
    const { event, ...outcome } = await inTenant(this.em, caller.organizationId, async (tx) => {
      const created = await this.createWithin(tx, caller, body);
      await keep?.(tx, { quote: created.quote, engineMs: created.engineMs });
      return created;
    });
    await this.events?.tryDispatch(event);
    return outcome;
  }

  /**
   * The whole of a create inside the caller's tenant transaction `tx` (GraphQL's createQuote runs
   * it in its own): the quote, its first revision and its `quote.created`, which the caller
   * dispatches after the commit.
   */
  async createWithin(tx: EntityManager, caller: Caller, body: QuoteBody): Promise<QuoteOutcome & { event: EventEnvelope }> {
    const priced = await this.price(tx, caller, body);
    const saved = await insertQuote(tx, { body: priced.request, priced: priced.result, revisionId: priced.revisionId, createdByUserId: caller.userId });
    const createdAt = await setQuoteOrigin(tx, saved.id, { customerId: body.customerId, taxRegion: body.taxRegion });
    const quote = presentV1Quote({ id: saved.id, quoteNumber: saved.quoteNumber, status: saved.status, revision: 1, createdAt, caller, body, priced });
    await insertQuoteRevision(tx, { quoteId: saved.id, revision: 1, rateCardRevisionId: priced.revisionId, createdByUserId: caller.userId, request: body, quote });
    const event = await recordQuoteCreated(tx, caller.organizationId, { quoteId: quote.id });
    return { quote, engineMs: priced.engineMs, event };
  }

  /** D14: revision n+1 of a DRAFT or SENT quote, priced anew, with its own `quote.created`. */
  async revise(caller: Caller, quoteId: string, body: QuoteBody, keep?: KeepOutcome): Promise<QuoteOutcome> {
    let event: EventEnvelope | undefined;
    const outcome = await inTenant(this.em, caller.organizationId, async (tx) => {
      const current = await lockQuoteForRevision(tx, quoteId);
      if (!current) throw notFound('No such quote in this workspace.');
      if (current.status !== 'DRAFT' && current.status !== 'SENT') throw conflict(`A ${current.status} quote cannot be revised; only DRAFT or SENT can.`);
      const priced = await this.price(tx, caller, body);
      const revision = current.revision + 1;
      await reviseQuote(tx, quoteId, { body: priced.request, priced: priced.result, revisionId: priced.revisionId, revision, customerId: body.customerId, taxRegion: body.taxRegion });
      const quote = presentV1Quote({ id: quoteId, quoteNumber: current.quoteNumber, status: current.status, revision, createdAt: current.createdAt, caller, body, priced });
      await insertQuoteRevision(tx, { quoteId, revision, rateCardRevisionId: priced.revisionId, createdByUserId: caller.userId, request: body, quote });
      event = await recordQuoteCreated(tx, caller.organizationId, { quoteId: quote.id });
      const outcome = { quote, engineMs: priced.engineMs };
      await keep?.(tx, outcome);
      return outcome;
    });
    if (event) await this.events?.tryDispatch(event);
    return outcome;
  }

  /** Newest first, the one quote list (db/quotes/quote-list.ts) mapped as `/v1/` shows a quote. */
  list(caller: Caller, query: V1QuoteListQuery): Promise<{ data: V1Quote[]; next_cursor: string | null; has_more: boolean }> {
    const after = v1CursorPosition(QUOTE_KEYSET, query.cursor);
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const filter = {
        status: query.status?.toUpperCase() as QuoteStatus | undefined,
        number: query.reference === undefined ? undefined : Number(query.reference.slice(2)),
        q: query.q,
        after,
        limit: query.limit,
      };
      const page = pageOf(await quotePage(tx, filter), query.limit, QUOTE_KEYSET);
      const details = await quoteDetails(tx, page.rows.map((row) => row.id));
      return v1PageOf({ rows: details, next: page.next }, (detail) => v1QuoteOf(detail, caller.organizationId));
    });
  }

  /** One record whichever interface made it: a quote priced by `/api/` calculate reads here too. */
  get(caller: Caller, quoteId: string): Promise<V1Quote> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const found = await quoteDetail(tx, quoteId);
      if (!found) throw notFound('No such quote in this workspace.');
      return v1QuoteOf(found, caller.organizationId);
    });
  }

  /** Checks what the body names against the tenant's data (422 per field), then runs the engine. */
  private async price(tx: EntityManager, caller: Caller, body: QuoteBody) {
    const complaints: Record<string, string> = {};
    if (body.pricebookId !== caller.organizationId) complaints.pricebookId = 'Not a price book of this workspace (GET /v1/pricebooks)';
    if (!(await customerExists(tx, body.customerId))) complaints.customerId = 'No such customer in this workspace (GET /v1/customers)';
    const card = await this.rateCards.current(tx);
    if (!card) throw badRequest('This workspace has no rate card yet.');
    // D21: the products of the revision that prices the quote.
    const products = await productsBySku(tx, body.lines.map((line) => line.sku), card.revisionId);
    body.lines.forEach((line, index) => {
      if (!products.has(line.sku)) complaints[`lines.${index}.sku`] = `Unknown product "${line.sku}" (GET /v1/products)`;
    });
    const laborTierCode = body.laborTierCode ?? defaultTier(card.snapshot);
    if (!laborTierCode) complaints.laborTierCode = 'The rate card has no labour tier';
    if (Object.keys(complaints).length > 0) throw validationFailed(complaints);

    const request: CalculationRequest = {
      laborTierCode: laborTierCode!,
      lineItems: body.lines.map((line) => {
        const product = products.get(line.sku)!;
        return {
          widthInches: line.configuration.finishedWidthIn,
          dropInches: line.configuration.finishedHeightIn,
          quantity: line.quantity,
          fabricSkuCode: product.fabricSkuCode,
          hardwareSkuCode: product.hardwareSkuCode,
          ...(line.configuration.motorised ? { motorSkuCode: line.configuration.motorSku } : {}),
          ...(product.trimSkuCode ? { trimSkuCode: product.trimSkuCode } : {}),
        };
      }),
    };
    const started = performance.now();
    const result: PricedQuote = refusedAtOwnPath(() => priceQuote({ request, rateCard: card.snapshot, overrideAuthorised: false }), engineField);
    const engineMs = performance.now() - started;
    return { request: { ...request, persist: true }, result, revisionId: card.revisionId, pricebookRevision: card.snapshot.revision, engineMs };
  }
}

function defaultTier(card: RateCardSnapshot): string | undefined {
  if (card.labourTiers.has('STANDARD')) return 'STANDARD';
  return [...card.labourTiers.keys()].sort()[0];
}

export interface Presented {
  id: string;
  quoteNumber: number;
  status: string;
  revision: number;
  createdAt: Date;
  caller: Caller;
  body: QuoteBody;
  priced: { result: PricedQuote; pricebookRevision: string };
}

/** Document 001 section 2's Quote, from the engine's result (integer cents) and its region's tax (D25). */
export function presentV1Quote(p: Presented): V1Quote {
  const { result } = p.priced;
  const subtotal = result.totals.amount_cents;
  const tax = quoteTax(p.body.taxRegion, subtotal);
  return {
    id: p.id,
    reference: `Q-${p.quoteNumber}`,
    status: p.status.toLowerCase(),
    revision: p.revision,
    currency: 'CAD',
    customerId: p.body.customerId,
    taxRegion: p.body.taxRegion,
    pricebookId: p.caller.organizationId,
    pricebookRevision: new Date(p.priced.pricebookRevision).toISOString(),
    totals: {
      subtotal: dollars(subtotal),
      taxTotal: dollars(tax.total_cents),
      grandTotal: dollars(subtotal + tax.total_cents),
      marginPct: percentOf(result.totals.amount_cents - result.totals.cost_cents, result.totals.amount_cents),
      currency: 'CAD',
    },
    taxLines: tax.lines.map((line) => ({ code: line.code, rate: Number(line.rate), amount: dollars(line.amount_cents) })),
    lines: p.body.lines.map((line, index) => {
      const priced = result.line_items[index]!;
      const tube = Number(priced.cut_list.tube_length_inches);
      return {
        sku: line.sku,
        quantity: line.quantity,
        // Half-up to the cent: (2 * price + quantity) / (2 * quantity), in integers.
        unitPrice: dollars(Math.floor((2 * priced.price_cents + line.quantity) / (2 * line.quantity))),
        extendedPrice: dollars(priced.price_cents),
        cutList: { tubeIn: tube, hembarIn: Number(priced.cut_list.hembar_length_inches), fabricIn: Number(priced.cut_list.fabric_width_inches) },
        deduction: Number((line.configuration.finishedWidthIn - tube).toFixed(4)),
        marginPct: percentOf(priced.price_cents - priced.cost_cents, priced.price_cents),
        configuration: {
          finishedWidthIn: line.configuration.finishedWidthIn,
          finishedHeightIn: line.configuration.finishedHeightIn,
          controlSide: line.configuration.controlSide,
          motorised: line.configuration.motorised,
          motorSku: line.configuration.motorSku ?? null,
        },
      };
    }),
    createdAt: p.createdAt.toISOString(),
  };
}

/**
 * `/v1/`'s mapping of the one quote record (db/quotes/quotes.ts `quoteDetail`): a quote made
 * through `/v1/quotes` is its latest revision as answered, with its status now; a quote priced by
 * `/api/` calculate is drawn from its stored calculation. Such a quote has no catalogue product,
 * control side or (perhaps) customer, so those are null, and its tax is the default region's (D25).
 */
export function v1QuoteOf(record: QuoteDetailRecord, pricebookId: string): V1Quote {
  const status = record.status.toLowerCase();
  if (record.origin.v1_quote) return { ...(record.origin.v1_quote as V1Quote), status };
  const calculation = record.calculation as unknown as PricedQuote;
  const subtotal = calculation.totals.amount_cents;
  const tax = quoteTax(record.origin.tax_region, subtotal);
  return {
    id: record.id,
    reference: `Q-${record.quote_number}`,
    status,
    revision: record.origin.revision,
    currency: 'CAD',
    customerId: record.origin.customer_id,
    taxRegion: tax.region,
    pricebookId,
    pricebookRevision: record.origin.pricebook_revision,
    totals: {
      subtotal: dollars(subtotal),
      taxTotal: dollars(tax.total_cents),
      grandTotal: dollars(subtotal + tax.total_cents),
      marginPct: percentOf(subtotal - calculation.totals.cost_cents, subtotal),
      currency: 'CAD',
    },
    taxLines: tax.lines.map((line) => ({ code: line.code, rate: Number(line.rate), amount: dollars(line.amount_cents) })),
    lines: record.lines.map((line, index) => {
      const priced = calculation.line_items[index]!;
      const tube = Number(priced.cut_list.tube_length_inches);
      return {
        sku: null,
        quantity: line.quantity,
        unitPrice: dollars(Math.floor((2 * line.price_cents + line.quantity) / (2 * line.quantity))),
        extendedPrice: dollars(line.price_cents),
        cutList: { tubeIn: tube, hembarIn: Number(priced.cut_list.hembar_length_inches), fabricIn: Number(priced.cut_list.fabric_width_inches) },
        deduction: Number((line.width_inches - tube).toFixed(4)),
        marginPct: percentOf(line.price_cents - line.cost_cents, line.price_cents),
        configuration: {
          finishedWidthIn: line.width_inches,
          finishedHeightIn: line.drop_inches,
          controlSide: null,
          motorised: line.motor_sku_code !== null,
          motorSku: line.motor_sku_code,
        },
      };
    }),
    createdAt: record.created_at,
  };
}

/** Document 001 section 6.2's `quote.created` object. */
