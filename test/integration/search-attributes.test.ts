import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, SYNC_INTERVAL_NEVER_IN_A_TEST, TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { waitUntil } from '../../scripts/harness/wait-until';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { InvoiceRunner } from '../../infra/temporal/invoice-runner';
import { IntegrationWorkflows } from '../../infra/temporal/integration-workflows';
import { ProviderSyncSchedules } from '../../infra/temporal/provider-sync-schedules';
import {
  WORKFLOW_TYPES,
  approvalWorkflowId,
  changeOrderInvoiceWorkflowId,
  endpointDeliveryWorkflowId,
  integrationRefreshWorkflowId,
  invoiceWorkflowId,
  providerSyncScheduleId,
} from '../../infra/temporal/contracts';
import { OrganizationSubdomainKey } from '../../infra/temporal/search-attributes';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { WebhookEndpointWithSecret } from '../../api/webhooks/schemas';
import { approvedChangeOrder, approvedQuote, jobOf, type ChangeOrderCaller } from '../support/change-orders';

/**
 * Operators find a tenant's workflows by the name they know it by: every workflow of a tenant
 * carries `OrganizationSubdomain`, and every workflow of a quote (its approval, its invoice runs,
 * its change orders' invoices) `QuoteNumber`, so "quote 3 of sandbox" is one visibility query.
 * Visibility is eventually consistent: each lookup polls until the run shows (bounded).
 *
 * Network: the Stripe fake and the webhook receiver are on 127.0.0.1, allowed by
 * OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK alone.
 */
const STRIPE_KEY = 'sk_test_searchAttributes01';
const ENCRYPTION_KEY = randomBytes(32).toString('base64');

let owner: pg.Pool;
let stripe: StripeFake;
let closeStripe: () => Promise<void>;
let temporal: TemporalHarness;
let api: ApiHarness;
let schedules: ProviderSyncSchedules;
let invoices: InvoiceRunner;
let tenant: Tenant;
let other: Tenant;
let caller: ChangeOrderCaller;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  owner = ownerPool();
  stripe = new StripeFake({ apiKeys: [STRIPE_KEY] });
  const started = await stripe.start();
  closeStripe = started.close;
  temporal = await startTemporalHarness();
  const payments = createStripeClient({ secretKey: STRIPE_KEY, baseUrl: started.url });
  // Runs are triggered by the test (never at creation or on the interval), so each knows what ran.
  schedules = new ProviderSyncSchedules(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, interval: SYNC_INTERVAL_NEVER_IN_A_TEST, timing: TEST_TIMING, runAtOnce: false });
  invoices = new InvoiceRunner(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, timing: TEST_TIMING });
  api = await startApi({
    events: temporal.dispatcher,
    payments,
    invoices,
    env: { PAYMENTS_SECRET_KEY: STRIPE_KEY, CREDENTIAL_ENCRYPTION_KEY: ENCRYPTION_KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' },
  });
  await temporal.startWorker({
    payments,
    webhooks: { cipher: new CredentialCipher(ENCRYPTION_KEY), allowPrivateNetworks: false, allowLoopback: true },
    providerSync: { schedules, pageSize: 50 },
  });
  await receiver.start();
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  other = await createTenant(owner, { admin: 'ADMIN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  caller = { api, temporal, admin: await api.tokenFor(tenant.users.admin!), technicianId: tenant.users.tech!.id };
}, 120_000);
afterAll(async () => {
  await temporal.client.schedule.getHandle(providerSyncScheduleId({ organizationId: tenant.id, provider: 'PAYMENTS' })).delete().catch(() => undefined);
  await receiver.close();
  await api.close();
  await temporal.close();
  await closeStripe();
  await owner.end();
});

/** The workflow ids a visibility query lists. */
async function listed(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of temporal.client.workflow.list({ query })) ids.push(execution.workflowId);
  return ids;
}

/** Polls the query until every id of `expected` is listed; answers everything it lists then. */
async function listedOnce(query: string, expected: readonly string[]): Promise<string[]> {
  return waitUntil(`${expected.join(', ')} listed by ${query}`, async () => {
    const ids = await listed(query);
    return expected.every((id) => ids.includes(id)) && ids;
  }, { timeoutMs: 30_000, intervalMs: 200 });
}

const ofTenant = (t: Tenant, type: string) => `OrganizationSubdomain = '${t.subdomain}' AND WorkflowType = '${type}'`;

