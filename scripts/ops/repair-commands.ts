import pg from 'pg';
import type { Client } from '@temporalio/client';
import { approvalWorkflowId, changeOrderInvoiceWorkflowId, jobCompletionInvoiceWorkflowId, type LegOutcome, type LegProvider } from '../../infra/temporal/contracts';
import { RepairUnavailable, firstJobCompletionInvoiceOutcome, retryApprovalLeg, retryChangeOrderInvoice, retryJobCompletionInvoice, stillWaiting } from '../../infra/temporal/leg-repair';
import { startJobCompletionInvoice } from '../../infra/temporal/event-workflows';
import { inTenant } from '../../db/tenant-scope';
import type { EntityManager } from '@mikro-orm/postgresql';
import { InvoiceRunner } from '../../infra/temporal/invoice-runner';
import { knownSubdomains } from '../../infra/temporal/tenant-subdomains';
import { ENTITY_TYPE } from '../../db/sync-records';
import { CHANGE_ORDER_ENTITY } from '../../db/fsm/change-orders';
import { JOB_INVOICE_ENTITY, repriceCompletionInvoice } from '../../db/fsm/completion-invoices';
import { describeMissingPrices, type MissingPrices } from '../../domain/invoicing/completion-invoice';
import { USAGE, UsageError } from './usage';
import { quoteTax } from '../../domain/tax/quote-tax';
import { decimalDollars } from '../../domain/money';
import type { OpsSettings } from './ops-settings';

/** What the repair commands share: the database, a Temporal client on demand, and where they write. */
interface RepairContext {
  db: pg.Pool;
  /** The ORM as the owner, for the few repairs that write through db/ (pricing a waiting invoice again). */
  withOrm: <T>(work: (em: EntityManager) => Promise<T>) => Promise<T>;
  withTemporal: <T>(work: (client: Client) => Promise<T>) => Promise<T>;
  taskQueue: string;
  out: (line: string) => void;
  err: (line: string) => void;
}

