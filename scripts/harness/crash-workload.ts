import LinkHeader from 'http-link-header';
import type { RetryingClient } from './retrying-client';
import type { ApprovedQuote, ExpectedEvent } from './crash-census';
import { twoWindows } from './quote-requests';

/**
 * The units of work of a crash campaign, each through the public API with a client that sends a
 * request again when the API was not there to answer it. What makes sending again safe is said
 * at each step: the campaign counts on it to tell a duplicate made by us from one made by the
 * service.
 */

export interface CampaignTokens {
  sales: string;
  admin: string;
}

/** How a campaign's quote is made: section 4.3's calculate, or D14's `/v1/quotes` with idempotency keys. */
export type QuotePath = 'calculate' | 'v1';

/**
 * Makes a quote for a customer of its own by `path`, then approves it.
 *
 * - `calculate` (`POST /api/v1/quotes/calculate`, persist) takes no idempotency key: one sent
 *   again may leave an extra DRAFT quote behind, never approved, so no provider or receiver hears
 *   of it.
 * - `v1` (`POST /v1/customers`, `POST /v1/quotes`) takes one (D14): sent again with the same key it
 *   answers the first answer; a key claimed by a killed API is `idempotency-key-in-use` until its
 *   lease runs out, and then runs anew, so the client keeps sending it.
 *
 * `copies` sends the `/v1/quotes` request that many times at once, with the same key (over several
 * API processes, each to the next one): every answer must name the same quote.
 *
 * An approve sent again after its first answer was lost is a 409 (D3: approved exactly once); the
 * quote then reads APPROVED, which is the answer the first attempt would have given.
 */
export async function approveQuote(client: RetryingClient, tokens: CampaignTokens, customer: { name: string; email: string }, path: QuotePath, key: string, copies = 1): Promise<ApprovedQuote> {
  const quote = path === 'calculate' ? await calculatedQuote(client, tokens, customer) : await v1Quote(client, tokens, customer, key, copies);
  const res = await client.request(`/api/v1/quotes/${quote.id}/approve`, { method: 'POST', token: tokens.sales });
  if (res.status === 409) {
    const detail = await client.json<{ status: string }>(`/api/v1/quotes/${quote.id}`, { token: tokens.sales });
    if (detail.status !== 'APPROVED') throw new Error(`approve of ${quote.id} answered 409 and the quote is ${detail.status}`);
  } else if (res.status !== 200) {
    throw new Error(`approve of ${quote.id} answered ${res.status}: ${await res.text()}`);
  }
  return {
    quoteId: quote.id,
    quoteNumber: quote.number,
    customerName: customer.name,
    customerEmail: customer.email,
    // One payments invoice item per quote line and the explicit tax line (activities/payments/write-invoice.ts).
    invoiceItems: quote.lines + 1,
  };
}

interface MadeQuote {
  id: string;
  number: number;
  lines: number;
}

async function calculatedQuote(client: RetryingClient, tokens: CampaignTokens, customer: { name: string; email: string }): Promise<MadeQuote> {
  const priced = await client.json<{ quote_id: string; quote_number: number; line_items: unknown[] }>('/api/v1/quotes/calculate', {
    method: 'POST',
    token: tokens.sales,
    json: twoWindows({ persist: true, customer }),
  });
  return { id: priced.quote_id, number: priced.quote_number, lines: priced.line_items.length };
}

