import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { temporal as proto } from '@temporalio/proto';
import type { ApiHarness } from '../../scripts/harness/api-harness';
import { startApprovalStack, type ApprovalStack } from '../../scripts/harness/approval-stack';
import type { Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import type { IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { approvalSettled } from '../../scripts/harness/approval-progress';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { RETRY_LEG, WORKFLOW_TYPES, approvalWorkflowId, invoiceWorkflowId, type LegOutcome, type QuoteInvoiceWorkflow } from '../../infra/temporal/contracts';

/**
 * The lean approval: the plan is a local activity (a marker in the history, no activity task),
 * each leg is one activity task that records its own SUCCEEDED sync row, and a failed leg's row
 * is written by a local activity. Read from the workflow's history through the Temporal client.
 * An approval with three legs takes three activity tasks (a plan, three writes and three records
 * as activities of their own would take seven).
 */
const KEY = 'sk_test_leanApproval0001';
/** The marker the SDK records for each completed local activity. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';
const PATCH_MARKER = 'core_patch';

let owner: pg.Pool;
let fakes: IntegrationFakes;
let stripe: StripeFake;
let closeStripe: () => Promise<void>;
let temporal: TemporalHarness;
let api: ApiHarness;
let tenant: Tenant;
let sales: string;

let stack: ApprovalStack;

beforeAll(async () => {
  stripe = new StripeFake({ apiKeys: [KEY] });
  const started = await stripe.start();
  closeStripe = started.close;
  stack = await startApprovalStack({ payments: { secretKey: KEY, baseUrl: started.url } });
  ({ owner, fakes, temporal, api, tenant, sales } = stack);
}, 120_000);
afterEach(() => stripe.faults.clear());
afterAll(async () => {
  await stack.close();
  await closeStripe();
});

type History = proto.api.history.v1.IHistory;

/** What a run cost in round trips: its activity tasks (type and input) and its local activities. */
function shapeOf(history: History) {
  const events = history.events ?? [];
  const activities = events
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a != null)
    .map((a) => ({ type: a.activityType!.name!, input: JSON.parse(Buffer.from(a.input!.payloads![0]!.data!).toString('utf8')) as Record<string, unknown> }));
  const markers = events.map((e) => e.markerRecordedEventAttributes?.markerName).filter((name) => name != null);
  return { activities, localActivities: markers.filter((m) => m === LOCAL_ACTIVITY_MARKER).length, patches: markers.filter((m) => m === PATCH_MARKER).length };
}

async function approve(): Promise<{ quoteId: string; progress: Awaited<ReturnType<typeof approvalSettled>> }> {
  const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: sales, json: twoWindows({ persist: true, customer: { name: 'Lean Case', email: `lean-${Date.now()}-${Math.random()}@example.test` } }) });
  const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
  expect((await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token: sales })).status).toBe(200);
  return { quoteId, progress: await approvalSettled(temporal.client, quoteId) };
}
const rows = async (quoteId: string) =>
  Object.fromEntries((await owner.query('select provider, status, attempts, external_id, last_error from sync_records where quote_id = $1', [quoteId])).rows.map((r) => [r.provider, r]));
const invoicesAtStripe = (quoteId: string) => stripe.inspect.invoices(KEY).filter((i) => (i.metadata as Record<string, string>).quote_id === quoteId);
const invoiceGenerated = async (quoteId: string) =>
  (await owner.query(`select count(distinct envelope->'data'->>'id')::int as n from outbox_events where event = 'invoice.generated' and envelope->'data'->>'quoteId' = $1`, [quoteId])).rows[0].n as number;