describe('OrganizationSubdomain and QuoteNumber: a tenant\'s workflows by the names operators use', () => {
  it('"quote N of <subdomain>" lists its approval, its invoice run and its change order\'s invoice, and nothing of another quote', async () => {
    const { quoteId, quoteNumber } = await approvedQuote(caller);
    // The payments leg alone, as `ops retry` and `POST /quotes/{id}/invoice` run it once the approval ended.
    expect(await invoices.run({ organizationId: tenant.id, quoteId, quoteNumber })).toMatchObject({ status: 'SUCCEEDED' });
    const jobId = await jobOf(caller, quoteId);
    const { changeOrder, settled } = await approvedChangeOrder(caller, jobId, 1.5);
    expect(settled.outcome).toMatchObject({ status: 'SUCCEEDED' });
    // A second quote of the same tenant: its number must not match.
    const second = await approvedQuote(caller);

    const expected = [approvalWorkflowId(quoteId), invoiceWorkflowId(quoteId), changeOrderInvoiceWorkflowId(changeOrder.change_order_id)];
    const ids = await listedOnce(`OrganizationSubdomain = '${tenant.subdomain}' AND QuoteNumber = ${quoteNumber}`, expected);
    expect([...ids].sort()).toEqual([...expected].sort());
    expect(await listedOnce(`OrganizationSubdomain = '${tenant.subdomain}' AND QuoteNumber = ${second.quoteNumber}`, [approvalWorkflowId(second.quoteId)])).toEqual([approvalWorkflowId(second.quoteId)]);

    // Strongly consistent: each run carries the tenant's subdomain itself.
    for (const workflowId of expected) {
      const described = await temporal.client.workflow.getHandle(workflowId).describe();
      expect(described.typedSearchAttributes.get(OrganizationSubdomainKey)).toBe(tenant.subdomain);
    }
    // Another tenant's subdomain finds none of them (its quote numbers start at 1 too).
    expect(await listed(`OrganizationSubdomain = '${other.subdomain}'`)).toEqual([]);
  }, 120_000);

  it('the delivery workflow of a webhook endpoint', async () => {
    const admin = await api.tokenFor(tenant.users.admin!);
    const created = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['*'], description: 'search attributes' } });
    expect(created.status).toBe(201);
    const endpoint = WebhookEndpointWithSecret.parse(await created.json());
    // A real change whose event (work_order.dispatched) the endpoint subscribes to, delivered.
    const order = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { assignedTechnicianId: tenant.users.tech!.id } });
    expect(order.status).toBe(201);
    const { id } = (await order.json()) as { id: string };
    expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' } })).status).toBe(200);
    await waitUntil('a delivery at the receiver', () => receiver.received.length > 0);
    const workflowId = endpointDeliveryWorkflowId(endpoint.id);
    expect(await listedOnce(ofTenant(tenant, WORKFLOW_TYPES.deliverEndpointWebhooks), [workflowId])).toContain(workflowId);
    expect(await listed(ofTenant(other, WORKFLOW_TYPES.deliverEndpointWebhooks))).toEqual([]);
  }, 60_000);

  it('the token refresh workflow of a connection', async () => {
    const ref = { organizationId: tenant.id, provider: 'ACCOUNTING' as const };
    // No connection is usable: the workflow starts, finds it so and ends; it is listed all the same.
    await new IntegrationWorkflows(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, timing: TEST_TIMING }).connectionChanged(ref, 'connected');
    const workflowId = integrationRefreshWorkflowId(ref);
    expect(await listedOnce(ofTenant(tenant, WORKFLOW_TYPES.integrationTokenRefresh), [workflowId])).toEqual([workflowId]);
  }, 60_000);

  it('the runs of a provider sync schedule', async () => {
    const target = { organizationId: tenant.id, provider: 'PAYMENTS' as const };
    await schedules.ensure(target);
    const handle = temporal.client.schedule.getHandle(providerSyncScheduleId(target));
    await handle.trigger();
    const run = await waitUntil('the triggered run', async () => (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId);
    expect(run.startsWith(providerSyncScheduleId(target))).toBe(true);
    expect(await listedOnce(ofTenant(tenant, WORKFLOW_TYPES.providerSync), [run])).toEqual([run]);
  }, 60_000);
});
