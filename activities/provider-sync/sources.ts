import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import type OAuthClient from 'intuit-oauth';
import type { Connection } from 'jsforce';
import { z } from 'zod';
import { markQuotePaid } from '../../db/payments/quote-payments';
import { transitionQuote } from '../../db/quotes/quotes';
import { quoteIsOurs, quoteOfExternalId } from '../../db/provider-sync/provider-sync';
import { applyPaidEvent, ProviderEvent, readPaymentsEvent, SYNCED_PAYMENTS_EVENT_TYPES } from '../../infra/payments/payments-event';
import { QUOTE_EXTERNAL_ID_FIELD } from '../crm/upsert-opportunity';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';

/**
 * D18's three sources. Each `fetch` reads one page of the provider's changes after a watermark
 * (no database write), and answers the changes in the order they happened, each with the
 * watermark that applying it reaches, and an `apply` that runs inside the tenant's transaction
 * (the caller writes the watermark in that same transaction). Applying is idempotent: a change
 * applied again changes nothing and answers false.
 */
export interface Change {
  watermark: string;
  apply(tx: EntityManager): Promise<boolean>;
}
export interface Page {
  changes: Change[];
  /** Seen at the provider, ours or not. */
  seen: number;
  /** Where the watermark goes once every change of the page is applied (at least the last change's). */
  watermark: string | null;
  /** Another page follows now. */
  more: boolean;
}

/** Changes per page (Stripe's and SOQL's page limit here); tests lower it to exercise paging. */
export const SYNC_PAGE_SIZE = 100;
const DAY_MS = 86_400_000;

/** A page the provider answered but that is not what it documents: final for this run, recorded as its error. */
export function malformed(provider: string, detail: string): ApplicationFailure {
  return ApplicationFailure.create({ message: `${provider} provider answered a malformed page: ${detail}`, type: FAILURE_TYPES.providerMalformed, nonRetryable: true });
}

// ---- payments: the provider's events (Stripe's events list) ----

const EventList = z.looseObject({ data: z.array(z.looseObject({ id: z.string().min(1), type: z.string(), created: z.number().int() })), has_more: z.boolean() });

/**
 * Watermark: the id of the last event applied. After it, `ending_before` answers the page of
 * events just newer (Stripe lists newest first); without one (the first run, or an event the
 * provider no longer keeps) the run starts `lookbackDays` back, paging to older events with
 * `starting_after`. Every event is read as the webhook reads it; only this tenant's paying events
 * are applied, de-duplicated with the webhook (another tenant's events are theirs to apply).
 */
export async function paymentsPage(stripe: Stripe, input: { organizationId: string; watermark: string | null; lookbackDays: number; now: number; pageSize: number }): Promise<Page> {
  const SIZE = input.pageSize;
  const types = [...SYNCED_PAYMENTS_EVENT_TYPES];
  let events: z.infer<typeof EventList>['data'];
  let more: boolean;
  let listed: unknown;
  if (input.watermark) {
    try {
      listed = await stripe.events.list({ ending_before: input.watermark, limit: SIZE, types });
    } catch (error) {
      // The watermark's event is gone (Stripe keeps 30 days): start over from the lookback.
      if ((error as { statusCode?: number; code?: string }).statusCode !== 404) throw error;
      return paymentsPage(stripe, { ...input, watermark: null });
    }
    const page = EventList.safeParse(listed);
    if (!page.success) throw malformed('payments', page.error.issues.map((i) => i.path.join('.')).join(', '));
    events = [...page.data.data].reverse();
    more = page.data.has_more;
  } else {
    // Oldest first: page back through the lookback window, then apply from its start.
    const collected: z.infer<typeof EventList>['data'] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      listed = await stripe.events.list({ limit: SIZE, types, created: { gte: Math.floor((input.now - input.lookbackDays * DAY_MS) / 1000) }, ...(after ? { starting_after: after } : {}) });
      const page = EventList.safeParse(listed);
      if (!page.success) throw malformed('payments', page.error.issues.map((i) => i.path.join('.')).join(', '));
      collected.push(...page.data.data);
      if (!page.data.has_more || page.data.data.length === 0) break;
      after = page.data.data.at(-1)!.id;
    }
    events = collected.reverse().slice(0, SIZE);
    more = collected.length > SIZE;
  }
  const changes: Change[] = [];
  for (const raw of events) {
    const envelope = ProviderEvent.safeParse(raw);
    const read = envelope.success ? readPaymentsEvent(envelope.data) : undefined;
    changes.push({
      watermark: raw.id,
      apply: async (tx) => (read?.kind === 'paid' && read.organizationId === input.organizationId ? applyPaidEvent(tx, read) : false),
    });
  }
  return { changes, seen: events.length, watermark: events.at(-1)?.id ?? input.watermark, more };
}

