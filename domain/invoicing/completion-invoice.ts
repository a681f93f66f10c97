import Decimal from 'decimal.js';
import { Dec, priceFromCostAtMargin } from '../pricing/reference-engine';
import type { RateCardSku } from '../pricing/rate-card';
import { quoteTax, type QuoteTax } from '../tax/quote-tax';

/**
 * The completion invoice of a job (issue 30; document 001 sections 6.1-6.2, "an invoice is
 * produced from a completed job"), as pure rules: what a completed job's material draws say
 * (`partsConsumed`), what of them its quote did not price, and what a job without a quote is
 * billed for its time and materials. Money in integer cents; quantities and hours as exact
 * decimal strings. The worked examples of docs/pricing.md are priced through these functions.
 */

/** One material draw of a job, as the field recorded it (D11). */
export interface MaterialDraw {
  sku: string;
  /** Exact decimal in the SKU's unit. */
  quantity: string;
  vanId: string | null;
}

/** `partsConsumed` of `invoice.generated`: each draw of the job, in the order drawn. */
export interface PartConsumed {
  sku: string;
  quantity: string;
  vanId: string | null;
}

export function partsConsumed(draws: readonly MaterialDraw[]): PartConsumed[] {
  return draws.map((draw) => ({ sku: draw.sku, quantity: new Dec(draw.quantity).toFixed(), vanId: draw.vanId }));
}

/** One line of a completion invoice: a SKU's quantity, or the labour; its amount before tax. */
export interface CompletionInvoiceLine {
  description: string;
  /** The SKU billed, or null for labour. */
  sku: string | null;
  /** Exact decimal: the SKU's quantity, or the hours. */
  quantity: string;
  amountCents: number;
}

export type CompletionInvoiceKind = 'beyond_quote' | 'time_and_materials';

export interface CompletionInvoice {
  kind: CompletionInvoiceKind;
  lines: CompletionInvoiceLine[];
  subtotalCents: number;
  /** D25: the tax of the quote's region, or of the job site's region without a quote. */
  tax: QuoteTax;
}

/** A SKU's cost as the rule prices it: the first revision that knows the code. */
export type SkuLookup = (code: string) => RateCardSku | undefined;

export class UnpricedSkuError extends Error {
  override readonly name = 'UnpricedSkuError';
  constructor(readonly sku: string) {
    super(`SKU ${sku} is in no price book revision the invoice may be priced on`);
  }
}

/** The drawn quantity of each SKU, summed, in the order each SKU was first drawn. */
function drawnBySku(draws: readonly MaterialDraw[]): Map<string, Decimal> {
  const drawn = new Map<string, Decimal>();
  for (const draw of draws) drawn.set(draw.sku, (drawn.get(draw.sku) ?? new Dec(0)).plus(draw.quantity));
  return drawn;
}

/** A material line: its cost (quantity times the SKU's unit cost, half-up to a cent) priced at `margin`. */
function materialLine(sku: RateCardSku, quantity: Decimal, margin: string): CompletionInvoiceLine {
  const costCents = new Dec(sku.unitCostCents).times(quantity).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
  return { description: `${sku.description} (${sku.code}), ${quantity.toFixed()} ${sku.unit}`, sku: sku.code, quantity: quantity.toFixed(), amountCents: priceFromCostAtMargin(costCents, margin) };
}

function invoiceOf(kind: CompletionInvoiceKind, lines: CompletionInvoiceLine[], region: string | null): CompletionInvoice {
  const subtotalCents = lines.reduce((sum, line) => sum + line.amountCents, 0);
  return { kind, lines, subtotalCents, tax: quoteTax(region, subtotalCents) };
}

/**
 * A job with an approved quote: the draws beyond the quote's bill of materials (a SKU the quote
 * did not price, or more of one than it priced), each priced by the engine's rule on the quote's
 * revision at the quote's applied margin, taxed for the quote's region. `billOfMaterials` is the
 * quote's frozen components (SKU and quantity, summed over its lines). Null when the job drew
 * nothing beyond it: the quote's own invoice covers every part.
 */
