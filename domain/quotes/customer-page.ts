import { z } from 'zod';
import { unstorableTextComplaint } from '../text/storable-text';
import { quoteTax, type QuoteTax } from '../tax/quote-tax';
import type { QuoteStatus } from './quote-status';

/**
 * D24: the customer's side of a quote, as rules. What the customer sees (the lines, the tax of
 * the quote's region, the total) is computed here once, for the page, its PDF and the invoice
 * legs alike (activities/approval/frozen-quote.ts), so every figure the customer sees equals the
 * one they are charged (D25).
 */

/** A priced line as the quote keeps it (its calculation, frozen at approval by D3). */
export interface PricedLine {
  reference: string | null;
  quantity: number;
  width_inches: number;
  drop_inches: number;
  price_cents: number;
  /** The line's components as priced (fabric, hardware, motor, trim, labour), each with its rate card description. */
  components?: readonly { component: string; sku_code: string | null; description: string }[];
}

/** What was chosen for a line, as the customer reads it: null where nothing was (no motor, no cassette) or nothing was recorded. */
export interface LineChoices {
  fabric: string | null;
  hardware: string | null;
  motor: string | null;
  /** Recorded by a `/v1/` quote only; null on a quote priced through `/api/` calculate. */
  controlSide: 'left' | 'right' | null;
  /** The trim: a cassette (or a fascia) covering the roll, if any. */
  cassette: string | null;
}

export interface CustomerLine {
  description: string;
  amountCents: number;
  choices: LineChoices;
}

export interface CustomerFigures {
  lines: CustomerLine[];
  subtotalCents: number;
  /** D25: the tax of the quote's region on the subtotal, one line per tax. */
  tax: QuoteTax;
  totalCents: number;
}

/** One line as the customer reads it, on the page, the PDF and the invoice. */
export const customerLineDescription = (line: PricedLine, index: number): string =>
  `${line.reference ?? `Line ${index + 1}`}: ${line.quantity} × ${line.width_inches}" × ${line.drop_inches}" roller shade`;

/** A line's choices from its priced components (the rate card's own descriptions) and, when recorded, its control side. */
export function lineChoices(line: PricedLine, controlSide: 'left' | 'right' | null = null): LineChoices {
  const of = (kind: string) => {
    const component = line.components?.find((c) => c.component === kind);
    return component ? component.description || component.sku_code : null;
  };
  return { fabric: of('fabric'), hardware: of('hardware'), motor: of('motor'), controlSide, cassette: of('trim') };
}

/** The choices as one sentence per line, the same on the page and the PDF. */
export function lineChoicesText(choices: LineChoices): string {
  return [
    `Fabric: ${choices.fabric ?? 'not recorded'}`,
    `Hardware: ${choices.hardware ?? 'not recorded'}`,
    `Motor: ${choices.motor ?? 'none (manual)'}`,
    `Control side: ${choices.controlSide ?? 'not specified'}`,
    `Cassette: ${choices.cassette ?? 'none'}`,
  ].join('; ');
}

/**
 * The figures the customer sees. `controlSides`, by line index, where the quote recorded them
 * (a `/v1/` quote's configuration); absent ones are null.
 */
export function customerFigures(lineItems: readonly PricedLine[], taxRegion: string | null, controlSides: readonly ('left' | 'right' | null)[] = []): CustomerFigures {
  const lines = lineItems.map((line, index) => ({ description: customerLineDescription(line, index), amountCents: line.price_cents, choices: lineChoices(line, controlSides[index] ?? null) }));
  const subtotalCents = lines.reduce((sum, line) => sum + line.amountCents, 0);
  const tax = quoteTax(taxRegion, subtotalCents);
  return { lines, subtotalCents, tax, totalCents: subtotalCents + tax.total_cents };
}

/**
 * D24 with D3: `send` moves a DRAFT to SENT with a first link; on a SENT quote it sends a new link
 * and voids the old one (the quote stays SENT). Any other state cannot be sent.
 */
export type SendMove = 'first' | 'again';
export function sendMove(status: QuoteStatus): SendMove | null {
  if (status === 'DRAFT') return 'first';
  if (status === 'SENT') return 'again';
  return null;
}

