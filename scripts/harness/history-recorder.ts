import type { temporal } from '@temporalio/proto';
import { startApi } from './api-harness';
import { ownerPool, sandboxUser } from './owner-db';
import { twoWindows } from './quote-requests';
import { startTemporalHarness, TEST_TIMING } from './temporal-harness';
import { StripeFake } from '../sandboxes/stripe-fake';
import { faults } from '../sandboxes/faults';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { approvalWorkflowId } from '../../infra/temporal/contracts';
import { InvoiceRunner } from '../../infra/temporal/invoice-runner';
import { changeOrderInvoiceWorkflowId, invoiceWorkflowId, jobCompletionInvoiceWorkflowId, RETRY_LEG, WORKFLOW_TYPES } from '../../infra/temporal/contracts';
import { approvalSettled, jobCompletionInvoiceSettled } from './approval-progress';
import { consent, startIntegrationFakes, workerIntegrations } from './integration-fakes';

type History = temporal.api.history.v1.IHistory;

/**
 * Runs the approval and invoice workflows through their real paths (a refused payments leg at
 * approval, then a successful invoice) and returns their histories. Used by
 * scripts/record-histories.ts.
 */
export async function recordApprovalHistories(): Promise<Record<string, History>> {
  const owner = ownerPool();
  const fake = new StripeFake();
  const { url, close } = await fake.start();
  const harness = await startTemporalHarness();
  const payments = createStripeClient({ secretKey: 'sk_test_recordHistories01', baseUrl: url });
  const fakes = await startIntegrationFakes();
  const api = await startApi({ events: harness.dispatcher, payments, invoices: new InvoiceRunner(harness.client, { taskQueue: harness.taskQueue, subdomains: harness.subdomains, timing: TEST_TIMING }), env: { PAYMENTS_SECRET_KEY: 'sk_test_recordHistories01', ...fakes.env } });
  await harness.startWorker({ payments, integrations: workerIntegrations(api) });
  try {
    const token = await api.tokenFor(await sandboxUser(owner, 'sandbox', 'sales@sandbox.test'));
    const calc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true, customer: { name: 'History Recorder', email: 'history@example.test' } }) });
    const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
    fake.faults.inject({ method: 'POST', path: '/v1/invoices', times: 1, action: faults.status(400) });
    await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token });
    const approval = harness.client.workflow.getHandle(approvalWorkflowId(quoteId));
    await approvalSettled(harness.client, quoteId);
    // D19: the invoice endpoint repairs the waiting approval's payments leg (its retryLeg update).
    const invoiced = await api.request(`/api/v1/quotes/${quoteId}/invoice`, { method: 'POST', token });
    if (invoiced.status !== 201) throw new Error(`invoice answered ${invoiced.status}`);
    await approval.result();
    // The invoice workflow alone (what the endpoint runs once the approval has ended): keyed like the leg, it writes nothing twice.
    const invoiceAlone = await harness.client.workflow.start(WORKFLOW_TYPES.quoteInvoice, {
      taskQueue: harness.taskQueue,
      workflowId: invoiceWorkflowId(quoteId),
      args: [{ organizationId: await organizationOf(owner, quoteId), quoteId, timing: TEST_TIMING }],
    });
    await invoiceAlone.result();

    // D12: a change order approved on the (now approved) quote's job: its own invoice workflow.
    const admin = await api.tokenFor(await sandboxUser(owner, 'sandbox', 'admin@sandbox.test'));
    const tech = await sandboxUser(owner, 'sandbox', 'tech@sandbox.test');
    const job = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { quoteId, assignedTechnicianId: tech.id } });
    const jobId = ((await job.json()) as { id: string }).id;
    const raised = await api.request(`/v1/fsm/jobs/${jobId}/change-orders`, { method: 'POST', token: admin, json: { reason: 'History recorder change order', labour_hours: 2 } });
    const changeOrderId = ((await raised.json()) as { change_order_id: string }).change_order_id;
    const approvedCo = await api.request(`/v1/fsm/change-orders/${changeOrderId}/approve`, { method: 'POST', token: admin, json: { approved_by: { name: 'History Recorder', role: 'Homeowner', method: 'in_person' } } });
    if (approvedCo.status !== 200) throw new Error(`change order approval answered ${approvedCo.status}`);
    const changeOrder = harness.client.workflow.getHandle(changeOrderInvoiceWorkflowId(changeOrderId));
    const coOutcome = await changeOrder.result();
    if (coOutcome.status !== 'SUCCEEDED') throw new Error(`change order invoice ${JSON.stringify(coOutcome)}`);

    // Issue 30: the job completes with a draw beyond its quote: its completion invoice workflow.
    for (const status of ['dispatched', 'in_progress']) await moveJob(api, admin, jobId, status);
    const drawn = await api.request(`/v1/fsm/jobs/${jobId}/material-draws`, { method: 'POST', token: admin, json: { sku: 'MTR-WIRED', quantity: '1', van_id: 'VAN-1' } });
    if (drawn.status !== 201) throw new Error(`material draw answered ${drawn.status}`);
    await moveJob(api, admin, jobId, 'complete');
    const completion = harness.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(jobId));
    await jobCompletionInvoiceSettled(harness.client, jobId);
    const completionOutcome = await completion.result();
    if (completionOutcome.status !== 'SUCCEEDED') throw new Error(`completion invoice ${JSON.stringify(completionOutcome)}`);
    // A service job (no quote) whose invoice is refused once and repaired by retryLeg (D19).
    const customer = await api.request('/v1/customers', { method: 'POST', token: admin, json: { name: 'Service Customer' } });
    const customerId = ((await customer.json()) as { id: string }).id;
    const serviceJob = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { customerId, assignedTechnicianId: tech.id, siteAddress: '7 History Lane' } });
    const serviceJobId = ((await serviceJob.json()) as { id: string }).id;
    for (const status of ['dispatched', 'in_progress']) await moveJob(api, admin, serviceJobId, status);
    fake.faults.inject({ method: 'POST', path: '/v1/invoices', times: 1, action: faults.status(400) });
    await moveJob(api, admin, serviceJobId, 'complete');
    const serviceCompletion = harness.client.workflow.getHandle(jobCompletionInvoiceWorkflowId(serviceJobId));
    await jobCompletionInvoiceSettled(harness.client, serviceJobId);
    await serviceCompletion.executeUpdate(RETRY_LEG, { args: [{ provider: 'PAYMENTS' }] });
    await serviceCompletion.result();

    // All three legs: the sandbox-alt tenant connects accounting and CRM first.
    const altAdmin = await api.tokenFor(await sandboxUser(owner, 'sandbox-alt', 'admin@sandbox.test'));
    for (const slug of ['accounting', 'crm'] as const) {
      const connected = await consent(api, altAdmin, slug);
      if (connected.status !== 200) throw new Error(`consent ${slug} answered ${connected.status}`);
    }
    const altSales = await api.tokenFor(await sandboxUser(owner, 'sandbox-alt', 'sales@sandbox.test'));
    const altCalc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: altSales, json: twoWindows({ persist: true, customer: { name: 'Full Fan-out', email: 'fanout@example.test' } }) });
    const altQuoteId = ((await altCalc.json()) as { quote_id: string }).quote_id;
    await api.request(`/api/v1/quotes/${altQuoteId}/approve`, { method: 'POST', token: altSales });
    const fullFanOut = harness.client.workflow.getHandle(approvalWorkflowId(altQuoteId));
    await fullFanOut.result();
    // D18: a payments sync run over the events of the payments above (the invoice paid by the customer).
    fake.payInvoiceAsCustomer('sk_test_recordHistories01', ((await owner.query(`select external_id from sync_records where quote_id = $1 and provider = 'PAYMENTS'`, [quoteId])).rows[0] as { external_id: string }).external_id);
    const sync = await harness.client.workflow.start(WORKFLOW_TYPES.providerSync, {
      taskQueue: harness.taskQueue,
      workflowId: `provider-sync-${await organizationOf(owner, quoteId)}-payments-history`,
      args: [{ organizationId: await organizationOf(owner, quoteId), provider: 'PAYMENTS', timing: TEST_TIMING }],
    });
    await sync.result();
    // D24: a quote accepted by its customer on the quote's page: after the payments leg, the
    // (patched-in) activity that emails the invoice's hosted link.
    const pageCalc = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true, customer: { name: 'Page Acceptor', email: 'page-acceptor@example.test' } }) });
    const pageQuoteId = ((await pageCalc.json()) as { quote_id: string }).quote_id;
    const sent = (await (await api.request(`/api/v1/quotes/${pageQuoteId}/send`, { method: 'POST', token })).json()) as { page_url: string };
    const pagePath = new URL(sent.page_url).pathname;
    const pageHtml = await (await fetch(`${api.url}${pagePath}`)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(pageHtml)?.[1] ?? '';
    const accepted = await fetch(`${api.url}${pagePath}/accept`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, name: 'Page Acceptor' }) });
    if (accepted.status !== 200) throw new Error(`the page's accept answered ${accepted.status}`);
    const customerAccepted = harness.client.workflow.getHandle(approvalWorkflowId(pageQuoteId));
    await customerAccepted.result();
    return {
      'quote-approval-customer-accepted': await customerAccepted.fetchHistory(),
      'provider-sync-payments': await sync.fetchHistory(),
      // D19: refused, awaiting repair, repaired by the invoice endpoint's retryLeg update.
      'quote-approval-payments-repaired': await approval.fetchHistory(),
      'quote-invoice-succeeded': await invoiceAlone.fetchHistory(),
      'quote-approval-three-legs': await fullFanOut.fetchHistory(),
      'change-order-invoice-succeeded': await changeOrder.fetchHistory(),
      'job-completion-invoice-succeeded': await completion.fetchHistory(),
      // D19: a service job's invoice refused, awaiting repair, repaired by retryLeg.
      'job-completion-invoice-repaired': await serviceCompletion.fetchHistory(),
    };
  } finally {
    await fakes.close();
    await api.close();
    await harness.close();
    await close();
    await owner.end();
  }
}

async function organizationOf(owner: ReturnType<typeof ownerPool>, quoteId: string): Promise<string> {
  return (await owner.query('select organization_id from quotes where id = $1', [quoteId])).rows[0].organization_id as string;
}

async function moveJob(api: { request: (path: string, init: { method: string; token: string; json: unknown }) => Promise<Response> }, token: string, jobId: string, status: string): Promise<void> {
  const moved = await api.request(`/v1/fsm/jobs/${jobId}`, { method: 'PATCH', token, json: { status } });
  if (moved.status !== 200) throw new Error(`moving job ${jobId} to ${status} answered ${moved.status}: ${await moved.text()}`);
}
