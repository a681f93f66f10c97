/**
 * The crash campaign's count (docs/crash-campaign.md), made only from what the outside world
 * holds: the providers' fakes and the webhook receiver, never our own database. Pure functions
 * over plain lists, so the counting rules are tested on their own (test/tooling/crash-census.test.ts).
 */

/** One approved quote, as the campaign's client saw it, and what one clean approval of it makes. */
export interface ApprovedQuote {
  quoteId: string;
  quoteNumber: number;
  customerName: string;
  customerEmail: string;
  /** Payments invoice items one approval makes for it: one per quote line, plus the tax line. */
  invoiceItems: number;
}

/** What the fakes hold, each object reduced to the field that ties it to one quote. */
export interface ProviderHoldings {
  stripeCustomerEmails: readonly (string | null | undefined)[];
  stripeInvoiceQuoteIds: readonly (string | undefined)[];
  stripeInvoiceItemQuoteIds: readonly (string | undefined)[];
  qboCustomerDisplayNames: readonly (string | undefined)[];
  qboInvoiceDocNumbers: readonly (string | undefined)[];
  sfOpportunityQuoteIds: readonly (string | undefined)[];
}

/** A change the run made that must reach the receiver as exactly one event id. */
export interface ExpectedEvent {
  event: string;
  /** The id the event's data names (work_order_id, quote_id). */
  subject: string;
}

/** One delivery the receiver got. */
export interface ReceivedDelivery {
  eventId: string;
  event: string;
  subject: string | undefined;
}

export interface CensusRow {
  what: string;
  expected: number;
  found: number;
  /** Objects beyond the expected count for their quote (or change), plus any tied to nothing the run made. */
  duplicates: number;
  /** Expected objects that are missing. */
  losses: number;
}

export interface Census {
  rows: CensusRow[];
  /** Deliveries of an event id already received: at-least-once allows them (reported, not failed). */
  redeliveries: number;
  duplicates: number;
  losses: number;
}

/** Counts, per key, how many of `found` carry it, against `expected` per key. */
export function countPerKey(what: string, expectedPerKey: ReadonlyMap<string, number>, found: readonly (string | null | undefined)[]): CensusRow {
  const seen = new Map<string, number>();
  for (const key of found) if (key != null) seen.set(key, (seen.get(key) ?? 0) + 1);
  let duplicates = 0;
  let losses = 0;
  let expected = 0;
  let counted = 0;
  for (const [key, want] of expectedPerKey) {
    const got = seen.get(key) ?? 0;
    expected += want;
    counted += got;
    duplicates += Math.max(0, got - want);
    losses += Math.max(0, want - got);
  }
  // An object tied to a key the run never expected (a quote it did not approve) is one too many.
  for (const [key, got] of seen) {
    if (expectedPerKey.has(key)) continue;
    counted += got;
    duplicates += got;
  }
  return { what, expected, found: counted, duplicates, losses };
}

/** Counts the provider objects per quote, and the distinct event ids per change at the receiver. */
export function takeCensus(quotes: readonly ApprovedQuote[], holdings: ProviderHoldings, expectedEvents: readonly ExpectedEvent[], deliveries: readonly ReceivedDelivery[]): Census {
  const once = (key: (q: ApprovedQuote) => string) => new Map(quotes.map((q) => [key(q), 1]));
  const rows = [
    countPerKey('payments customers', once((q) => q.customerEmail), holdings.stripeCustomerEmails),
    countPerKey('payments invoices', once((q) => q.quoteId), holdings.stripeInvoiceQuoteIds),
    countPerKey('payments invoice items', new Map(quotes.map((q) => [q.quoteId, q.invoiceItems])), holdings.stripeInvoiceItemQuoteIds),
    countPerKey('accounting customers', once((q) => `${q.customerName} <${q.customerEmail}>`), holdings.qboCustomerDisplayNames),
    countPerKey('accounting invoices', once((q) => `Q-${q.quoteNumber}`), holdings.qboInvoiceDocNumbers),
    countPerKey('CRM opportunities', once((q) => q.quoteId), holdings.sfOpportunityQuoteIds),
  ];

  // Events: each change is one event id however often it is delivered; a second distinct id for
  // one change is a duplicate (the change was recorded twice), none is a loss.
  const idsPerChange = new Map<string, Map<string, Set<string>>>();
  for (const d of deliveries) {
    const changes = idsPerChange.get(d.event) ?? new Map<string, Set<string>>();
    const ids = changes.get(d.subject ?? '?') ?? new Set<string>();
    ids.add(d.eventId);
    changes.set(d.subject ?? '?', ids);
    idsPerChange.set(d.event, changes);
  }
  for (const event of new Set([...expectedEvents.map((e) => e.event), ...idsPerChange.keys()])) {
    const expected = new Map(expectedEvents.filter((e) => e.event === event).map((e) => [e.subject, 1]));
    // One entry per distinct event id, keyed by the change it is about.
    const distinctIds = [...(idsPerChange.get(event) ?? new Map<string, Set<string>>())].flatMap(([subject, ids]) => [...ids].map(() => subject));
    rows.push(countPerKey(`event ids ${event}`, expected, distinctIds));
  }

  const distinct = new Set(deliveries.map((d) => d.eventId)).size;
  return {
    rows,
    redeliveries: deliveries.length - distinct,
    duplicates: rows.reduce((sum, r) => sum + r.duplicates, 0),
    losses: rows.reduce((sum, r) => sum + r.losses, 0),
  };
}

/** The census as a table for the terminal. */
export function censusTable(census: Census): string[] {
  const width = Math.max(...census.rows.map((r) => r.what.length), 10) + 2;
  const cell = (value: string | number) => String(value).padStart(11);
  return [
    `${''.padEnd(width)}${cell('expected')}${cell('found')}${cell('duplicates')}${cell('losses')}`,
    ...census.rows.map((r) => `${r.what.padEnd(width)}${cell(r.expected)}${cell(r.found)}${cell(r.duplicates)}${cell(r.losses)}`),
    `${'total'.padEnd(width)}${cell('')}${cell('')}${cell(census.duplicates)}${cell(census.losses)}`,
    `redeliveries of an event id already received (at-least-once, allowed): ${census.redeliveries}`,
  ];
}