// ---- accounting: QuickBooks change data capture ----

const QboMeta = z.looseObject({ LastUpdatedTime: z.string().min(1) });
const QboInvoice = z.looseObject({ Id: z.string().min(1), Balance: z.number().optional(), TotalAmt: z.number().optional(), status: z.string().optional(), MetaData: QboMeta });
const QboPayment = z.looseObject({
  Id: z.string().min(1),
  MetaData: QboMeta,
  Line: z.array(z.looseObject({ LinkedTxn: z.array(z.looseObject({ TxnId: z.string(), TxnType: z.string() })).optional() })).optional(),
});
const CdcAnswer = z.looseObject({
  CDCResponse: z.array(z.looseObject({ QueryResponse: z.array(z.looseObject({ Invoice: z.array(QboInvoice).optional(), Payment: z.array(QboPayment).optional() })) })).min(1),
});
/** QuickBooks looks back at most 30 days; we ask a little less, so a slow clock is never refused. */
const QBO_LOOKBACK_MS = 30 * DAY_MS - 3_600_000;

/**
 * Watermark: the LastUpdatedTime (UTC ISO) of the last change applied. `/cdc?changedSince=` is
 * inclusive and answers at most 1000 objects, oldest first here; an invoice of ours (by the
 * accounting leg's sync record) whose Balance reached zero, directly or through a Payment linked
 * to it, marks its quote paid (`paid_at` only while null). A page that moved the watermark may be
 * followed by another; one that did not ends the run.
 */
export async function accountingPage(client: OAuthClient, input: { realmId: string; baseUrl: string; watermark: string | null; now: number }): Promise<Page> {
  const floor = input.now - QBO_LOOKBACK_MS;
  const since = input.watermark && Date.parse(input.watermark) > floor ? input.watermark : new Date(floor).toISOString();
  const url = (path: string, params: Record<string, string> = {}) => {
    const u = new URL(`v3/company/${input.realmId}/${path}`, input.baseUrl.endsWith('/') ? input.baseUrl : `${input.baseUrl}/`);
    for (const [key, value] of Object.entries({ ...params, minorversion: '75' })) u.searchParams.set(key, value);
    return u.toString();
  };
  const answer = CdcAnswer.safeParse((await client.makeApiCall({ url: url('cdc', { entities: 'Invoice,Payment', changedSince: since }) })).json);
  if (!answer.success) throw malformed('accounting', answer.error.issues.map((i) => i.path.join('.')).join(', ') || 'not a change data capture answer');
  const invoices = answer.data.CDCResponse.flatMap((r) => r.QueryResponse.flatMap((q) => q.Invoice ?? []));
  const payments = answer.data.CDCResponse.flatMap((r) => r.QueryResponse.flatMap((q) => q.Payment ?? []));
  const at = (meta: { LastUpdatedTime: string }) => {
    const ms = Date.parse(meta.LastUpdatedTime);
    if (!Number.isFinite(ms)) throw malformed('accounting', `LastUpdatedTime ${meta.LastUpdatedTime}`);
    return ms;
  };
  // Invoices a payment names but this page does not carry are read as they are now.
  const known = new Map(invoices.map((i) => [i.Id, i]));
  for (const payment of payments) {
    for (const linked of (payment.Line ?? []).flatMap((l) => l.LinkedTxn ?? []).filter((l) => l.TxnType === 'Invoice')) {
      if (known.has(linked.TxnId)) continue;
      const read = QboInvoice.safeParse((await client.makeApiCall({ url: url(`invoice/${encodeURIComponent(linked.TxnId)}`) })).json?.Invoice);
      if (!read.success) throw malformed('accounting', `invoice ${linked.TxnId}`);
      known.set(linked.TxnId, { ...read.data, MetaData: payment.MetaData });
    }
  }
  const ordered = [...known.values()].sort((a, b) => at(a.MetaData) - at(b.MetaData));
  const changes: Change[] = ordered.map((invoice) => ({
    watermark: new Date(at(invoice.MetaData)).toISOString(),
    apply: async (tx) => {
      if (invoice.status === 'Deleted' || invoice.Balance !== 0 || !(invoice.TotalAmt && invoice.TotalAmt > 0)) return false;
      const quoteId = await quoteOfExternalId(tx, 'ACCOUNTING', invoice.Id);
      if (!quoteId) return false;
      const changed = await tx.execute<{ id: string }[]>(`select id from quotes where id = ? and paid_at is null`, [quoteId]);
      if (changed.length === 0) return false;
      await markQuotePaid(tx, quoteId, Math.floor(at(invoice.MetaData) / 1000));
      return true;
    },
  }));
  const newest = Math.max(Date.parse(since), ...[...invoices, ...payments].map((e) => at(e.MetaData)));
  const watermark = new Date(newest).toISOString();
  return { changes, seen: invoices.length + payments.length, watermark, more: newest > Date.parse(since) };
}