/** D3: a quote is valid for its tenant's validity period from its creation; the link expires with it. */
export const validUntil = (createdAt: Date, validityDays: number): Date => new Date(createdAt.getTime() + validityDays * 24 * 60 * 60 * 1000);

export interface PageLink {
  expiresAt: Date;
  voidedAt: Date | null;
}

/**
 * Whether a link still opens its quote: not voided by a later send, not past D3's validity, and
 * the quote still SENT. A decided quote's link shows what was decided (`decided`); every other
 * refusal is one neutral answer that reveals nothing of the quote.
 */
export type LinkState = 'open' | 'decided' | 'gone';

/** How long past its validity a quote the customer decided stays readable on its link (read-only, with its PDF). */
export const DECIDED_QUOTE_KEPT_DAYS = 90;

/** Until when the link of a quote the customer decided shows it: the quote's validity plus DECIDED_QUOTE_KEPT_DAYS. */
export const decidedQuoteKeptUntil = (link: PageLink): Date => new Date(link.expiresAt.getTime() + DECIDED_QUOTE_KEPT_DAYS * 24 * 60 * 60 * 1000);

export function linkState(link: PageLink, quote: { status: QuoteStatus; decidedByCustomer: boolean }, now: Date): LinkState {
  if (link.voidedAt !== null) return 'gone';
  if (quote.status === 'SENT') return now.getTime() < link.expiresAt.getTime() ? 'open' : 'gone';
  // The customer's own decision (and the quote they decided on) stays readable on the link they
  // used until the quote's validity plus 90 days; anything else is gone.
  return quote.decidedByCustomer && now.getTime() < decidedQuoteKeptUntil(link).getTime() ? 'decided' : 'gone';
}

/** What a page says when nothing more can be decided (a second accept, or the office decided first). */
export type Decision =
  | { kind: 'accepted_by_customer'; name: string; at: Date }
  | { kind: 'declined_by_customer'; at: Date }
  | { kind: 'decided_by_office'; status: 'APPROVED' | 'REJECTED' | 'EXPIRED' };

export function decisionOf(quote: {
  status: QuoteStatus;
  acceptance: { name: string; at: Date } | null;
  declinedByCustomerAt: Date | null;
}): Decision | null {
  if (quote.status === 'APPROVED' && quote.acceptance) return { kind: 'accepted_by_customer', name: quote.acceptance.name, at: quote.acceptance.at };
  if (quote.status === 'REJECTED' && quote.declinedByCustomerAt) return { kind: 'declined_by_customer', at: quote.declinedByCustomerAt };
  if (quote.status === 'APPROVED' || quote.status === 'REJECTED' || quote.status === 'EXPIRED') return { kind: 'decided_by_office', status: quote.status };
  return null;
}

const storable = (text: string, ctx: z.RefinementCtx) => {
  const complaint = unstorableTextComplaint(text);
  if (complaint) ctx.addIssue({ code: 'custom', message: complaint });
};

/** The page's form fields: a CSRF token bound to the page's link, and what the customer typed. */
const CsrfField = z.string().min(1).max(200);

/** Accepting: the customer types their name (1-200 characters, after trimming). */
export const AcceptForm = z.strictObject({
  csrf: CsrfField,
  name: z.string().trim().min(1, 'Type your name to accept').max(200, 'At most 200 characters').superRefine(storable),
});
export type AcceptForm = z.output<typeof AcceptForm>;

/** Declining: an optional reason, up to 2,000 characters. */
export const DeclineForm = z.strictObject({
  csrf: CsrfField,
  reason: z
    .string()
    .max(2000, 'At most 2,000 characters')
    .superRefine(storable)
    .optional()
    .transform((reason) => (reason === undefined || reason.trim() === '' ? null : reason.trim())),
});
export type DeclineForm = z.output<typeof DeclineForm>;

/** Cents as a customer reads Canadian dollars ("$1,234.56"), by integer arithmetic (never floats on money). */
export function formatCad(cents: number): string {
  const value = BigInt(cents);
  const abs = value < 0n ? -value : value;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${value < 0n ? '-' : ''}$${whole}.${String(abs % 100n).padStart(2, '0')}`;
}
