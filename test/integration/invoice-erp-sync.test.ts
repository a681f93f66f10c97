import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { ApiHarness } from '../../scripts/harness/api-harness';
import { startApprovalStack, type ApprovalStack } from '../../scripts/harness/approval-stack';
import type { IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { twoWindows } from '../../scripts/harness/quote-requests';
import type { TemporalHarness } from '../../scripts/harness/temporal-harness';
import { approvalSettled } from '../../scripts/harness/approval-progress';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { RETRY_LEG, approvalWorkflowId, type LegOutcome } from '../../infra/temporal/contracts';

/**
 * Issue 30, defect 4: `invoice.generated`'s `erpSync` carries the accounting leg's settled
 * outcome. The payments leg may finalise the quote's invoice before the accounting leg ends; the
 * event then says `pending` and, when the leg settles, a later revision of the same invoice's
 * event carries the settled status with `previousAttributes: {erpSync}` (docs/webhooks.md). The
 * accounting fake is made slow so the payments leg is first, through real Temporal.
 */
const KEY = 'sk_test_invoiceErpSync001';
/** The accounting leg's invoice create at the QuickBooks fake. */
const QBO_INVOICE = /^\/v3\/company\/[^/]+\/invoice$/;
/** Its customer lookup, the leg's first call. */
const QBO_QUERY = /^\/v3\/company\/[^/]+\/query$/;

let stripe: StripeFake;
let closeStripe: () => Promise<void>;
let stack: ApprovalStack;
let owner: pg.Pool;
let fakes: IntegrationFakes;
let temporal: TemporalHarness;
let api: ApiHarness;
let sales: string;

beforeAll(async () => {
  stripe = new StripeFake({ apiKeys: [KEY] });
  const started = await stripe.start();
  closeStripe = started.close;
  stack = await startApprovalStack({ payments: { secretKey: KEY, baseUrl: started.url } });
  ({ owner, fakes, temporal, api, sales } = stack);
}, 120_000);
afterEach(() => fakes.qbo.faults.clear());
afterAll(async () => {
  await stack.close();
  await closeStripe();
});

interface InvoiceEvent {
  id: string;
  revision: number;
  sourceType: string;
  erpSync: { target: string; status: string };
  previousAttributes?: { erpSync: { target: string; status: string } };
  totals: unknown;
  taxLines: unknown;
}

async function approve(): Promise<string> {
  const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: sales, json: twoWindows({ persist: true, customer: { name: 'Erp Sync', email: `erp-${Date.now()}-${Math.random()}@example.test` } }) });
  const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
  expect((await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token: sales })).status).toBe(200);
  return quoteId;
}

/** Every `invoice.generated` of the quote, in the order recorded. */
const invoiceEvents = async (quoteId: string): Promise<InvoiceEvent[]> =>
  (await owner.query(`select envelope->'data' as data from outbox_events where event = 'invoice.generated' and envelope->'data'->>'quoteId' = $1 order by sequence`, [quoteId])).rows.map(
    (r) => r.data as InvoiceEvent,
  );
const syncStatus = async (quoteId: string, provider: string) =>
  (await owner.query(`select status from sync_records where quote_id = $1 and provider = $2 and entity_type = 'invoice'`, [quoteId, provider])).rows[0]?.status as string | undefined;

/** docs/webhooks.md's receiver rule: per invoice `id`, keep the highest `revision` seen, drop the rest. */
function keptByReceiver(arrivals: InvoiceEvent[]): InvoiceEvent[] {
  const held = new Map<string, InvoiceEvent>();
  for (const event of arrivals) if ((held.get(event.id)?.revision ?? 0) < event.revision) held.set(event.id, event);
  return [...held.values()];
}

describe('invoice.generated carries the accounting leg settled (issue 30, defect 4)', () => {
  it('accounting connected and slow: the event never says not_connected, and its last revision says succeeded, correcting pending', async () => {
    fakes.qbo.faults.inject({ method: 'POST', path: QBO_INVOICE, times: 1, action: faults.delay(1_500) });
    const quoteId = await approve();
    expect((await approvalSettled(temporal.client, quoteId)).state).toBe('completed');
    const events = await invoiceEvents(quoteId);
    expect(events.map((e) => e.erpSync.status)).not.toContain('not_connected');
    const last = events.at(-1)!;
    expect(last.erpSync).toEqual({ target: 'accounting', status: 'succeeded' });
    expect(await syncStatus(quoteId, 'ACCOUNTING')).toBe('SUCCEEDED');
    // The payments leg finished first: the first event said the leg was still running, and the
    // revision is of the same invoice with the same figures.
    expect(events).toHaveLength(2);
    expect(events[0]!.erpSync.status).toBe('pending');
    expect(events[0]!.previousAttributes).toBeUndefined();
    expect(last.previousAttributes).toEqual({ erpSync: { target: 'accounting', status: 'pending' } });
    expect({ ...last, erpSync: undefined, previousAttributes: undefined, revision: undefined }).toEqual({ ...events[0], erpSync: undefined, previousAttributes: undefined, revision: undefined });
    // The correction is a later revision of the invoice's event, so a receiver that gets it first
    // keeps it and drops the original arriving after it.
    expect(events.map((e) => e.revision)).toEqual([1, 2]);
    expect(keptByReceiver([...events].reverse())).toEqual([last]);
  }, 120_000);

  it('accounting fails after the invoice: a revision says failed; its repair by retryLeg is one more revision saying succeeded', async () => {
    fakes.qbo.faults.inject({ method: 'GET', path: QBO_QUERY, times: 1, action: faults.delay(1_500) });
    fakes.qbo.faults.inject({ method: 'POST', path: QBO_INVOICE, times: 1, action: faults.status(400) });
    const quoteId = await approve();
    expect((await approvalSettled(temporal.client, quoteId)).state).toBe('awaiting_repair');
    expect((await invoiceEvents(quoteId)).map((e) => [e.erpSync.status, e.previousAttributes?.erpSync.status ?? null])).toEqual([
      ['pending', null],
      ['failed', 'pending'],
    ]);

    const handle = temporal.client.workflow.getHandle(approvalWorkflowId(quoteId));
    const repaired = await handle.executeUpdate<LegOutcome, [{ provider: 'ACCOUNTING' }]>(RETRY_LEG, { args: [{ provider: 'ACCOUNTING' }] });
    expect(repaired).toMatchObject({ provider: 'ACCOUNTING', status: 'SUCCEEDED' });
    const events = await invoiceEvents(quoteId);
    expect(events.map((e) => [e.erpSync.status, e.previousAttributes?.erpSync.status ?? null])).toEqual([
      ['pending', null],
      ['failed', 'pending'],
      ['succeeded', 'failed'],
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(1);
    expect(events.map((e) => e.revision)).toEqual([1, 2, 3]);
    // Whatever order a receiver gets them in, it ends on the repair.
    for (const order of [[2, 0, 1], [1, 2, 0], [2, 1, 0]]) expect(keptByReceiver(order.map((i) => events[i]!))).toEqual([events[2]]);
  }, 120_000);

  it('accounting settled before the payments leg commits: one event, already succeeded', async () => {
    stripe.faults.inject({ method: 'POST', path: '/v1/invoices', times: 1, action: faults.delay(1_500) });
    const quoteId = await approve();
    expect((await approvalSettled(temporal.client, quoteId)).state).toBe('completed');
    const events = await invoiceEvents(quoteId);
    expect(events.map((e) => [e.erpSync.status, e.previousAttributes ?? null, e.revision])).toEqual([['succeeded', null, 1]]);
  }, 120_000);
});