const PROVIDERS: Record<string, LegProvider> = { payments: 'PAYMENTS', accounting: 'ACCOUNTING', crm: 'CRM' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Exit codes: the call SUCCEEDED, failed again, or nothing was retried. */
const EXIT = { succeeded: 0, failedAgain: 1, nothingRetried: 2 } as const;

/** One FAILED provider call as the operator sees it: what it is, and the workflow that waits for it. */
interface FailedCall {
  subdomain: string;
  /** Null for a completed job without a quote. */
  quote_number: number | null;
  quote_id: string | null;
  organization_id: string;
  provider: LegProvider;
  attempts: number;
  last_error: string | null;
  change_order_id: string | null;
  job_id: string | null;
  sequence: number | null;
  credit: boolean | null;
  /** The job of a completion invoice (issue 30). */
  completed_job_id: string | null;
}

const changeOrderRef = (call: { job_id: string | null; sequence: number | null }) => `CO-${call.job_id}-${call.sequence}`;
const describeCall = (call: FailedCall) =>
  call.completed_job_id ? `completion invoice of job ${call.completed_job_id}` : call.change_order_id ? `${call.credit ? 'credit note' : 'change order'} ${changeOrderRef(call)}` : 'quote leg';
const workflowOf = (call: FailedCall) =>
  call.completed_job_id ? jobCompletionInvoiceWorkflowId(call.completed_job_id) : call.change_order_id ? changeOrderInvoiceWorkflowId(call.change_order_id) : approvalWorkflowId(call.quote_id!);

async function failedCalls(db: pg.Pool, filter: { provider?: LegProvider; subdomain?: string } = {}): Promise<FailedCall[]> {
  const { rows } = await db.query<FailedCall>(
    `select o.subdomain, o.id as organization_id, q.quote_number, q.id as quote_id, s.provider, s.attempts, s.last_error,
            co.id as change_order_id, co.work_order_id as job_id, co.sequence, co.sell_cents < 0 as credit,
            case when s.entity_type = $4 then s.local_id end as completed_job_id
       from sync_records s join organizations o on o.id = s.organization_id left join quotes q on q.id = s.quote_id
       left join change_orders co on s.entity_type = $1 and co.id::text = s.local_id
      where s.status = 'FAILED' and ($2::text is null or s.provider = $2) and ($3::text is null or o.subdomain = $3)
      order by o.subdomain, q.quote_number nulls last, s.provider, co.sequence nulls first, s.local_id`,
    [CHANGE_ORDER_ENTITY, filter.provider ?? null, filter.subdomain ?? null, JOB_INVOICE_ENTITY],
  );
  return rows;
}

async function failed(ctx: RepairContext): Promise<number> {
  const rows = await failedCalls(ctx.db);
  if (rows.length === 0) {
    ctx.out('No FAILED provider calls.');
  } else {
    // The last error comes last and whole (as recorded, up to 2,000 characters, its line breaks
    // flattened): the part that says what the provider refused is often past any width a column
    // could give it ("StripeInvalidRequestError: Injected 4..." said nothing).
    printTable(ctx, [['TENANT', 'QUOTE', 'PROVIDER', 'ATTEMPTS', 'CALL', 'WORKFLOW ID', 'LAST ERROR']].concat(
      rows.map((r) => [r.subdomain, r.quote_number === null ? '-' : String(r.quote_number), r.provider.toLowerCase(), String(r.attempts), describeCall(r), workflowOf(r), oneLine(r.last_error ?? '-')]),
    ));
    ctx.out(`${rows.length} FAILED call${rows.length === 1 ? '' : 's'}. Repair one:`);
    ctx.out('  a quote leg:                    npm run ops -- retry <quote number> <provider> --tenant <subdomain>');
    ctx.out('  a change order or credit note:  npm run ops -- retry --change-order CO-<job id>-<sequence>');
    ctx.out('  a completed job\'s invoice:      npm run ops -- retry --job <job id>');
    ctx.out('  every call of a provider:       npm run ops -- retry --all <provider> [--tenant <subdomain>]');
  }
  await awaitingInvoices(ctx);
  return 0;
}

function printTable(ctx: RepairContext, table: string[][]): void {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table) ctx.out(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}

/** A job's completion invoice the payments provider was never asked for: it waits for prices or for the job's customer (D11). */
interface AwaitingInvoice {
  subdomain: string;
  job_id: string;
  subtotal_cents: string;
  tax_region: string | null;
  awaiting_price: MissingPrices | null;
  awaiting_customer: boolean;
  created_at: Date;
}

/**
 * D11: the completion invoices waiting, nothing failed: for prices (the price book lacked what
 * it bills: the reason; the office fixes the price book, then `ops retry --job` prices it again
 * and issues it), or for a customer (jobs without a quote completed without one, with what each
 * would bill; the office issues each by setting the job's customer).
 */
async function awaitingInvoices(ctx: RepairContext): Promise<void> {
  const { rows } = await ctx.db.query<AwaitingInvoice>(
    `select o.subdomain, c.work_order_id as job_id, c.subtotal_cents::text as subtotal_cents, c.tax_region, c.awaiting_price,
            (c.quote_id is null and c.customer_id is null) as awaiting_customer, c.created_at
       from job_completion_invoices c join organizations o on o.id = c.organization_id
      where c.awaiting_price is not null or (c.quote_id is null and c.customer_id is null)
      order by o.subdomain, c.created_at, c.work_order_id`,
  );
  if (rows.length === 0) return;
  ctx.out('');
  printTable(ctx, [['TENANT', 'JOB', 'WAITING FOR', 'SUBTOTAL', 'TAX', 'TOTAL', 'COMPLETED AT']].concat(
    rows.map((r) => {
      const at = new Date(r.created_at).toISOString();
      if (r.awaiting_price) return [r.subdomain, r.job_id, `prices: ${describeMissingPrices(r.awaiting_price)}${r.awaiting_customer ? ', then a customer' : ''}`, '-', '-', '-', at];
      const subtotal = Number(r.subtotal_cents);
      const tax = quoteTax(r.tax_region, subtotal);
      return [r.subdomain, r.job_id, 'a customer', decimalDollars(subtotal), `${decimalDollars(tax.total_cents)} ${tax.lines.map((line) => line.code).join('+')}`, `${decimalDollars(subtotal + tax.total_cents)} CAD`, at];
    }),
  ));
  const forPrices = rows.filter((r) => r.awaiting_price).length;
  const forCustomer = rows.length - forPrices;
  if (forPrices > 0) {
    ctx.out(`${forPrices} completion invoice${forPrices === 1 ? '' : 's'} waiting for prices (the price book lacked what it bills; completing was not refused). Nothing was called: fix the price book, then price one again on the price book then current and issue it:`);
    ctx.out('  npm run ops -- retry --job <job id>');
  }
  if (forCustomer > 0) {
    ctx.out(`${forCustomer} completion invoice${forCustomer === 1 ? '' : 's'} waiting for a customer (jobs without a quote completed without one). Nothing failed: an ADMIN issues one by setting the job's customer:`);
    ctx.out('  PATCH /v1/fsm/jobs/<job id> {"customer_id": "<customer id>"}   or   PATCH /api/v1/work-orders/<job id> {"customerId": "<customer id>"}');
  }
}

/** The whole text on one line of the table: nothing cut, only its line breaks and runs of spaces made one space. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The outcome of a retried call, said as the operator reads it, and its exit code. */
async function report(ctx: RepairContext, client: Client, label: string, workflowId: string, outcome: LegOutcome): Promise<number> {
  if (outcome.status === 'SUCCEEDED') {
    ctx.out(`SUCCEEDED: the ${label} is written (provider id ${outcome.externalId ?? 'unknown'}).`);
    return EXIT.succeeded;
  }
  if (outcome.status === 'SKIPPED') {
    ctx.out(`SKIPPED: the ${label} was skipped at approval (provider not connected); nothing was called.`);
    return EXIT.nothingRetried;
  }
  const waiting = await stillWaiting(client, workflowId);
  const next = waiting ? `It still waits for a repair (workflow ${workflowId}).` : `Its workflow ${workflowId} has ended; the call is recorded FAILED.`;
  ctx.err(`FAILED again: the ${label}: ${outcome.error ?? 'unknown error'}. ${next}`);
  return EXIT.failedAgain;
}

/** Runs `retry` unless the call already succeeded; a workflow that no longer waits is said, not retried. */
async function retryCall(ctx: RepairContext, options: { label: string; workflowId: string; status: string | null; attempts: number | null; externalId?: string | null; run: () => Promise<LegOutcome>; client: Client }): Promise<number> {
  const { label, workflowId, status, attempts } = options;
  if (status === 'SUCCEEDED') {
    ctx.out(`Nothing retried: the ${label} already SUCCEEDED (provider id ${options.externalId ?? 'unknown'}); nothing was called.`);
    return EXIT.nothingRetried;
  }
  ctx.out(`Retrying the ${label}: it is ${status ?? 'not recorded'}${attempts ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : ''}; workflow ${workflowId}.`);
  let outcome: LegOutcome;
  try {
    outcome = await options.run();
  } catch (error) {
    if (error instanceof RepairUnavailable) {
      ctx.err(`Nothing retried: ${error.message}.`);
      return EXIT.nothingRetried;
    }
    throw error;
  }
  return report(ctx, options.client, label, workflowId, outcome);
}

async function retryQuoteLeg(ctx: RepairContext, client: Client, input: { subdomain: string; quoteNumber: number; provider: LegProvider }): Promise<number> {
  const { subdomain, quoteNumber, provider } = input;
  const { rows } = await ctx.db.query<{ organization_id: string; quote_id: string; status: string | null; attempts: number | null; external_id: string | null }>(
    `select o.id as organization_id, q.id as quote_id, s.status, s.attempts, s.external_id
       from organizations o join quotes q on q.organization_id = o.id
       left join sync_records s on s.quote_id = q.id and s.provider = $3 and s.entity_type = $4
      where o.subdomain = $1 and q.quote_number = $2`,
    [subdomain, quoteNumber, provider, ENTITY_TYPE[provider]],
  );
  const quote = rows[0];
  if (!quote) throw new UsageError(`No quote ${quoteNumber} in the workspace "${subdomain}".`);
  return retryCall(ctx, {
    client,
    label: `quote ${quoteNumber} (${subdomain}), ${provider.toLowerCase()} leg`,
    workflowId: approvalWorkflowId(quote.quote_id),
    status: quote.status,
    attempts: quote.attempts,
    externalId: quote.external_id,
    run: () =>
      provider === 'PAYMENTS'
        ? // The payments leg also runs alone once its approval has ended, as POST /quotes/{id}/invoice does.
          new InvoiceRunner(client, { taskQueue: ctx.taskQueue, subdomains: knownSubdomains(new Map([[quote.organization_id, subdomain]])) }).run({ organizationId: quote.organization_id, quoteId: quote.quote_id, quoteNumber })
        : retryApprovalLeg(client, { quoteId: quote.quote_id, provider }),
  });
}

async function retryChangeOrder(ctx: RepairContext, client: Client, reference: string): Promise<number> {
  const byRef = /^CO-([0-9a-f-]{36})-([1-9][0-9]{0,9})$/i.exec(reference);
  if (!UUID.test(reference) && !(byRef && UUID.test(byRef[1]!))) throw new UsageError(USAGE);
  const { rows } = await ctx.db.query<{ id: string; job_id: string; sequence: number; subdomain: string; quote_number: number; credit: boolean; status: string | null; attempts: number | null; external_id: string | null }>(
    `select co.id, co.work_order_id as job_id, co.sequence, o.subdomain, q.quote_number, co.sell_cents < 0 as credit, s.status, s.attempts, s.external_id
       from change_orders co join organizations o on o.id = co.organization_id join quotes q on q.id = co.quote_id
       left join sync_records s on s.provider = 'PAYMENTS' and s.entity_type = $3 and s.local_id = co.id::text
      where ${byRef ? 'co.work_order_id = $1::uuid and co.sequence = $2' : 'co.id = $1::uuid and $2::int is null'}`,
    byRef ? [byRef[1], Number(byRef[2]), CHANGE_ORDER_ENTITY] : [reference, null, CHANGE_ORDER_ENTITY],
  );
  const changeOrder = rows[0];
  if (!changeOrder) throw new UsageError(`No change order ${reference}.`);
  const label = `${changeOrder.credit ? 'credit note' : 'change order invoice'} of ${changeOrderRef(changeOrder)} (quote ${changeOrder.quote_number}, ${changeOrder.subdomain})`;
  if (changeOrder.status === null) {
    ctx.err(`Nothing retried: the ${label} was never called (the change order is not approved, or its workflow has not run yet).`);
    return EXIT.nothingRetried;
  }
  return retryCall(ctx, {
    client,
    label,
    workflowId: changeOrderInvoiceWorkflowId(changeOrder.id),
    status: changeOrder.status,
    attempts: changeOrder.attempts,
    externalId: changeOrder.external_id,
    run: () => retryChangeOrderInvoice(client, { changeOrderId: changeOrder.id }),
  });
}

async function retryJobInvoice(ctx: RepairContext, client: Client, jobId: string): Promise<number> {
  if (!UUID.test(jobId)) throw new UsageError(USAGE);
  const { rows } = await ctx.db.query<{ organization_id: string; subdomain: string; quote_id: string | null; quote_number: number | null; status: string | null; attempts: number | null; external_id: string | null; awaiting_customer: boolean; awaiting_price: MissingPrices | null }>(
    `select w.organization_id, o.subdomain, w.quote_id, q.quote_number, s.status, s.attempts, s.external_id, coalesce(c.quote_id is null and c.customer_id is null, false) as awaiting_customer, c.awaiting_price
       from work_orders w join organizations o on o.id = w.organization_id left join quotes q on q.id = w.quote_id
       left join job_completion_invoices c on c.work_order_id = w.id
       left join sync_records s on s.provider = 'PAYMENTS' and s.entity_type = $2 and s.local_id = w.id::text
      where w.id = $1::uuid`,
    [jobId, JOB_INVOICE_ENTITY],
  );
  const job = rows[0];
  if (!job) throw new UsageError(`No job ${jobId}.`);
  const label = `completion invoice of job ${jobId} (${job.quote_number === null ? 'no quote' : `quote ${job.quote_number}`}, ${job.subdomain})`;
  if (job.awaiting_price) return priceAndIssue(ctx, client, { ...job, jobId, label });
  if (job.awaiting_customer) {
    ctx.err(`Nothing retried: the ${label} waits for a customer, nothing failed. An ADMIN issues it by setting the job's customer (PATCH /v1/fsm/jobs/${jobId} {"customer_id": ...}).`);
    return EXIT.nothingRetried;
  }
  if (job.status === null) {
    ctx.err(`Nothing retried: the ${label} was never called (the job is not completed, has nothing to invoice, or its workflow has not run yet).`);
    return EXIT.nothingRetried;
  }
  return retryCall(ctx, {
    client,
    label,
    workflowId: jobCompletionInvoiceWorkflowId(jobId),
    status: job.status,
    attempts: job.attempts,
    externalId: job.external_id,
    run: () => retryJobCompletionInvoice(client, { jobId }),
  });
}

/**
 * D11: a completion invoice that waited for prices, priced again (as the owner, in the job's
 * tenant) on the price book current now (with a quote: the quote's revision, then the current
 * one). Still lacking, says what and calls nothing. Priced, it is issued by the same
 * `job-completion-invoice-<job id>` workflow a completion starts (its first call's outcome
 * reported as a repair's; failed, it waits for repairs), unless it also waits for a customer.
 */
async function priceAndIssue(
  ctx: RepairContext,
  client: Client,
  job: { jobId: string; label: string; organization_id: string; subdomain: string; quote_id: string | null; quote_number: number | null },
): Promise<number> {
  const outcome = await ctx.withOrm((em) => inTenant(em, job.organization_id, (tx) => repriceCompletionInvoice(tx, job.jobId)));
  if (outcome.kind === 'still_missing') {
    ctx.err(`Nothing retried: the ${job.label} still waits for prices: ${describeMissingPrices(outcome.missing)}. Nothing was called. Fix the price book (a revision through POST /v1/pricebooks/<organization id>/revisions), then retry.`);
    return EXIT.nothingRetried;
  }
  if (outcome.kind === 'not_waiting') {
    ctx.err(`Nothing retried: the ${job.label} no longer waits for prices (priced meanwhile); retry it again to see where it stands.`);
    return EXIT.nothingRetried;
  }
  ctx.out(`Priced: the ${job.label} on the price book current now, subtotal ${decimalDollars(outcome.subtotalCents)} CAD before tax.`);
  if (outcome.quoteId === null && outcome.customerId === null) {
    ctx.err(`Nothing called: it now waits for a customer. An ADMIN issues it by setting the job's customer (PATCH /v1/fsm/jobs/${job.jobId} {"customer_id": ...}).`);
    return EXIT.nothingRetried;
  }
  const workflowId = jobCompletionInvoiceWorkflowId(job.jobId);
  await startJobCompletionInvoice(client, {
    taskQueue: ctx.taskQueue,
    timing: {},
    organizationId: job.organization_id,
    subdomain: job.subdomain,
    jobId: job.jobId,
    quoteId: job.quote_id,
    quoteNumber: job.quote_number,
  });
  try {
    return await report(ctx, client, job.label, workflowId, await firstJobCompletionInvoiceOutcome(client, { jobId: job.jobId }));
  } catch (error) {
    if (!(error instanceof RepairUnavailable)) throw error;
    ctx.err(`Started: the ${job.label}: ${error.message}. See npm run ops -- failed.`);
    return EXIT.nothingRetried;
  }
}

/** After a provider's outage: every FAILED call of it, one line of progress each, then a summary. */
async function retryAll(ctx: RepairContext, client: Client, filter: { provider: LegProvider; subdomain?: string }): Promise<number> {
  const calls = await failedCalls(ctx.db, filter);
  const scope = `${filter.provider.toLowerCase()}${filter.subdomain ? ` in "${filter.subdomain}"` : ''}`;
  if (calls.length === 0) {
    ctx.out(`No FAILED ${scope} calls.`);
    return EXIT.succeeded;
  }
  ctx.out(`Retrying ${calls.length} FAILED ${scope} call${calls.length === 1 ? '' : 's'}.`);
  const tally = { succeeded: 0, failed: 0, notRetried: 0 };
  for (const [index, call] of calls.entries()) {
    ctx.out(`[${index + 1}/${calls.length}] ${call.subdomain}, ${call.quote_number === null ? 'no quote' : `quote ${call.quote_number}`}, ${describeCall(call)}`);
    const code = call.completed_job_id
      ? await retryJobInvoice(ctx, client, call.completed_job_id)
      : call.change_order_id
        ? await retryChangeOrder(ctx, client, call.change_order_id)
        : await retryQuoteLeg(ctx, client, { subdomain: call.subdomain, quoteNumber: call.quote_number!, provider: call.provider });
    if (code === EXIT.succeeded) tally.succeeded += 1;
    else if (code === EXIT.failedAgain) tally.failed += 1;
    else tally.notRetried += 1;
  }
  ctx.out(`Summary: ${tally.succeeded} SUCCEEDED, ${tally.failed} FAILED again, ${tally.notRetried} not retried.`);
  return tally.succeeded === calls.length ? EXIT.succeeded : tally.failed > 0 ? EXIT.failedAgain : EXIT.nothingRetried;
}

function flag(args: string[], name: string): { value: string | undefined; rest: string[] } {
  const at = args.indexOf(name);
  if (at < 0) return { value: undefined, rest: args };
  const value = args[at + 1];
  if (!value || value.startsWith('--')) throw new UsageError(USAGE);
  return { value, rest: args.filter((_, i) => i !== at && i !== at + 1) };
}

async function retry(ctx: RepairContext, args: string[]): Promise<number> {
  if (args.includes('--change-order')) {
    const { value, rest } = flag(args, '--change-order');
    if (rest.length !== 0 || !value) throw new UsageError(USAGE);
    return ctx.withTemporal((client) => retryChangeOrder(ctx, client, value));
  }
  if (args.includes('--job')) {
    const { value, rest } = flag(args, '--job');
    if (rest.length !== 0 || !value) throw new UsageError(USAGE);
    return ctx.withTemporal((client) => retryJobInvoice(ctx, client, value));
  }
  const tenant = flag(args, '--tenant');
  if (args.includes('--all')) {
    const all = flag(tenant.rest, '--all');
    const provider = PROVIDERS[all.value?.toLowerCase() ?? ''];
    if (all.rest.length !== 0 || !provider) throw new UsageError(USAGE);
    return ctx.withTemporal((client) => retryAll(ctx, client, { provider, ...(tenant.value ? { subdomain: tenant.value } : {}) }));
  }
  const [numberText, providerText] = tenant.rest;
  const provider = PROVIDERS[providerText?.toLowerCase() ?? ''];
  if (!tenant.value || tenant.rest.length !== 2 || !numberText || !/^[1-9][0-9]{0,9}$/.test(numberText) || !provider) throw new UsageError(USAGE);
  const subdomain = tenant.value;
  return ctx.withTemporal((client) => retryQuoteLeg(ctx, client, { subdomain, quoteNumber: Number(numberText), provider }));
}

/**
 * `failed` and `retry` (D19): their own pool on the database, closed when done. A bad command
 * line throws UsageError (runOps says it and answers 2).
 */
export async function repairCommand(command: 'failed' | 'retry', args: string[], settings: OpsSettings & { withTemporal: RepairContext['withTemporal'] }): Promise<number> {
  const db = new pg.Pool({ connectionString: settings.databaseUrl, max: 2 });
  const withOrm = async <T>(work: (em: EntityManager) => Promise<T>): Promise<T> => {
    const { createOrm } = await import('../../db/orm');
    const orm = await createOrm({ url: settings.databaseUrl, poolMax: 2 });
    try {
      return await work(orm.em.fork());
    } finally {
      await orm.close(true);
    }
  };
  const ctx: RepairContext = { db, withOrm, withTemporal: settings.withTemporal, taskQueue: settings.taskQueue, out: settings.out, err: settings.err };
  try {
    if (command === 'failed') {
      if (args.length !== 0) throw new UsageError(USAGE);
      return await failed(ctx);
    }
    return await retry(ctx, args);
  } finally {
    await db.end();
  }
}
