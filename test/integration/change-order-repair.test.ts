import { opsInProcess } from '../support/ops-in-process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startPaymentsStack, type PaymentsStack } from '../../scripts/harness/approval-stack';
import type { Tenant } from '../../scripts/harness/owner-db';
import type { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { approvalWorkflowId, changeOrderInvoiceWorkflowId } from '../../infra/temporal/contracts';
import { approvedChangeOrder, approvedQuote, jobOf, type ChangeOrderCaller } from '../support/change-orders';

/**
 * D19 for every provider call that moves money: a quote's payments leg, a change order's invoice
 * and a change order's credit note (D12). Each, refused by the payments sandbox, is recorded
 * FAILED, waits in its own workflow, is listed by `npm run ops -- failed` as what it is, and is
 * repaired by `npm run ops -- retry` addressing exactly that call.
 */
const KEY = 'sk_test_changeOrderRepair00001';

let stack: PaymentsStack;
let stripe: StripeFake;
let tenant: Tenant;
let caller: ChangeOrderCaller;

beforeAll(async () => {
  stack = await startPaymentsStack({ key: KEY });
  stripe = stack.fake;
  tenant = stack.tenant;
  caller = { api: stack.api, temporal: stack.temporal, admin: await stack.api.tokenFor(tenant.users.admin!), technicianId: tenant.users.tech!.id };
}, 120_000);
afterEach(() => stripe.faults.clear());
afterAll(() => stack.close());

/** `npm run ops -- ...` as an operator runs it, against this run's database and Temporal. */
const ops = opsInProcess;

type Metadata = { metadata: Record<string, string>; id: string };
const invoicesOf = (match: (m: Record<string, string>) => boolean) => (stripe.inspect.invoices(KEY) as unknown as Metadata[]).filter((i) => match(i.metadata));
const creditNotesOf = (changeOrderId: string) => (stripe.inspect.creditNotes(KEY) as unknown as Metadata[]).filter((n) => n.metadata.change_order_id === changeOrderId);
const refuseInvoices = () => stripe.faults.inject({ method: 'POST', path: '/v1/invoices', times: Infinity, action: faults.status(400) });
const lineOf = (out: string, workflowId: string) => out.split('\n').find((l) => l.includes(workflowId));
const syncRow = async (localId: string) => (await stack.owner.query(`select status, attempts, external_id from sync_records where provider = 'PAYMENTS' and local_id = $1`, [localId])).rows[0];

describe('D19: every failed call that moves money is listed as what it is and repaired by its own workflow', () => {
  it("a quote's payments leg: listed as a quote leg, repaired once; a second retry calls nothing and says so", async () => {
    const refusal = refuseInvoices();
    const { quoteId, quoteNumber } = await approvedQuote(caller, { name: 'Lee Chen', email: 'lee@example.test' });
    expect(await syncRow(quoteId)).toMatchObject({ status: 'FAILED' });

    const listed = await ops('failed');
    const line = lineOf(listed.out, approvalWorkflowId(quoteId));
    expect(line?.split(/\s{2,}/).slice(0, 5)).toEqual([tenant.subdomain, String(quoteNumber), 'payments', '1', 'quote leg']);

    refusal.cancel();
    const repaired = await ops('retry', String(quoteNumber), 'payments', '--tenant', tenant.subdomain);
    expect({ code: repaired.code, out: repaired.out }).toMatchObject({ code: 0, out: expect.stringMatching(/SUCCEEDED/) });
    const invoices = invoicesOf((m) => m.quote_id === quoteId && !m.change_order_id);
    expect(invoices).toHaveLength(1);
    expect(await syncRow(quoteId)).toMatchObject({ status: 'SUCCEEDED', external_id: invoices[0]!.id });

    const requests = stripe.requests.all().length;
    const again = await ops('retry', String(quoteNumber), 'payments', '--tenant', tenant.subdomain);
    expect(again.code).toBe(2);
    expect(again.out).toMatch(/already SUCCEEDED.*nothing was called/);
    expect(stripe.requests.all().length).toBe(requests);
    expect(await syncRow(quoteId)).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
  }, 120_000);

  it("a change order's invoice: FAILED, the workflow waits; listed by its reference; a refused retry exits 1 and still waits; the repair bills it once", async () => {
    const { quoteId, quoteNumber } = await approvedQuote(caller, { name: 'Lee Chen', email: 'lee@example.test' });
    const jobId = await jobOf(caller, quoteId);
    const refusal = refuseInvoices();
    const { changeOrder, settled } = await approvedChangeOrder(caller, jobId, 2);
    const changeOrderId = changeOrder.change_order_id;
    expect(settled).toMatchObject({ state: 'awaiting_repair', outcome: { status: 'FAILED' } });
    expect(await syncRow(changeOrderId)).toMatchObject({ status: 'FAILED', attempts: 1 });
    const handle = stack.temporal.client.workflow.getHandle(changeOrderInvoiceWorkflowId(changeOrderId));
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const reference = `CO-${jobId}-1`;
    const listed = await ops('failed');
    const line = lineOf(listed.out, changeOrderInvoiceWorkflowId(changeOrderId));
    expect(line?.split(/\s{2,}/).slice(0, 5)).toEqual([tenant.subdomain, String(quoteNumber), 'payments', '1', `change order ${reference}`]);
    // The quote's own leg is not what failed: its approval is not listed.
    expect(listed.out).not.toContain(approvalWorkflowId(quoteId));

    const stillRefused = await ops('retry', '--change-order', reference);
    expect(stillRefused.code).toBe(1);
    expect(stillRefused.out).toMatch(/FAILED again: .*It still waits for a repair/);
    expect(await syncRow(changeOrderId)).toMatchObject({ status: 'FAILED', attempts: 2 });

    refusal.cancel();
    const repaired = await ops('retry', '--change-order', reference);
    expect({ code: repaired.code, out: repaired.out }).toMatchObject({ code: 0, out: expect.stringMatching(/SUCCEEDED/) });
    const invoices = invoicesOf((m) => m.change_order_id === changeOrderId);
    expect(invoices).toHaveLength(1);
    expect(await handle.result()).toEqual({ status: 'SUCCEEDED', externalId: invoices[0]!.id });
    expect(await syncRow(changeOrderId)).toMatchObject({ status: 'SUCCEEDED', attempts: 3, external_id: invoices[0]!.id });
    expect((await ops('failed')).out).not.toContain(changeOrderInvoiceWorkflowId(changeOrderId));

    const again = await ops('retry', '--change-order', changeOrderId);
    expect(again.code).toBe(2);
    expect(again.out).toMatch(/already SUCCEEDED/);
  }, 120_000);

  it("a change order's credit note: listed as a credit note, repaired by the change order's id", async () => {
    const { quoteId } = await approvedQuote(caller, { name: 'Lee Chen', email: 'lee@example.test' });
    const jobId = await jobOf(caller, quoteId);
    const refusal = stripe.faults.inject({ method: 'POST', path: '/v1/credit_notes', times: Infinity, action: faults.status(400) });
    const { changeOrder, settled } = await approvedChangeOrder(caller, jobId, -1);
    const changeOrderId = changeOrder.change_order_id;
    expect(settled).toMatchObject({ state: 'awaiting_repair' });
    const line = lineOf((await ops('failed')).out, changeOrderInvoiceWorkflowId(changeOrderId));
    expect(line).toContain(`credit note CO-${jobId}-1`);

    refusal.cancel();
    const repaired = await ops('retry', '--change-order', changeOrderId);
    expect(repaired.code).toBe(0);
    expect(creditNotesOf(changeOrderId)).toHaveLength(1);
    expect(await stack.temporal.client.workflow.getHandle(changeOrderInvoiceWorkflowId(changeOrderId)).result()).toMatchObject({ status: 'SUCCEEDED', externalId: creditNotesOf(changeOrderId)[0]!.id });
  }, 120_000);

  it('after an outage, `retry --all payments --tenant` repairs every failed call of the provider with a line each and a summary', async () => {
    const { quoteId } = await approvedQuote(caller, { name: 'Lee Chen', email: 'lee@example.test' });
    const jobId = await jobOf(caller, quoteId);
    const refusal = refuseInvoices();
    const raised = [await approvedChangeOrder(caller, jobId, 1), await approvedChangeOrder(caller, jobId, 3)];
    for (const { settled } of raised) expect(settled).toMatchObject({ state: 'awaiting_repair' });
    const [first, second] = raised.map((r) => r.changeOrder.change_order_id);
    const down = await ops('retry', '--all', 'payments', '--tenant', tenant.subdomain);
    expect(down.code).toBe(1);
    refusal.cancel();
    const up = await ops('retry', '--all', 'payments', '--tenant', tenant.subdomain);
    expect(up.out).toMatch(/\[1\/\d+\]/);
    expect(up.out).toMatch(/Summary: \d+ SUCCEEDED, 0 FAILED again/);
    expect(up.code).toBe(0);
    for (const id of [first!, second!]) expect(invoicesOf((m) => m.change_order_id === id)).toHaveLength(1);
    expect((await ops('retry', '--all', 'payments', '--tenant', tenant.subdomain)).out).toMatch(/No FAILED payments in/);
  }, 180_000);

  it('a call whose workflow has ended is said to have ended, not retried', async () => {
    const { quoteId } = await approvedQuote(caller, { name: 'Lee Chen', email: 'lee@example.test' });
    const jobId = await jobOf(caller, quoteId);
    refuseInvoices();
    const { changeOrder, settled } = await approvedChangeOrder(caller, jobId, 1);
    const changeOrderId = changeOrder.change_order_id;
    expect(settled).toMatchObject({ state: 'awaiting_repair' });
    await stack.temporal.client.workflow.getHandle(changeOrderInvoiceWorkflowId(changeOrderId)).terminate('an operator gave up on it');
    const requests = stripe.requests.all().length;
    const late = await ops('retry', '--change-order', changeOrderId);
    expect(late.code).toBe(2);
    expect(late.out).toMatch(/Nothing retried: the change order invoice workflow .* is terminated, not waiting for a repair/);
    expect(stripe.requests.all().length).toBe(requests);
    for (const args of [['retry', '--change-order'], ['retry', '--change-order', 'CO-12'], ['retry', '--all', 'ledger']]) {
      const bad = await ops(...args);
      expect([args, bad.code, bad.out]).toEqual([args, 2, expect.stringMatching(/usage: npm run ops/)]);
    }
    expect((await ops('--help')).out).toMatch(/--change-order/);
  }, 120_000);
});
