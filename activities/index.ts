import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { inTenant } from '../db/tenant-scope';
import { IntegrationConnections } from '../api/integrations/connection-store';
import { SyncRecords, type SyncProvider } from './sync-records';
import { planApprovalLegs } from './approval/plan';
import { loadFrozenQuote } from './approval/frozen-quote';
import { writeInvoice } from './payments/write-invoice';
import { expireStaleQuotes } from './approval/expire-quotes';
import { createIntegrationActivities, providerCredentials, type IntegrationDependencies } from './integrations';
import { writeAccountingInvoice } from './accounting/write-accounting-invoice';
import { upsertOpportunity } from './crm/upsert-opportunity';
import { classifyQuickBooksError, classifySalesforceError, classifyStripeError } from './providers/failure';
import { QuickBooksOAuth } from '../api/integrations/providers/quickbooks';
import { SalesforceOAuth } from '../api/integrations/providers/salesforce';
import type { ConnectionState } from './approval/plan';
import { createWebhookActivities, type WebhookDependencies } from './webhooks';

/** What every activity may use; the worker builds it (worker/main.ts). */
export interface ActivityDependencies {
  em: EntityManager;
  logger: Logger;
  /** The payments client, when the deployment holds a payments secret key. */
  payments?: Stripe | undefined;
  /** The OAuth providers the platform is configured for, and the credential cipher (issue 7). */
  integrations?: IntegrationDependencies | undefined;
  /** Outbound webhook delivery: the secret cipher and the private-network switch (D6). */
  webhooks?: WebhookDependencies | undefined;
}

interface QuoteRef {
  organizationId: string;
  quoteId: string;
}

/**
 * All activities, built from their dependencies (Temporal's dependency-injection pattern):
 * workflows import only the type of this object. Each one takes one object argument.
 */
export function createActivities(deps: ActivityDependencies) {
  const syncRecords = new SyncRecords(deps.em);
  const credentials = providerCredentials(deps);
  const providers = deps.integrations?.providers ?? {};
  const connections = new IntegrationConnections(deps.em, deps.integrations?.cipher);
  const connectionState = async (organizationId: string, provider: 'ACCOUNTING' | 'CRM'): Promise<ConnectionState> =>
    (await connections.schedule({ organizationId, provider })).status;
  const frozen = async (input: QuoteRef) => {
    const quote = await loadFrozenQuote(deps.em, input.organizationId, input.quoteId);
    if (!quote) throw ApplicationFailure.create({ message: `quote ${input.quoteId} has no frozen calculation`, type: 'QuoteNotApproved', nonRetryable: true });
    return quote;
  };

  return {
    ...createIntegrationActivities(deps),
    ...createWebhookActivities(deps),

    planApprovalLegs: (input: QuoteRef) =>
      planApprovalLegs(
        {
          syncRecords,
          paymentsConfigured: Boolean(deps.payments),
          providerConfigured: (provider) => Boolean(providers[provider]),
          connection: (provider) => connectionState(input.organizationId, provider),
        },
        input,
      ),

    /** The accounting leg (D7): customer and invoice in the tenant's QuickBooks company, with a fresh token. */
    async writeAccountingInvoice(input: QuoteRef) {
      const quote = await frozen(input);
      const provider = providers.ACCOUNTING;
      if (!(provider instanceof QuickBooksOAuth)) throw ApplicationFailure.create({ message: 'accounting provider not configured', type: 'ProviderNotConfigured', nonRetryable: true });
      await syncRecords.beginAttempt({ ...input, provider: 'ACCOUNTING' });
      try {
        return await credentials.withFreshToken({ organizationId: input.organizationId, provider: 'ACCOUNTING' }, (session) =>
          writeAccountingInvoice(provider.client({ accessToken: session.accessToken, realmId: session.externalAccountId }), {
            realmId: session.externalAccountId,
            baseUrl: session.instanceUrl ?? provider.apiBaseUrl,
            quote,
          }),
        );
      } catch (error) {
        throw classifyQuickBooksError(error);
      }
    },

    /** The CRM leg (D7): an Opportunity upserted by the quote's external id, with a fresh token. */
    async upsertCrmOpportunity(input: QuoteRef) {
      const quote = await frozen(input);
      const provider = providers.CRM;
      if (!(provider instanceof SalesforceOAuth)) throw ApplicationFailure.create({ message: 'CRM provider not configured', type: 'ProviderNotConfigured', nonRetryable: true });
      await syncRecords.beginAttempt({ ...input, provider: 'CRM' });
      try {
        return await credentials.withFreshToken({ organizationId: input.organizationId, provider: 'CRM' }, (session) =>
          upsertOpportunity(provider.connection({ accessToken: session.accessToken, instanceUrl: session.instanceUrl! }), quote),
        );
      } catch (error) {
        throw classifySalesforceError(error);
      }
    },

    recordSyncSucceeded: (input: QuoteRef & { provider: SyncProvider; externalId: string; amountCents: number | null }) => syncRecords.succeeded(input),

    recordSyncFailed: (input: QuoteRef & { provider: SyncProvider; lastError: string }) => syncRecords.failed(input),

    expireStaleQuotes: (_input: Record<string, never>) => expireStaleQuotes(deps.em),

    /** The payments leg's provider calls; each attempt is counted on the sync record first. */
    async writePaymentsInvoice(input: QuoteRef) {
      const stripe = deps.payments;
      if (!stripe) throw ApplicationFailure.create({ message: 'payments provider not configured', type: 'ProviderNotConfigured', nonRetryable: true });
      const quote = await frozen(input);
      await syncRecords.beginAttempt({ ...input, provider: 'PAYMENTS' });
      const log = deps.logger.child({ activity: 'writePaymentsInvoice', quote_id: input.quoteId, attempt: Context.current().info.attempt });
      try {
        const written = await writeInvoice(stripe, { ...quote, organizationId: input.organizationId }, (paymentsCustomerId) =>
          inTenant(deps.em, input.organizationId, (tx) => tx.execute('update customers set payments_customer_id = ? where id = ?', [paymentsCustomerId, quote.customer!.id])).then(() => undefined),
        );
        log.info({ invoice_id: written.invoiceId }, 'payments invoice written');
        return written;
      } catch (error) {
        const classified = classifyStripeError(error);
        log.warn({ err: classified.message }, 'payments invoice write failed');
        throw classified;
      }
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
