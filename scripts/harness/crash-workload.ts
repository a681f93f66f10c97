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

/**
 * Prices and persists a quote for a customer of its own, then approves it. A calculate sent again
 * may leave an extra DRAFT quote behind: it is never approved, so no provider or receiver hears
 * of it. An approve sent again after its first answer was lost is a 409 (D3: approved exactly
 * once); the quote then reads APPROVED, which is the answer the first attempt would have given.
 */
export async function approveQuote(client: RetryingClient, tokens: CampaignTokens, customer: { name: string; email: string }): Promise<ApprovedQuote> {
  const priced = await client.json<{ quote_id: string; quote_number: number; line_items: unknown[] }>('/api/v1/quotes/calculate', {
    method: 'POST',
    token: tokens.sales,
    json: twoWindows({ persist: true, customer }),
  });
  const res = await client.request(`/api/v1/quotes/${priced.quote_id}/approve`, { method: 'POST', token: tokens.sales });
  if (res.status === 409) {
    const quote = await client.json<{ status: string }>(`/api/v1/quotes/${priced.quote_id}`, { token: tokens.sales });
    if (quote.status !== 'APPROVED') throw new Error(`approve of ${priced.quote_id} answered 409 and the quote is ${quote.status}`);
  } else if (res.status !== 200) {
    throw new Error(`approve of ${priced.quote_id} answered ${res.status}: ${await res.text()}`);
  }
  return {
    quoteId: priced.quote_id,
    quoteNumber: priced.quote_number,
    customerName: customer.name,
    customerEmail: customer.email,
    // One payments invoice item per quote line and the explicit tax line (activities/payments/write-invoice.ts).
    invoiceItems: priced.line_items.length + 1,
  };
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
