import type pg from 'pg';
import { startApi, type ApiHarness } from './api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from './owner-db';
import { startTemporalHarness, TEST_TIMING, type TemporalHarness } from './temporal-harness';
import { consent, startIntegrationFakes, workerIntegrations, type IntegrationFakes } from './integration-fakes';
import { StripeFake } from '../sandboxes/stripe-fake';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { InvoiceRunner } from '../../infra/temporal/invoice-runner';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import type { Role } from '../../db/entities/user';
import type { Mailer } from '../../infra/email/mailer';

/**
 * The approval tests' world, in one place: Temporal with a worker, an API whose dispatcher starts
 * the workflows, and a tenant with the sandbox rate card and a SALES user. Two shapes of it:
 * the fan-out to every provider (startApprovalStack) and the payments leg alone
 * (startPaymentsStack).
 */
export interface StackCore {
  owner: pg.Pool;
  temporal: TemporalHarness;
  api: ApiHarness;
  tenant: Tenant;
  /** A SALES token of the tenant. */
  sales: string;
  close(): Promise<void>;
}

export interface ApprovalStack extends StackCore {
  fakes: IntegrationFakes;
}

export interface PaymentsStack extends StackCore {
  /** The Stripe fake the stack runs, taking the key it was started with. */
  fake: StripeFake;
  fakeUrl: string;
}

interface CoreOptions {
  payments?: { secretKey: string; baseUrl: string };
  /** The API's own invoice runner (`POST /quotes/{id}/invoice` waits for the payments leg). */
  invoices?: boolean;
  /** The worker's accounting and CRM clients, reaching the fakes through the API's connections. */
  integrations?: boolean;
  users: Record<string, Role>;
  env?: Record<string, string>;
  /** Stopped after everything else, in order. */
  alsoClose?: (() => Promise<void>)[];
  /** SMTP for the API and the worker (D13, D24): a test's mail catcher. */
  mailer?: Mailer;
}

async function startCore(options: CoreOptions): Promise<StackCore> {
  const owner = ownerPool();
  const temporal = await startTemporalHarness();
  const payments = options.payments ? createStripeClient(options.payments) : undefined;
  const api = await startApi({
    events: temporal.dispatcher,
    ...(options.invoices ? { invoices: new InvoiceRunner(temporal.client, { taskQueue: temporal.taskQueue, subdomains: temporal.subdomains, timing: TEST_TIMING }) } : {}),
    ...(payments ? { payments } : {}),
    ...(options.mailer ? { mailer: options.mailer } : {}),
    env: { ...(options.payments ? { PAYMENTS_SECRET_KEY: options.payments.secretKey } : {}), ...options.env },
  });
  await temporal.startWorker({
    ...(payments ? { payments } : {}),
    ...(options.integrations ? { integrations: workerIntegrations(api) } : {}),
    ...(options.mailer ? { webhooks: { cipher: undefined, allowPrivateNetworks: false, mailer: options.mailer } } : {}),
  });
  const tenant = await createTenant(owner, options.users);
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  return {
    owner,
    temporal,
    api,
    tenant,
    sales: await api.tokenFor(tenant.users.sales!),
    close: async () => {
      await api.close();
      await temporal.close();
      for (const close of options.alsoClose ?? []) await close();
      await owner.end();
    },
  };
}

/**
 * The fan-out to every provider: the accounting and CRM fakes, with both connections made
 * through the real consent flow by the tenant's ADMIN. With `payments`, the API and the worker
 * also invoice through that Stripe (a fake the test runs).
 */
export async function startApprovalStack(options: { payments?: { secretKey: string; baseUrl: string }; env?: Record<string, string> } = {}): Promise<ApprovalStack> {
  const fakes = await startIntegrationFakes();
  const core = await startCore({
    ...(options.payments ? { payments: options.payments } : {}),
    integrations: true,
    users: { admin: 'ADMIN', sales: 'SALES' },
    env: { ...fakes.env, ...options.env },
    alsoClose: [() => fakes.close()],
  });
  const admin = await core.api.tokenFor(core.tenant.users.admin!);
  for (const slug of ['accounting', 'crm'] as const) {
    const res = await consent(core.api, admin, slug);
    if (res.status !== 200) throw new Error(`consent to ${slug} answered ${res.status}`);
  }
  return { ...core, fakes };
}

/**
 * The payments leg alone: the Stripe fake taking `key`, a worker whose payments client points at
 * it, an API that starts workflows and runs the invoice leg, and a tenant with an ADMIN, a SALES
 * user and a TECHNICIAN (an ADMIN makes work orders and change orders).
 */
export async function startPaymentsStack(options: { key: string; env?: Record<string, string>; mailer?: Mailer; hostedPages?: boolean }): Promise<PaymentsStack> {
  const fake = new StripeFake({ apiKeys: [options.key], ...(options.hostedPages ? { hostedPages: true } : {}) });
  const { url: fakeUrl, close: closeFake } = await fake.start();
  const core = await startCore({
    payments: { secretKey: options.key, baseUrl: fakeUrl },
    invoices: true,
    users: { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' },
    ...(options.env ? { env: options.env } : {}),
    ...(options.mailer ? { mailer: options.mailer } : {}),
    alsoClose: [closeFake],
  });
  return { ...core, fake, fakeUrl };
}