async function v1Quote(client: RetryingClient, tokens: CampaignTokens, customer: { name: string; email: string }, key: string, copies: number): Promise<MadeQuote> {
  const made = await idempotentPost<{ id: string }>(client, tokens.sales, '/v1/customers', customer, `${key}-customer`);
  const pricebooks = await client.json<{ data: { id: string }[] }>('/v1/pricebooks', { token: tokens.sales });
  const body = {
    customerId: made.id,
    currency: 'CAD',
    taxRegion: 'CA-ON',
    pricebookId: pricebooks.data[0]!.id,
    lines: [
      { sku: 'ROLLER-SCREEN', quantity: 2, configuration: { finishedWidthIn: 72.5, finishedHeightIn: 60, controlSide: 'left', motorised: true, motorSku: 'MTR-BATTERY' } },
      { sku: 'ROLLER-BLACKOUT-HD-FASCIA', quantity: 1, configuration: { finishedWidthIn: 35.25, finishedHeightIn: 48, controlSide: 'right', motorised: false } },
    ],
  };
  const answers = await Promise.all(Array.from({ length: copies }, () => idempotentPost<{ id: string; reference: string; lines: unknown[] }>(client, tokens.sales, '/v1/quotes', body, `${key}-quote`)));
  const quote = answers[0]!;
  const ids = new Set(answers.map((a) => a.id));
  if (ids.size !== 1) throw new Error(`one idempotency key ${key}-quote made ${ids.size} quotes: ${[...ids].join(', ')}`);
  const number = /^Q-(\d+)$/.exec(quote.reference);
  if (!number) throw new Error(`a /v1 quote reference ${quote.reference} is not Q-<number>`);
  return { id: quote.id, number: Number(number[1]), lines: quote.lines.length };
}

/** A D14 POST with its key, sent again (same key, same body) until it is answered 200 or 201. */
async function idempotentPost<T>(client: RetryingClient, token: string, path: string, json: unknown, key: string): Promise<T> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const res = await client.request(path, { method: 'POST', token, json, headers: { 'idempotency-key': key } });
    if (res.status === 200 || res.status === 201) return (await res.json()) as T;
    const body = await res.text();
    // The first attempt's API died holding the key: it is free again once its lease runs out.
    if (res.status === 409 && body.includes('idempotency-key-in-use') && Date.now() < deadline) {
      client.waitedForKeys++;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      continue;
    }
    throw new Error(`POST ${path} answered ${res.status}: ${body}`);
  }
}

/**
 * A work order moved PENDING -> DISPATCHED -> COMPLETED (`moves` of them, 1 or 2), each move one
 * event. A create sent again may leave an extra PENDING work order that never moves (no event);
 * a move sent again finds the status already reached and answers `unchanged: true`, emitting
 * nothing (section 3.2), so each move is one change.
 */
export async function moveWorkOrder(client: RetryingClient, tokens: CampaignTokens, moves: 1 | 2): Promise<ExpectedEvent[]> {
  const created = await client.json<{ id: string }>('/api/v1/work-orders', { method: 'POST', token: tokens.admin, json: {} }, 201);
  const made: ExpectedEvent[] = [];
  for (const status of (['DISPATCHED', 'COMPLETED'] as const).slice(0, moves)) {
    await client.json(`/api/v1/work-orders/${created.id}/status`, { method: 'PATCH', token: tokens.admin, json: { status } });
    made.push({ event: `work_order.${status.toLowerCase()}`, subject: created.id });
  }
  return made;
}

export interface LegStatus {
  quoteId: string;
  provider: string;
  status: string;
  lastError: string | null;
}

/** Every approval leg in the sync log (GET /api/v1/integrations/syncs, every page). */
export async function approvalLegs(client: RetryingClient, admin: string): Promise<LegStatus[]> {
  const legs: LegStatus[] = [];
  let path: string | null = '/api/v1/integrations/syncs?limit=100';
  while (path) {
    const res = await client.request(path, { token: admin });
    if (res.status !== 200) throw new Error(`the sync log answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { data: { provider: string; entity_type: string; local_id: string; status: string; last_error: string | null }[] };
    for (const r of page.data) legs.push({ quoteId: r.local_id, provider: r.provider, status: r.status, lastError: r.last_error });
    const link = res.headers.get('link');
    const next = link ? LinkHeader.parse(link).rel('next')[0]?.uri : undefined;
    path = next ? new URL(next, 'http://api.invalid').pathname + new URL(next, 'http://api.invalid').search : null;
  }
  return legs;
}

export const LEG_PROVIDERS = ['PAYMENTS', 'ACCOUNTING', 'CRM'] as const;

/** The quotes whose three legs have not all SUCCEEDED yet, with what each has reached. */
export function unsettledQuotes(quoteIds: readonly string[], legs: readonly LegStatus[]): string[] {
  const done = new Set(legs.filter((l) => l.status === 'SUCCEEDED').map((l) => `${l.quoteId} ${l.provider}`));
  return quoteIds.filter((id) => LEG_PROVIDERS.some((p) => !done.has(`${id} ${p}`)));
}