describe('the lean approval', () => {
  it('three legs: one activity task per leg, each recording its own row; the plan is a local activity', async () => {
    const { quoteId, progress } = await approve();
    expect(progress.state).toBe('completed');
    const shape = shapeOf(await temporal.client.workflow.getHandle(approvalWorkflowId(quoteId)).fetchHistory());
    // D24's courtesy email of the invoice link follows the payments leg (it sends only to a customer who accepted on the page).
    expect(shape.activities.map((a) => a.type)).toEqual(['writePaymentsInvoice', 'writeAccountingInvoice', 'upsertCrmOpportunity', 'emailInvoiceToCustomer']);
    for (const activity of shape.activities.slice(0, 3)) expect(activity.input).toEqual({ organizationId: tenant.id, quoteId });
    expect(shape.activities[3]!.input).toEqual({ organizationId: tenant.id, quoteId, invoiceId: invoicesAtStripe(quoteId)[0]!.id });
    expect(shape.localActivities).toBe(1);
    expect(shape.patches).toBe(1); // the one version marker: the email, patched in so older histories replay

    const recorded = await rows(quoteId);
    for (const provider of ['PAYMENTS', 'ACCOUNTING', 'CRM']) expect(recorded[provider]).toMatchObject({ status: 'SUCCEEDED', attempts: 1, last_error: null });
    expect(recorded.PAYMENTS.external_id).toBe(invoicesAtStripe(quoteId)[0]!.id);
    expect(invoicesAtStripe(quoteId)).toHaveLength(1);
    expect(await invoiceGenerated(quoteId)).toBe(1);
  }, 120_000);

  it('a refused leg: FAILED with the last error by a local activity, awaiting repair; retryLeg runs the one activity again and the approval completes', async () => {
    stripe.faults.inject({ method: 'POST', path: '/v1/invoices', times: 1, action: faults.status(400) });
    const { quoteId, progress } = await approve();
    expect(progress.state).toBe('awaiting_repair');
    const failed = await rows(quoteId);
    expect(failed.PAYMENTS).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(failed.PAYMENTS.last_error).toMatch(/refused/);
    const handle = temporal.client.workflow.getHandle(approvalWorkflowId(quoteId));
    const waiting = shapeOf(await handle.fetchHistory());
    expect(waiting.activities.map((a) => a.type)).toEqual(['writePaymentsInvoice', 'writeAccountingInvoice', 'upsertCrmOpportunity']);
    expect(waiting.localActivities).toBe(2); // the plan, the FAILED row

    const repaired = await handle.executeUpdate<LegOutcome, [{ provider: 'PAYMENTS' }]>(RETRY_LEG, { args: [{ provider: 'PAYMENTS' }] });
    expect(repaired).toMatchObject({ provider: 'PAYMENTS', status: 'SUCCEEDED', externalId: invoicesAtStripe(quoteId)[0]!.id });
    await handle.result();
    const done = shapeOf(await handle.fetchHistory());
    expect(done.activities.map((a) => a.type)).toEqual(['writePaymentsInvoice', 'writeAccountingInvoice', 'upsertCrmOpportunity', 'writePaymentsInvoice', 'emailInvoiceToCustomer']);
    expect(done.localActivities).toBe(2);
    expect((await rows(quoteId)).PAYMENTS).toMatchObject({ status: 'SUCCEEDED', attempts: 2, last_error: null });
    expect(invoicesAtStripe(quoteId)).toHaveLength(1);
    expect(await invoiceGenerated(quoteId)).toBe(1);
  }, 120_000);

  it('quoteInvoice (POST /quotes/{id}/invoice): one activity task, and run again it writes nothing twice', async () => {
    const { quoteId } = await approve();
    const invoice = invoicesAtStripe(quoteId)[0]!;
    const outcome = await temporal.client.workflow.execute<QuoteInvoiceWorkflow>(WORKFLOW_TYPES.quoteInvoice, {
      taskQueue: temporal.taskQueue,
      workflowId: invoiceWorkflowId(quoteId),
      args: [{ organizationId: tenant.id, quoteId, timing: TEST_TIMING }],
    });
    expect(outcome).toMatchObject({ provider: 'PAYMENTS', status: 'SUCCEEDED', externalId: invoice.id });
    const shape = shapeOf(await temporal.client.workflow.getHandle(invoiceWorkflowId(quoteId)).fetchHistory());
    expect(shape.activities).toEqual([
      { type: 'writePaymentsInvoice', input: { organizationId: tenant.id, quoteId } },
      { type: 'emailInvoiceToCustomer', input: { organizationId: tenant.id, quoteId, invoiceId: invoice.id } },
    ]);
    expect(shape.localActivities).toBe(0);
    expect(shape.patches).toBe(1);
    expect(invoicesAtStripe(quoteId)).toHaveLength(1);
    expect((await rows(quoteId)).PAYMENTS).toMatchObject({ status: 'SUCCEEDED', attempts: 2, external_id: invoice.id });
    expect(await invoiceGenerated(quoteId)).toBe(1);
  }, 120_000);
});
