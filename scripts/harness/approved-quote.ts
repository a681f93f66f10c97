import { randomUUID } from 'node:crypto';
import type { ApprovalProgress } from '../../infra/temporal/contracts';
import type { ApiHarness } from './api-harness';
import type { TemporalHarness } from './temporal-harness';
import { approvalSettled } from './approval-progress';
import { twoWindows } from './quote-requests';

/** What the approval tests need of their stack (startApprovalStack's or a suite's own). */
export interface QuoteMaker {
  api: ApiHarness;
  temporal: TemporalHarness;
  /** The token that quotes and approves: a SALES user's, as a rule (an ADMIN's may too). */
  sales: string;
}

export interface Customer {
  name: string;
  email: string;
}

/** A kept quote as `POST /api/v1/quotes/calculate` answers it. */
export interface KeptQuote {
  quote_id: string;
  quote_number: number;
  totals: { amount_cents: number; cost_cents: number };
  line_items: { price_cents: number }[];
}

/** A new customer each call, so that no two quotes share one at the providers. */
export const newCustomer = (name = 'Avery Brooks'): Customer => ({ name, email: `${name.split(' ')[0]!.toLowerCase()}-${randomUUID()}@example.test` });

/** Two windows from the tenant's rate card, kept as a DRAFT quote for `customer`. */
export async function keptQuote(stack: QuoteMaker, customer: Customer = newCustomer()): Promise<KeptQuote> {
  const res = await stack.api.request('/api/v1/quotes/calculate', { method: 'POST', token: stack.sales, json: twoWindows({ persist: true, customer }) });
  if (res.status !== 200) throw new Error(`calculate answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as KeptQuote;
}

/** Approves the quote as SALES; answers the request id of the approval. */
export async function approve(stack: QuoteMaker, quoteId: string): Promise<string> {
  const res = await stack.api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token: stack.sales });
  if (res.status !== 200) throw new Error(`approve answered ${res.status}: ${await res.text()}`);
  return res.headers.get('x-request-id')!;
}

/**
 * A kept quote, approved, with its approval settled (every leg ended, or one waits for its
 * repair, D19): what the approval fan-out did is in `progress`.
 */
export async function approvedQuote(stack: QuoteMaker, customer: Customer = newCustomer()): Promise<KeptQuote & { requestId: string; progress: ApprovalProgress }> {
  const quote = await keptQuote(stack, customer);
  const requestId = await approve(stack, quote.quote_id);
  return { ...quote, requestId, progress: await approvalSettled(stack.temporal.client, quote.quote_id) };
}
