import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { opsInProcess } from '../support/ops-in-process';
import type pg from 'pg';
import type { ApiHarness } from '../../scripts/harness/api-harness';
import { startApprovalStack, type ApprovalStack } from '../../scripts/harness/approval-stack';
import type { Tenant } from '../../scripts/harness/owner-db';
import type { TemporalHarness } from '../../scripts/harness/temporal-harness';
import type { IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { faults } from '../../scripts/sandboxes/faults';
import { RETRY_LEG, approvalWorkflowId, type LegOutcome } from '../../infra/temporal/contracts';
import { ApprovalStateKey } from '../../infra/temporal/search-attributes';
import { QUOTE_EXTERNAL_ID_FIELD } from '../../activities/crm/upsert-opportunity';
import * as quotes from '../../scripts/harness/approved-quote';

/**
 * D19: a failed leg does not end its approval. It waits (ApprovalState = awaiting_repair) for the
 * `retryLeg` update, which `npm run ops -- retry` sends; the leg runs again with the same keys.
 */
let owner: pg.Pool;
let fakes: IntegrationFakes;
let temporal: TemporalHarness;
let api: ApiHarness;
let tenant: Tenant;
let sales: string;

let stack: ApprovalStack;

beforeAll(async () => {
  stack = await startApprovalStack();
  ({ owner, fakes, temporal, api, tenant, sales } = stack);
}, 120_000);
afterAll(() => stack.close());

/** `npm run ops -- ...` as an operator runs it, against this run's database and Temporal. */
const ops = opsInProcess;

const approvedQuote = () => quotes.approvedQuote(stack, quotes.newCustomer('Repair Case'));
const row = async (quoteId: string, provider: string) =>
  (await owner.query('select status, attempts, external_id, last_error from sync_records where quote_id = $1 and provider = $2', [quoteId, provider])).rows[0];
const realm = async () => (await owner.query(`select external_account_id from integration_connections where organization_id = $1 and provider = 'ACCOUNTING'`, [tenant.id])).rows[0].external_account_id as string;
const approvalState = async (quoteId: string) => (await temporal.client.workflow.getHandle(approvalWorkflowId(quoteId)).describe()).typedSearchAttributes.get(ApprovalStateKey);

describe('D19: repairing a failed accounting leg with the ops command', () => {
  it('QuickBooks refuses (400): FAILED, awaiting_repair; listed by `ops failed`; a retry still refused exits 1; healed, the retry writes one invoice and the approval completes', async () => {
    const refusal = fakes.qbo.faults.inject({ method: 'POST', path: '/v3/company/*/invoice', times: Infinity, action: faults.status(400) });
    const quote = await approvedQuote();
    expect(quote.progress.state).toBe('awaiting_repair');
    expect(quote.progress.legs.find((l) => l.provider === 'ACCOUNTING')).toMatchObject({ status: 'FAILED' });
    expect(await row(quote.quote_id, 'ACCOUNTING')).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(await row(quote.quote_id, 'CRM')).toMatchObject({ status: 'SUCCEEDED' });
    expect(await approvalState(quote.quote_id)).toBe('awaiting_repair');

    const listed = await ops('failed');
    expect(listed.code).toBe(0);
    const line = listed.out.split('\n').find((l) => l.includes(approvalWorkflowId(quote.quote_id)));
    expect(line).toBeDefined();
    expect(line!.split(/\s{2,}/).slice(0, 4)).toEqual([tenant.subdomain, String(quote.quote_number), 'accounting', '1']);
    expect(line).toMatch(/refused/);

    const stillRefused = await ops('retry', String(quote.quote_number), 'accounting', '--tenant', tenant.subdomain);
    expect(stillRefused.code).toBe(1);
    expect(stillRefused.out).toMatch(/FAILED again/);
    expect(await row(quote.quote_id, 'ACCOUNTING')).toMatchObject({ status: 'FAILED', attempts: 2 });
    expect(await approvalState(quote.quote_id)).toBe('awaiting_repair');

    refusal.cancel();
    const repaired = await ops('retry', String(quote.quote_number), 'accounting', '--tenant', tenant.subdomain);
    expect(repaired.code).toBe(0);
    expect(repaired.out).toMatch(/SUCCEEDED/);
    const invoices = fakes.qbo.inspect.invoices(await realm()).filter((i) => i.DocNumber === `Q-${quote.quote_number}`);
    expect(invoices).toHaveLength(1);
    expect(await row(quote.quote_id, 'ACCOUNTING')).toMatchObject({ status: 'SUCCEEDED', attempts: 3, external_id: invoices[0]!.Id, last_error: null });
    const result = (await temporal.client.workflow.getHandle(approvalWorkflowId(quote.quote_id)).result()) as { legs: LegOutcome[] };
    expect(result.legs.map((l) => [l.provider, l.status])).toEqual([
      ['PAYMENTS', 'SKIPPED'],
      ['ACCOUNTING', 'SUCCEEDED'],
      ['CRM', 'SUCCEEDED'],
    ]);
    expect(await approvalState(quote.quote_id)).toBe('completed');
    expect((await ops('failed')).out).not.toContain(approvalWorkflowId(quote.quote_id));

    // The leg succeeded: nothing is retried or called, and the command says so.
    const before = fakes.qbo.requests.all().length;
    const late = await ops('retry', String(quote.quote_number), 'accounting', '--tenant', tenant.subdomain);
    expect(late.code).toBe(2);
    expect(late.out).toMatch(/Nothing retried: the quote .* accounting leg already SUCCEEDED .*nothing was called/);
    expect(fakes.qbo.requests.all().length).toBe(before);
    expect(await row(quote.quote_id, 'ACCOUNTING')).toMatchObject({ status: 'SUCCEEDED', attempts: 3 });
  }, 120_000);

  it('a retry of a leg that already succeeded answers that and calls nothing; the approval waits until every failed leg is repaired', async () => {
    const qboRefusal = fakes.qbo.faults.inject({ method: 'POST', path: '/v3/company/*/invoice', times: Infinity, action: faults.status(400) });
    const sfRefusal = fakes.sf.faults.inject({ method: 'PATCH', path: /Opportunity\/Quote_Id__c\//, times: Infinity, action: faults.status(400) });
    const quote = await approvedQuote();
    expect(quote.progress.legs.filter((l) => l.status === 'FAILED').map((l) => l.provider)).toEqual(['ACCOUNTING', 'CRM']);
    const handle = temporal.client.workflow.getHandle(approvalWorkflowId(quote.quote_id));
    qboRefusal.cancel();
    expect(await handle.executeUpdate<LegOutcome, [{ provider: 'ACCOUNTING' }]>(RETRY_LEG, { args: [{ provider: 'ACCOUNTING' }] })).toMatchObject({ provider: 'ACCOUNTING', status: 'SUCCEEDED' });

    const before = fakes.qbo.requests.all().length;
    const again = await handle.executeUpdate<LegOutcome, [{ provider: 'ACCOUNTING' }]>(RETRY_LEG, { args: [{ provider: 'ACCOUNTING' }] });
    expect(again).toMatchObject({ provider: 'ACCOUNTING', status: 'SUCCEEDED' });
    expect(fakes.qbo.requests.all().length).toBe(before);
    expect(await row(quote.quote_id, 'ACCOUNTING')).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
    // A skipped leg answers SKIPPED, a provider that is no leg is refused by the update's validator.
    expect(await handle.executeUpdate<LegOutcome, [{ provider: 'PAYMENTS' }]>(RETRY_LEG, { args: [{ provider: 'PAYMENTS' }] })).toMatchObject({ status: 'SKIPPED' });
    await expect(handle.executeUpdate(RETRY_LEG, { args: [{ provider: 'LEDGER' }] })).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await approvalState(quote.quote_id)).toBe('awaiting_repair');

    sfRefusal.cancel();
    const crm = await ops('retry', String(quote.quote_number), 'CRM', '--tenant', tenant.subdomain);
    expect(crm.code).toBe(0);
    await handle.result();
    expect(await approvalState(quote.quote_id)).toBe('completed');
    expect(fakes.sf.inspect.records('Opportunity', (await owner.query(`select external_account_id from integration_connections where organization_id = $1 and provider = 'CRM'`, [tenant.id])).rows[0].external_account_id).filter((r) => r[QUOTE_EXTERNAL_ID_FIELD] === quote.quote_id)).toHaveLength(1);
  }, 120_000);

  it('refuses bad arguments and unknown quotes without calling anything (exit 2)', async () => {
    for (const args of [['retry'], ['retry', '12', 'ledger', '--tenant', tenant.subdomain], ['retry', 'x', 'crm', '--tenant', tenant.subdomain], ['retry', '12', 'crm'], ['nonsense']]) {
      const run = await ops(...args);
      expect([args, run.code]).toEqual([args, 2]);
      expect(run.out).toMatch(/usage: npm run ops/);
    }
    const unknown = await ops('retry', '999999', 'crm', '--tenant', tenant.subdomain);
    expect(unknown.code).toBe(2);
    expect(unknown.out).toContain(`No quote 999999 in the workspace "${tenant.subdomain}"`);
  }, 60_000);
});
