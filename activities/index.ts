import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { createApprovalActivities } from './approval';
import { createChangeOrderInvoiceActivities } from './approval/change-order-invoice';
import { createJobCompletionInvoiceActivities } from './approval/job-completion-invoice';
import { createIntegrationActivities, type IntegrationDependencies } from './integrations';
import { createWebhookActivities, type WebhookDependencies } from './webhooks';
import { createProviderSyncActivities, type ProviderSyncDependencies } from './provider-sync';
import { createPricebookActivities } from './pricebook';
import { createTenantActivities } from './tenants';
import { createRoutingActivities, type RoutingDependencies } from './routing';

/** What every activity may use; the worker builds it (worker/main.ts). */
export interface ActivityDependencies {
  em: EntityManager;
  logger: Logger;
  /** The payments client; absent when the deployment holds no payments secret key (legs SKIPPED). */
  payments?: Stripe | undefined;
  /** The OAuth providers the platform is configured for (possibly none), and the credential cipher. */
  integrations: IntegrationDependencies;
  /** Outbound webhook delivery: the secret cipher and the private-network switch (D6). */
  webhooks: WebhookDependencies;
  /** D18: the sync schedules (a sync that finds its connection unusable pauses its own) and the lookback. */
  providerSync?: ProviderSyncDependencies | undefined;
  /** D23: travel times and the solver of route plans (great-circle and the built-in solver when absent). */
  routing?: RoutingDependencies | undefined;
}

/**
 * All activities, built from their dependencies (Temporal's dependency-injection pattern):
 * workflows import only the type of this object. Each one takes one object argument.
 */
export function createActivities(deps: ActivityDependencies) {
  return {
    // D24's invoice email goes through the same SMTP server as D13's notices.
    ...createApprovalActivities({ ...deps, payments: deps.payments, mailer: deps.webhooks.mailer }),
    ...createChangeOrderInvoiceActivities({ ...deps, payments: deps.payments }),
    ...createJobCompletionInvoiceActivities({ ...deps, payments: deps.payments }),
    ...createIntegrationActivities(deps),
    ...createWebhookActivities(deps),
    ...createProviderSyncActivities({ ...deps, payments: deps.payments }),
    ...createPricebookActivities(deps),
    // D20: the first ADMIN's invitation goes through the same SMTP server and public base URL as D13's notices.
    ...createTenantActivities({ em: deps.em, invitations: { mailer: deps.webhooks.mailer, publicBaseUrl: deps.webhooks.publicBaseUrl ?? 'http://localhost:3000' } }),
    ...createRoutingActivities({ em: deps.em, routing: deps.routing ?? { travel: { osrmTimeoutMs: 10_000 } } }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
