import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, TEST_TIMING, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { StripeFake } from '../../scripts/sandboxes/stripe-fake';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { InvoiceRunner } from '../../infra/temporal/invoice-runner';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

export interface PaymentsStack {
  owner: pg.Pool;
  fake: StripeFake;
  fakeUrl: string;
  temporal: TemporalHarness;
  api: ApiHarness;
  tenant: Tenant;
  /** A SALES user's token in `tenant`. */
  sales: string;
  close(): Promise<void>;
}

/**
 * The approval and payments suites' world: the Stripe fake taking `key`, a worker whose payments
 * client points at it, an API that starts workflows and runs the invoice leg, and a tenant with
 * the sandbox rate card.
 */
export async function startPaymentsStack(options: { key: string; env?: Record<string, string> }): Promise<PaymentsStack> {
  const owner = ownerPool();
  const fake = new StripeFake({ apiKeys: [options.key] });
  const { url: fakeUrl, close: closeFake } = await fake.start();
  const temporal = await startTemporalHarness();
  const payments = createStripeClient({ secretKey: options.key, baseUrl: fakeUrl });
  await temporal.startWorker({ payments });
  const api = await startApi({
    events: temporal.dispatcher,
    invoices: new InvoiceRunner(temporal.client, { taskQueue: temporal.taskQueue, timing: TEST_TIMING }),
    payments,
    env: { PAYMENTS_SECRET_KEY: options.key, ...options.env },
  });
  const tenant = await createTenant(owner, { sales: 'SALES', tech: 'TECHNICIAN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  return {
    owner,
    fake,
    fakeUrl,
    temporal,
    api,
    tenant,
    sales: await api.tokenFor(tenant.users.sales!),
    close: async () => {
      await api.close();
      await temporal.close();
      await closeFake();
      await owner.end();
    },
  };
}