export function drawsBeyondQuote(input: {
  draws: readonly MaterialDraw[];
  billOfMaterials: readonly { sku: string; quantity: string }[];
  skus: SkuLookup;
  appliedMargin: string;
  region: string | null;
}): CompletionInvoice | null {
  const priced = new Map<string, Decimal>();
  for (const item of input.billOfMaterials) priced.set(item.sku, (priced.get(item.sku) ?? new Dec(0)).plus(item.quantity));
  const lines: CompletionInvoiceLine[] = [];
  for (const [code, drawn] of drawnBySku(input.draws)) {
    const beyond = drawn.minus(priced.get(code) ?? 0);
    if (beyond.lte(0)) continue;
    const sku = input.skus(code);
    if (!sku) throw new UnpricedSkuError(code);
    lines.push(materialLine(sku, beyond, input.appliedMargin));
  }
  return lines.length === 0 ? null : invoiceOf('beyond_quote', lines, input.region);
}

/**
 * A job without a quote (service work): the logged time at the tenant's STANDARD labour tier
 * (its hourly rate, half-up to a cent over the exact logged seconds, as a labour component is
 * rounded), then each drawn SKU at the price book's cost raised to the margin floor, taxed for
 * the job site's region.
 */
export function timeAndMaterials(input: {
  loggedSeconds: string;
  labourTier: { code: string; name: string; hourlyRateCents: number };
  draws: readonly MaterialDraw[];
  skus: SkuLookup;
  marginFloor: string;
  region: string | null;
}): CompletionInvoice {
  // Exact: 20 minutes are a third of an hour, never 0.33 of one.
  const hours = new Dec(input.loggedSeconds).div(3600);
  const lines: CompletionInvoiceLine[] = [];
  if (hours.gt(0)) {
    const shown = hours.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
    lines.push({
      description: `Labour, ${shown} h at ${input.labourTier.name} (${input.labourTier.code})`,
      sku: null,
      quantity: shown,
      amountCents: new Dec(input.loggedSeconds).times(input.labourTier.hourlyRateCents).div(3600).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber(),
    });
  }
  for (const [code, drawn] of drawnBySku(input.draws)) {
    const sku = input.skus(code);
    if (!sku) throw new UnpricedSkuError(code);
    lines.push(materialLine(sku, drawn, input.marginFloor));
  }
  return invoiceOf('time_and_materials', lines, input.region);
}

/** The labour tier a job without a quote is billed at. */
export const TIME_AND_MATERIALS_TIER = 'STANDARD';

/**
 * Who a completed job's invoice is billed to (D11: completing is never refused for it, through any
 * interface): a job with a quote reconciles with its quote (billed to the quote's customer); a
 * job without a quote is billed its time and materials to its own customer, and without one that
 * invoice waits for a customer, recorded with what it would bill, until the office sets one
 * (`PATCH /api/v1/work-orders/{id}` `customerId`, `PATCH /v1/fsm/jobs/{id}` `customer_id`).
 */
export type CompletionBilling = 'quote' | 'customer' | 'awaiting_customer';

export function completionBilling(job: { quoteId: string | null; customerId: string | null }): CompletionBilling {
  if (job.quoteId !== null) return 'quote';
  return job.customerId !== null ? 'customer' : 'awaiting_customer';
}

/**
 * Whether the office may set (or clear) a job's customer, and what setting it does to the job's
 * completion invoice. A job with a quote is billed to its quote's customer: it takes none of its
 * own. Before completion the customer may change or be cleared freely. A completed job's
 * invoice waiting for a customer is bound to the one set (and then issued); once bound it is
 * billed, so the customer no longer changes. A cancelled job bills nothing: nothing to set.
 */
export type CustomerChangeDecision =
  | { kind: 'refused'; reason: string }
  | { kind: 'unchanged' }
  | { kind: 'apply'; bindsInvoice: boolean };