// ---- crm: Salesforce opportunities by SystemModstamp ----

const SfOpportunity = z.looseObject({ Id: z.string().min(1), StageName: z.string().nullable(), SystemModstamp: z.string().min(1), [QUOTE_EXTERNAL_ID_FIELD]: z.string().nullable() });
const SfQueryAnswer = z.looseObject({ records: z.array(SfOpportunity), done: z.boolean() });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Watermark: the SystemModstamp (UTC ISO) of the last opportunity applied. SOQL `>=` it, ordered by
 * SystemModstamp then Id, a page at a time; `Closed Lost` on a DRAFT or SENT quote of ours rejects
 * it (D3), anything else is seen and left.
 */
export async function crmPage(connection: Connection, input: { watermark: string | null; now: number; lookbackDays: number; pageSize: number }): Promise<Page> {
  const SIZE = input.pageSize;
  const since = input.watermark ?? new Date(input.now - input.lookbackDays * DAY_MS).toISOString();
  const soql =
    `SELECT Id, StageName, ${QUOTE_EXTERNAL_ID_FIELD}, SystemModstamp FROM Opportunity ` +
    `WHERE ${QUOTE_EXTERNAL_ID_FIELD} != null AND SystemModstamp >= ${new Date(since).toISOString()} ORDER BY SystemModstamp ASC, Id ASC LIMIT ${SIZE}`;
  const answer = SfQueryAnswer.safeParse(await connection.query(soql));
  if (!answer.success) throw malformed('CRM', answer.error.issues.map((i) => i.path.join('.')).join(', ') || 'not a query answer');
  const at = (stamp: string) => {
    const ms = Date.parse(stamp.replace(/\+0000$/, 'Z'));
    if (!Number.isFinite(ms)) throw malformed('CRM', `SystemModstamp ${stamp}`);
    return ms;
  };
  const records = answer.data.records;
  const changes: Change[] = records.map((opportunity) => ({
    watermark: new Date(at(opportunity.SystemModstamp)).toISOString(),
    apply: async (tx) => {
      const quoteId = opportunity[QUOTE_EXTERNAL_ID_FIELD] as string | null;
      if (opportunity.StageName !== 'Closed Lost' || !quoteId || !UUID.test(quoteId) || !(await quoteIsOurs(tx, quoteId))) return false;
      return (await transitionQuote(tx, quoteId, 'reject')).moved;
    },
  }));
  const newest = records.length ? at(records.at(-1)!.SystemModstamp) : Date.parse(since);
  return { changes, seen: records.length, watermark: new Date(newest).toISOString(), more: records.length === SIZE && newest > Date.parse(since) };
}
