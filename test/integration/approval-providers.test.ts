import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { ApiHarness } from '../../scripts/harness/api-harness';
import { startApprovalStack, type ApprovalStack } from '../../scripts/harness/approval-stack';
import type { Tenant } from '../../scripts/harness/owner-db';
import type { TemporalHarness } from '../../scripts/harness/temporal-harness';
import { consent, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { faults } from '../../scripts/sandboxes/faults';
import { quoteTax } from '../../domain/tax/quote-tax';
import { QUOTE_EXTERNAL_ID_FIELD } from '../../activities/crm/upsert-opportunity';
import * as quotes from '../../scripts/harness/approved-quote';

/**
 * The accounting (QuickBooks) and CRM (Salesforce) legs of the approval fan-out (D7), against
 * the local fakes, with tenant connections made through the real consent flow.
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
afterEach(() => {
  fakes.qbo.faults.clear();
  fakes.sf.faults.clear();
});
afterAll(() => stack.close());

const approvedQuote = (customer = quotes.newCustomer()) => quotes.approvedQuote(stack, customer);
const rows = async (quoteId: string) =>
  Object.fromEntries((await owner.query('select provider, status, attempts, external_id, amount_cents, last_error from sync_records where quote_id = $1', [quoteId])).rows.map((r) => [r.provider, r]));
const realm = async () => (await owner.query(`select external_account_id from integration_connections where organization_id = $1 and provider = 'ACCOUNTING'`, [tenant.id])).rows[0].external_account_id as string;
const orgId = async () => (await owner.query(`select external_account_id from integration_connections where organization_id = $1 and provider = 'CRM'`, [tenant.id])).rows[0].external_account_id as string;

describe('approval fan-out to connected accounting and CRM', () => {
  it('writes one customer and one invoice in QuickBooks, and one opportunity in Salesforce', async () => {
    const quote = await approvedQuote({ name: 'Avery Brooks', email: 'avery.brooks@example.test' });
    const result = await rows(quote.quote_id);
    expect(result.ACCOUNTING).toMatchObject({ status: 'SUCCEEDED', attempts: 1, last_error: null });
    expect(result.CRM).toMatchObject({ status: 'SUCCEEDED', attempts: 1, last_error: null });
    expect(result.PAYMENTS).toMatchObject({ status: 'SKIPPED' });

    const invoices = fakes.qbo.inspect.invoices(await realm()).filter((i) => i.DocNumber === `Q-${quote.quote_number}`);
    expect(invoices).toHaveLength(1);
    const invoice = invoices[0]! as { Id: string; TotalAmt: number; Line: { Amount: number; DetailType: string }[]; DueDate: string; TxnDate: string };
    expect(result.ACCOUNTING.external_id).toBe(invoice.Id);
    const lines = invoice.Line.filter((l) => l.DetailType === 'SalesItemLineDetail').map((l) => Math.round(l.Amount * 100)).sort();
    expect(lines).toEqual(quote.line_items.map((l) => l.price_cents).sort());
    expect(Math.round(invoice.TotalAmt * 100)).toBe(quote.totals.amount_cents + quoteTax(null, quote.totals.amount_cents).total_cents);
    expect((Date.parse(invoice.DueDate) - Date.parse(invoice.TxnDate)) / 86_400_000).toBe(14);
    expect(fakes.qbo.inspect.customers(await realm()).filter((c) => c.DisplayName === 'Avery Brooks <avery.brooks@example.test>')).toHaveLength(1);

    const opportunities = fakes.sf.inspect.records('Opportunity', await orgId()).filter((r) => r[QUOTE_EXTERNAL_ID_FIELD] === quote.quote_id);
    expect(opportunities).toHaveLength(1);
    expect(opportunities[0]).toMatchObject({ Id: result.CRM.external_id, StageName: 'Closed Won', Amount: quote.totals.amount_cents / 100 });
  });

  it('a returning customer is found, not created again', async () => {
    const customer = { name: 'Jules Martin', email: 'jules.martin@example.test' };
    await approvedQuote(customer);
    await approvedQuote(customer);
    expect(fakes.qbo.inspect.customers(await realm()).filter((c) => c.DisplayName === 'Jules Martin <jules.martin@example.test>')).toHaveLength(1);
  });

  it('one leg failing does not hold back the others, and retried calls make nothing twice', async () => {
    // QuickBooks refuses the invoice; Salesforce's first upsert answer is lost after it was applied.
    fakes.qbo.faults.inject({ method: 'POST', path: '/v3/company/*/invoice', times: 1, action: faults.status(400) });
    fakes.sf.faults.inject({ method: 'PATCH', path: /Opportunity\/Quote_Id__c\//, times: 1, action: faults.loseResponse() });
    const quote = await approvedQuote();
    const result = await rows(quote.quote_id);
    expect(result.ACCOUNTING).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(result.ACCOUNTING.last_error).toMatch(/refused/);
    expect(result.CRM).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
    expect(fakes.sf.inspect.records('Opportunity', await orgId()).filter((r) => r[QUOTE_EXTERNAL_ID_FIELD] === quote.quote_id)).toHaveLength(1);
  });

  it('an EXPIRED connection is treated as not connected: SKIPPED with the reason, nothing called', async () => {
    // As a refused refresh leaves it: EXPIRED, credentials erased.
    await owner.query(
      `update integration_connections set status = 'EXPIRED', access_token_ciphertext = null, refresh_token_ciphertext = null, encryption_key_id = null, last_error = 'invalid_grant'
        where organization_id = $1 and provider = 'CRM'`,
      [tenant.id],
    );
    try {
      const before = fakes.sf.requests.all().length;
      const quote = await approvedQuote();
      const result = await rows(quote.quote_id);
      expect(result.CRM).toMatchObject({ status: 'SKIPPED', attempts: 0 });
      expect(result.CRM.last_error).toMatch(/expired/);
      expect(fakes.sf.requests.all().length).toBe(before);
      expect(result.ACCOUNTING.status).toBe('SUCCEEDED');
    } finally {
      expect((await consent(api, await api.tokenFor(tenant.users.admin!), 'crm')).status).toBe(200);
    }
  });
});