export function decideCustomerChange(job: {
  quoteId: string | null;
  jobStatus: string;
  customerId: string | null;
  /** The completion invoice's customer, when the job has a stored completion invoice. */
  invoice: { customerId: string | null } | null;
}, to: string | null): CustomerChangeDecision {
  if (job.quoteId !== null) return { kind: 'refused', reason: 'The job has a quote: it is invoiced to its quote\'s customer and takes none of its own.' };
  if (to === job.customerId) return { kind: 'unchanged' };
  if (job.jobStatus === 'cancelled') return { kind: 'refused', reason: 'The job is cancelled: it bills nothing, so its customer no longer changes.' };
  if (job.jobStatus !== 'complete') return { kind: 'apply', bindsInvoice: false };
  if (to === null) return { kind: 'refused', reason: 'The job is complete: its invoice is billed to a customer, which cannot be removed.' };
  if (!job.invoice) return { kind: 'refused', reason: 'The job is complete with no invoice waiting for a customer: there is nothing to bill to one.' };
  if (job.invoice.customerId !== null) return { kind: 'refused', reason: 'The job is complete and its invoice is already billed to its customer: the customer no longer changes.' };
  return { kind: 'apply', bindsInvoice: true };
}

/**
 * What the price book lacks to price a completed job's invoice (D11: completing is never refused
 * for it; the invoice waits, `awaiting_price`, until the office fixes the cause and an operator
 * prices it again with `npm run ops -- retry --job`). `price_book`: the workspace has no price
 * book at all; `labour_tier`: the tier a job without a quote bills its time at
 * (`TIME_AND_MATERIALS_TIER`), when the current price book lacks it; `skus`: the drawn SKUs to bill
 * that no revision prices, in the order first drawn.
 */
export interface MissingPrices {
  price_book: boolean;
  labour_tier: string | null;
  skus: string[];
}

/**
 * The prices a completion invoice lacks, or null when it can be priced. `billOfMaterials` is the
 * quote's (only the draws beyond it are billed), or null for a job without a quote (every draw
 * is billed, and its time at the labour tier). `labourTiers`: for a job without a quote, the
 * tier codes of the current price book, or null when the workspace has none; ignored with a quote
 * (priced on the quote's own revision and margin).
 */
export function missingPrices(input: {
  draws: readonly MaterialDraw[];
  billOfMaterials: readonly { sku: string; quantity: string }[] | null;
  skus: SkuLookup;
  labourTiers: ReadonlySet<string> | null;
}): MissingPrices | null {
  const quoted = new Map<string, Decimal>();
  for (const item of input.billOfMaterials ?? []) quoted.set(item.sku, (quoted.get(item.sku) ?? new Dec(0)).plus(item.quantity));
  const skus = [...drawnBySku(input.draws)].filter(([code, drawn]) => drawn.minus(quoted.get(code) ?? 0).gt(0) && !input.skus(code)).map(([code]) => code);
  const withoutQuote = input.billOfMaterials === null;
  const priceBook = withoutQuote && input.labourTiers === null;
  const labourTier = withoutQuote && !input.labourTiers?.has(TIME_AND_MATERIALS_TIER) ? TIME_AND_MATERIALS_TIER : null;
  return priceBook || labourTier !== null || skus.length > 0 ? { price_book: priceBook, labour_tier: labourTier, skus } : null;
}

/** What is missing, as the office and an operator read it ("no STANDARD labour tier; SKU X-1 priced by no revision"). */
export function describeMissingPrices(missing: MissingPrices): string {
  const parts: string[] = [];
  if (missing.price_book) parts.push('no price book');
  if (missing.labour_tier !== null) parts.push(`no ${missing.labour_tier} labour tier`);
  if (missing.skus.length > 0) parts.push(`${missing.skus.length === 1 ? 'SKU' : 'SKUs'} ${missing.skus.join(', ')} priced by no revision`);
  return parts.join('; ');
}
