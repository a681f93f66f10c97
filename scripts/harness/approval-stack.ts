import type pg from 'pg';
import { startApi, type ApiHarness } from './api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from './owner-db';
import { startTemporalHarness, type TemporalHarness } from './temporal-harness';
import { consent, startIntegrationFakes, workerIntegrations, type IntegrationFakes } from './integration-fakes';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

/**
 * What the approval fan-out tests share: the accounting and CRM fakes, Temporal with a worker,
 * an API whose dispatcher starts the workflows, and a tenant with a rate card and both
 * connections made through the real consent flow. With `payments`, the API and the worker also
 * invoice through that Stripe (a fake the test runs); `env` adds settings of the API.
 */
export interface ApprovalStack {
  owner: pg.Pool;
  fakes: IntegrationFakes;
  temporal: TemporalHarness;
  api: ApiHarness;
  tenant: Tenant;
  /** A SALES token of the tenant. */
  sales: string;
  close(): Promise<void>;
}

export async function startApprovalStack(options: { payments?: { secretKey: string; baseUrl: string }; env?: Record<string, string> } = {}): Promise<ApprovalStack> {
  const owner = ownerPool();
  const fakes = await startIntegrationFakes();
  const temporal = await startTemporalHarness();
  const payments = options.payments ? createStripeClient(options.payments) : undefined;
  const api = await startApi({
    events: temporal.dispatcher,
    ...(payments ? { payments } : {}),
    env: { ...fakes.env, ...(options.payments ? { PAYMENTS_SECRET_KEY: options.payments.secretKey } : {}), ...options.env },
  });
  await temporal.startWorker({ ...(payments ? { payments } : {}), integrations: workerIntegrations(api) });
  const tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  const sales = await api.tokenFor(tenant.users.sales!);
  const admin = await api.tokenFor(tenant.users.admin!);
  for (const slug of ['accounting', 'crm'] as const) {
    const res = await consent(api, admin, slug);
    if (res.status !== 200) throw new Error(`consent to ${slug} answered ${res.status}`);
  }
  return {
    owner,
    fakes,
    temporal,
    api,
    tenant,
    sales,
    close: async () => {
      await api.close();
      await temporal.close();
      await fakes.close();
      await owner.end();
    },
  };
}
