import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { rememberPaymentsCustomer } from '../../db/quotes/customers';
import { IntegrationConnections } from '../integrations/connection-store';
import { ProviderCredentials, type IntegrationDependencies } from '../integrations';
import type { OAuthProviders } from '../integrations/providers';
import { SyncRecords } from '../sync-records';
import type { SyncProvider } from '../../db/sync-records';
import { planApprovalLegs, type ConnectionState } from './plan';
import { loadFrozenQuote, type FrozenQuote } from './frozen-quote';
import { expireStaleQuotes } from './expire-quotes';
import { writeInvoice } from '../payments/write-invoice';
import { writeAccountingInvoice } from '../accounting/write-accounting-invoice';
import { upsertOpportunity } from '../crm/upsert-opportunity';
import { classifyQuickBooksError, classifySalesforceError, classifyStripeError } from '../providers/failure';
import { FAILURE_TYPES } from '../temporal/failure-types';
import type { ProviderSyncDependencies } from '../provider-sync';

interface QuoteRef {
  organizationId: string;
  quoteId: string;
}

/** What a leg's provider write leaves behind, for its sync record. */
export interface LegWrite {
  externalId: string;
  amountCents: number | null;
}

const notConfigured = (provider: string) =>
  ApplicationFailure.create({ message: `${provider} provider not configured`, type: FAILURE_TYPES.providerNotConfigured, nonRetryable: true });

/**
 * The approval fan-out's activities (sections 3.1 and 3.4, D7). The three provider legs share one
 * shape (`leg`): the frozen quote (D3), one more attempt counted on the sync record, the provider
 * write with every call keyed by quote and step, and the provider's failures classified by one
 * rule (activities/providers/failure.ts).
 */
export function createApprovalActivities(deps: { em: EntityManager; logger: Logger; payments: Stripe | undefined; integrations: IntegrationDependencies; providerSync?: ProviderSyncDependencies | undefined }) {
  const syncRecords = new SyncRecords(deps.em);
  const providers: OAuthProviders = deps.integrations.providers;
  const connections = new IntegrationConnections(deps.em, deps.integrations.cipher);
  const credentials = new ProviderCredentials(connections, providers);
  const connectionState = async (organizationId: string, provider: 'ACCOUNTING' | 'CRM'): Promise<ConnectionState> =>
    (await connections.schedule({ organizationId, provider })).status;

  async function leg<T>(
    input: QuoteRef,
    provider: SyncProvider,
    classify: (error: unknown) => Error,
    write: (quote: FrozenQuote) => Promise<T>,
  ): Promise<T> {
    const quote = await loadFrozenQuote(deps.em, input.organizationId, input.quoteId);
    if (!quote) throw ApplicationFailure.create({ message: `quote ${input.quoteId} has no frozen calculation`, type: FAILURE_TYPES.quoteNotApproved, nonRetryable: true });
    await syncRecords.beginAttempt({ ...input, provider });
    const log = deps.logger.child({ activity: Context.current().info.activityType, quote_id: input.quoteId, provider, attempt: Context.current().info.attempt });
    try {
      const written = await write(quote);
      log.info('provider write succeeded');
      return written;
    } catch (error) {
      const classified = classify(error);
      log.warn({ err: classified.message }, 'provider write failed');
      throw classified;
    }
  }

  return {
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

    /** The payments leg (D7): customer, one item per line, the tax line, a finalised net-14 invoice. */
    writePaymentsInvoice: (input: QuoteRef) =>
      leg(input, 'PAYMENTS', classifyStripeError, (quote) => {
        const stripe = deps.payments;
        if (!stripe) throw notConfigured('payments');
        return writeInvoice(stripe, { ...quote, organizationId: input.organizationId }, (paymentsCustomerId) =>
          rememberPaymentsCustomer(deps.em, input.organizationId, quote.customer!.id, paymentsCustomerId),
        );
      }),

    /** The accounting leg (D7): customer and invoice in the tenant's QuickBooks company, with a fresh token. */
    writeAccountingInvoice: (input: QuoteRef) =>
      leg(input, 'ACCOUNTING', classifyQuickBooksError, (quote) => {
        const provider = providers.ACCOUNTING;
        if (!provider) throw notConfigured('accounting');
        return credentials.withFreshToken({ organizationId: input.organizationId, provider: 'ACCOUNTING' }, (session) =>
          writeAccountingInvoice(provider.client({ accessToken: session.accessToken, realmId: session.externalAccountId }), {
            realmId: session.externalAccountId,
            baseUrl: session.instanceUrl ?? provider.apiBaseUrl,
            quote,
          }),
        );
      }),

    /** The CRM leg (D7): an Opportunity upserted by the quote's external id, with a fresh token. */
    upsertCrmOpportunity: (input: QuoteRef) =>
      leg(input, 'CRM', classifySalesforceError, (quote) => {
        const provider = providers.CRM;
        if (!provider) throw notConfigured('CRM');
        return credentials.withFreshToken({ organizationId: input.organizationId, provider: 'CRM' }, (session) =>
          upsertOpportunity(provider.connection({ accessToken: session.accessToken, instanceUrl: session.instanceUrl! }), quote),
        );
      }),

    recordSyncSucceeded: async (input: QuoteRef & { provider: SyncProvider } & LegWrite) => {
      await syncRecords.succeeded(input);
      // D18: the tenant's first invoice makes its payments sync schedule (the platform's account
      // has no consent to wait for); later ones find it. A Temporal hiccup here is only logged:
      // the worker's start-up makes any schedule still missing.
      if (input.provider === 'PAYMENTS' && deps.providerSync?.schedules) {
        await deps.providerSync.schedules.ensure({ organizationId: input.organizationId, provider: 'PAYMENTS' }, 'first invoice').catch((error: unknown) =>
          deps.logger.warn({ err: error instanceof Error ? error.message : String(error), organization_id: input.organizationId }, 'could not ensure the payments sync schedule'),
        );
      }
    },

    recordSyncFailed: (input: QuoteRef & { provider: SyncProvider; lastError: string }) => syncRecords.failed(input),

    expireStaleQuotes: (_input: Record<string, never>) => expireStaleQuotes(deps.em),
  };
}
