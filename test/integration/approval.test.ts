import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { OwnDatabase } from '../support/own-database';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import type { Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { startPaymentsStack, type PaymentsStack } from '../../scripts/harness/approval-stack';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { faults } from '../../scripts/sandboxes/faults';
import { ApprovedQuote } from '../../api/quotes/schemas';
import { approvalWorkflowId } from '../../infra/temporal/contracts';
import { approvalSettled } from '../../scripts/harness/approval-progress';
import { quoteTax } from '../../domain/tax/quote-tax';
import { RELAY_GRACE_SECONDS } from '../../worker/outbox-relay';
import { waitUntil } from '../../scripts/harness/wait-until';
import * as quotes from '../../scripts/harness/approved-quote';

const KEY = 'sk_test_approvalSuite0001';
let stack: PaymentsStack;
let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let fake: StripeFake;
let tenant: Tenant;
let sales: string;

// It runs the outbox relay.
const database = new OwnDatabase('approval');

beforeAll(async () => {
  await database.create();
  stack = await startPaymentsStack({ key: KEY });
  ({ owner, temporal, api, fake, tenant, sales } = stack);
}, 120_000);
afterEach(() => fake.faults.clear());
afterAll(async () => {
  await stack?.close();
  await database.drop();
});

const newQuote = (customer = quotes.newCustomer('Morgan Lee')) => quotes.keptQuote(stack, customer);
const approve = (id: string, token = sales) => api.request(`/api/v1/quotes/${id}/approve`, { method: 'POST', token });
// D19: a failed leg leaves the approval awaiting its repair; the legs have settled either way.
const finished = (quoteId: string) => approvalSettled(temporal.client, quoteId);
const syncRows = async (quoteId: string) =>
  Object.fromEntries(
    (await owner.query('select provider, entity_type, status, attempts, external_id, amount_cents, last_error from sync_records where quote_id = $1', [quoteId])).rows.map((r) => [r.provider, r]),
  );
const invoicesFor = (quoteId: string) => fake.inspect.invoices(KEY).filter((i) => (i.metadata as Record<string, string>).quote_id === quoteId);

describe('POST /api/v1/quotes/{id}/approve', () => {
  it('approves once: one customer, one finalised net-14 invoice with the frozen lines and a 13 % tax line, sync rows, one event', async () => {
    const quote = await newQuote({ name: 'Morgan Lee', email: 'morgan.once@example.test' });
    const res = await approve(quote.quote_id);
    expect(res.status).toBe(200);
    const approved = ApprovedQuote.parse(await res.json());
    expect(approved).toMatchObject({ id: quote.quote_id, quote_number: quote.quote_number, status: 'APPROVED' });
    await finished(quote.quote_id);

    const invoices = invoicesFor(quote.quote_id);
    expect(invoices).toHaveLength(1);
    const invoice = invoices[0]! as Record<string, unknown> & { lines: { data: { amount: number; description: string }[] } };
    expect(invoice).toMatchObject({ status: 'open', collection_method: 'send_invoice', currency: 'cad' });
    expect(((invoice.due_date as number) - (invoice.created as number)) / 86400).toBe(14);
    const tax = quoteTax(null, quote.totals.amount_cents).total_cents;
    expect(invoice.lines.data.map((l) => l.amount).sort()).toEqual([...quote.line_items.map((l) => l.price_cents), tax].sort());
    expect(invoice.lines.data.filter((l) => l.description === 'HST (13%)').map((l) => l.amount)).toEqual([tax]);
    expect(invoice.total).toBe(quote.totals.amount_cents + tax);
    expect(fake.inspect.customers(KEY).filter((c) => c.email === 'morgan.once@example.test')).toHaveLength(1);

    const rows = await syncRows(quote.quote_id);
    expect(rows.PAYMENTS).toMatchObject({ entity_type: 'invoice', status: 'SUCCEEDED', attempts: 1, external_id: invoice.id, amount_cents: String(invoice.total), last_error: null });
    expect(rows.ACCOUNTING).toMatchObject({ status: 'SKIPPED', attempts: 0 });
    expect(rows.CRM).toMatchObject({ status: 'SKIPPED', attempts: 0 });

    const events = (await owner.query(`select envelope from outbox_events where event = 'quote.approved' and envelope->'data'->>'quote_id' = $1`, [quote.quote_id])).rows;
    expect(events).toHaveLength(1);
    expect(events[0].envelope.data).toEqual({
      quote_id: quote.quote_id,
      quote_number: quote.quote_number,
      status: 'APPROVED',
      total_amount_cents: quote.totals.amount_cents,
      total_cost_cents: expect.any(Number),
      margin_percent: expect.stringMatching(/^0\.\d{4}$/),
      customer_name: 'Morgan Lee',
      customer_email: 'morgan.once@example.test',
      approved_at: approved.approved_at,
      approved_by_user_id: tenant.users.sales!.id,
    });

    // Again: 409, no second event, no second invoice, no second workflow run.
    const again = await approve(quote.quote_id);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('conflict');
    expect((await owner.query(`select count(*)::int as n from outbox_events where envelope->'data'->>'quote_id' = $1`, [quote.quote_id])).rows[0].n).toBe(1);
    expect(invoicesFor(quote.quote_id)).toHaveLength(1);
  });

  it('freezes the calculation: the invoice uses it even when the rate card changes afterwards', async () => {
    const quote = await newQuote();
    await owner.query(`update quotes set calculation = jsonb_set(calculation, '{line_items,0,price_cents}', '1') where id = $1`, [quote.quote_id]);
    const frozenBefore = (await owner.query('select calculation from quotes where id = $1', [quote.quote_id])).rows[0].calculation;
    expect((await approve(quote.quote_id)).status).toBe(200);
    const frozen = (await owner.query('select frozen_calculation from quotes where id = $1', [quote.quote_id])).rows[0].frozen_calculation;
    expect(frozen).toEqual(frozenBefore);
    await finished(quote.quote_id);
    const amounts = (invoicesFor(quote.quote_id)[0] as unknown as { lines: { data: { amount: number }[] } }).lines.data.map((l) => l.amount);
    expect(amounts).toContain(1);
  });

  it('concurrent approves of one quote: one 200, the rest 409, one workflow, one invoice', async () => {
    const quote = await newQuote();
    const responses = await Promise.all(Array.from({ length: 8 }, () => approve(quote.quote_id)));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    await finished(quote.quote_id);
    const runs = [];
    for await (const run of temporal.client.workflow.list({ query: `WorkflowId = '${approvalWorkflowId(quote.quote_id)}'` })) runs.push(run);
    expect(runs).toHaveLength(1);
    expect(invoicesFor(quote.quote_id)).toHaveLength(1);
  });

  it('is refused for a TECHNICIAN (403), an unknown quote (404) and a rejected quote (409)', async () => {
    const quote = await newQuote();
    expect((await approve(quote.quote_id, await api.tokenFor(tenant.users.tech!))).status).toBe(403);
    expect((await approve('6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10')).status).toBe(404);
    expect((await api.request(`/api/v1/quotes/${quote.quote_id}/reject`, { method: 'POST', token: sales })).status).toBe(200);
    expect((await approve(quote.quote_id)).status).toBe(409);
  });
});

describe('the outbox relay', () => {
  it('starts the approval workflow when the API committed but never started it', async () => {
    const apiWithoutFastPath = await startApi();
    try {
      const quote = await newQuote();
      const res = await apiWithoutFastPath.request(`/api/v1/quotes/${quote.quote_id}/approve`, { method: 'POST', token: sales });
      expect(res.status).toBe(200);
      const pending = await owner.query(`select dispatched_at from outbox_events where envelope->'data'->>'quote_id' = $1`, [quote.quote_id]);
      expect(pending.rows[0].dispatched_at).toBeNull();
      await expect(temporal.client.workflow.getHandle(approvalWorkflowId(quote.quote_id)).describe()).rejects.toThrow();
      // The relay leaves fresh events to the process that committed them for a moment
      // (RELAY_GRACE_SECONDS); once that is over, a drain relays this one.
      const dispatchedAt = async () => (await owner.query(`select dispatched_at from outbox_events where envelope->'data'->>'quote_id' = $1`, [quote.quote_id])).rows[0].dispatched_at as Date | null;
      await waitUntil('a drain to relay the approval', async () => {
        await temporal.relay.drainOnce();
        return (await dispatchedAt()) !== null;
      }, {
        timeoutMs: (RELAY_GRACE_SECONDS + 30) * 1000,
        intervalMs: 100,
      });
      await finished(quote.quote_id);
      expect(invoicesFor(quote.quote_id)).toHaveLength(1);
      const after = await owner.query(`select dispatched_at from outbox_events where envelope->'data'->>'quote_id' = $1`, [quote.quote_id]);
      expect(after.rows[0].dispatched_at).not.toBeNull();
      // Starting again is harmless: the workflow id is taken for good.
      await temporal.dispatcher.dispatch((await owner.query(`select envelope from outbox_events where envelope->'data'->>'quote_id' = $1`, [quote.quote_id])).rows[0].envelope);
      expect(invoicesFor(quote.quote_id)).toHaveLength(1);
    } finally {
      await apiWithoutFastPath.close();
    }
  });
});

describe('provider failures', () => {
  it('retries a provider that answers 503 twice, then records SUCCEEDED with the attempts counted', async () => {
    const quote = await newQuote();
    fake.faults.inject({ method: 'POST', path: '/v1/invoices', times: 2, action: faults.unavailable() });
    expect((await approve(quote.quote_id)).status).toBe(200);
    await finished(quote.quote_id);
    expect((await syncRows(quote.quote_id)).PAYMENTS).toMatchObject({ status: 'SUCCEEDED', attempts: 3 });
    expect(invoicesFor(quote.quote_id)).toHaveLength(1);
  });

  it('honours a 429 and its Retry-After', async () => {
    const quote = await newQuote();
    fake.faults.inject({ method: 'POST', path: '/v1/invoiceitems', times: 1, action: faults.rateLimited(1) });
    const started = Date.now();
    expect((await approve(quote.quote_id)).status).toBe(200);
    await finished(quote.quote_id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect((await syncRows(quote.quote_id)).PAYMENTS).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
  });

  it('records a refusal (400) as FAILED with last_error, without retrying', async () => {
    const quote = await newQuote();
    fake.faults.inject({ method: 'POST', path: '/v1/invoices', times: 5, action: faults.status(400) });
    expect((await approve(quote.quote_id)).status).toBe(200);
    expect((await finished(quote.quote_id)).state).toBe('awaiting_repair');
    const row = (await syncRows(quote.quote_id)).PAYMENTS;
    expect(row).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(row.last_error).toMatch(/refused/);
    expect(invoicesFor(quote.quote_id)).toHaveLength(0);
  });

  it('a success whose response is lost is retried with the same keys and makes nothing twice', async () => {
    const quote = await newQuote();
    fake.faults.inject({ method: 'POST', path: '/v1/invoices/*/finalize', times: 1, action: faults.loseResponse() });
    fake.faults.inject({ method: 'POST', path: '/v1/invoiceitems', times: 1, action: faults.loseResponse() });
    expect((await approve(quote.quote_id)).status).toBe(200);
    await finished(quote.quote_id);
    expect(invoicesFor(quote.quote_id)).toHaveLength(1);
    const items = fake.inspect.invoiceItems(KEY).filter((i) => (i.metadata as Record<string, string>).quote_id === quote.quote_id);
    expect(items).toHaveLength(quote.line_items.length + 1);
    expect((await syncRows(quote.quote_id)).PAYMENTS.status).toBe('SUCCEEDED');
  });
});

describe('without a payments key', () => {
  it('records every leg SKIPPED and calls nothing', async () => {
    const other = await startTemporalHarness();
    const apiOther = await startApi({ events: other.dispatcher });
    try {
      await other.startWorker({});
      const customer = quotes.newCustomer('Noel Keyless');
      const quote = await newQuote(customer);
      const before = fake.requests.all().length;
      expect((await apiOther.request(`/api/v1/quotes/${quote.quote_id}/approve`, { method: 'POST', token: sales })).status).toBe(200);
      await other.client.workflow.getHandle(approvalWorkflowId(quote.quote_id)).result();
      const rows = await syncRows(quote.quote_id);
      expect(Object.values(rows).map((r) => (r as { status: string }).status)).toEqual(['SKIPPED', 'SKIPPED', 'SKIPPED']);
      // Nothing of this quote reached the provider: no request carries its keys, and the provider
      // holds no invoice or customer of it. (The shared fake's log as a whole may still grow: the
      // suite's own worker goes on with earlier tests' approvals.)
      const ours = fake.requests.all().slice(before).filter((r) => r.idempotencyKey?.includes(quote.quote_id));
      expect(ours).toEqual([]);
      expect(invoicesFor(quote.quote_id)).toEqual([]);
      expect(fake.inspect.customers(KEY).filter((c) => c.email === customer.email)).toEqual([]);
    } finally {
      await apiOther.close();
      await other.close();
    }
  });
});
