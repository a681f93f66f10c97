import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { rememberPaymentsCustomer } from '../../db/quotes/customers';
import { IntegrationConnections } from '../../infra/integrations/connection-store';
import { ProviderCredentials, type IntegrationDependencies } from '../integrations';
import type { OAuthProviders } from '../../infra/integrations/providers';
import { SyncRecords } from '../sync-records';
import { beginSyncAttempt, syncSkipped, type SyncProvider } from '../../db/sync-records';
import { refreshScheduleRow } from '../../db/integrations/connections';
import { inTenant } from '../../db/tenant-scope';
import { planApprovalLegs } from './plan';
import { frozenQuoteIn, type FrozenQuote } from './frozen-quote';
import { expireStaleQuotes } from './expire-quotes';
import { writeInvoice } from '../payments/write-invoice';
import { writeAccountingInvoice } from '../accounting/write-accounting-invoice';
import { upsertOpportunity } from '../crm/upsert-opportunity';
import { classifyQuickBooksError, classifySalesforceError, classifyStripeError } from '../providers/failure';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';
import type { ProviderSyncDependencies } from '../provider-sync';
import type { Mailer } from '../../infra/email/mailer';
import { emailInvoiceToCustomer, type CustomerInvoiceEmailInput } from './customer-invoice-email';

interface QuoteRef {
  organizationId: string;
  quoteId: string;
}

/**
 * A leg's input: the quote. The activity records its own SUCCEEDED sync row after the provider
 * write, so the workflow needs no second activity for it.
 */
export type LegInput = QuoteRef;

/** What a leg's provider write leaves behind, for its sync record. */
export interface LegWrite {
  externalId: string;
  amountCents: number | null;
}

const notConfigured = (provider: string) =>
  ApplicationFailure.create({ message: `${provider} provider not configured`, type: FAILURE_TYPES.providerNotConfigured, nonRetryable: true });

/**
 * The approval fan-out's activities (sections 3.1 and 3.4, D7). The three provider legs share one
 * shape (`leg`): the frozen quote (D3) read and one more attempt counted on the sync record in one
 * transaction, the provider write with every call keyed by quote and step, the provider's failures
 * classified by one rule (activities/providers/failure.ts), and the SUCCEEDED sync row.
 */
export function createApprovalActivities(deps: {
  em: EntityManager;
  logger: Logger;
  payments: Stripe | undefined;
  integrations: IntegrationDependencies;
  providerSync?: ProviderSyncDependencies | undefined;
  mailer?: Mailer | undefined;
}) {
  const syncRecords = new SyncRecords(deps.em);
  const providers: OAuthProviders = deps.integrations.providers;
  const connections = new IntegrationConnections(deps.em, deps.integrations.cipher);
  const credentials = new ProviderCredentials(connections, providers);

  /** A leg's success on its sync row; for payments also `invoice.generated` (D13, same transaction) and the sync schedule. */
  async function recordSucceeded(input: QuoteRef & { provider: SyncProvider } & LegWrite): Promise<void> {
    await syncRecords.succeeded(input);
    // D18: the tenant's first invoice makes its payments sync schedule (the platform's account
    // has no consent to wait for); later ones find it. A Temporal hiccup here is only logged:
    // the worker's start-up makes any schedule still missing.
    if (input.provider === 'PAYMENTS' && deps.providerSync?.schedules) {
      await deps.providerSync.schedules.ensure({ organizationId: input.organizationId, provider: 'PAYMENTS' }, 'first invoice').catch((error: unknown) =>
        deps.logger.warn({ err: error instanceof Error ? error.message : String(error), organization_id: input.organizationId }, 'could not ensure the payments sync schedule'),
      );
    }
  }

  async function leg<T>(
    input: LegInput,
    provider: SyncProvider,
    classify: (error: unknown) => Error,
    write: (quote: FrozenQuote) => Promise<T>,
    recorded: (written: T) => LegWrite,
  ): Promise<T> {
    const ref = { organizationId: input.organizationId, quoteId: input.quoteId };
    // The frozen quote is read and the attempt counted in one transaction.
    const quote = await inTenant(deps.em, ref.organizationId, async (tx) => {
      const frozen = await frozenQuoteIn(tx, ref.quoteId);
      if (frozen) await beginSyncAttempt(tx, { ...ref, provider });
      return frozen;
    });
    if (!quote) throw ApplicationFailure.create({ message: `quote ${input.quoteId} has no frozen calculation`, type: FAILURE_TYPES.quoteNotApproved, nonRetryable: true });
    const log = deps.logger.child({ activity: Context.current().info.activityType, quote_id: input.quoteId, provider, attempt: Context.current().info.attempt });
    let written: T;
    try {
      written = await write(quote);
      log.info('provider write succeeded');
    } catch (error) {
      const classified = classify(error);
      log.warn({ err: classified.message }, 'provider write failed');
      throw classified;
    }
    // The leg records its own success. Should this fail (the database), the activity is
    // retried: the provider replays each stored answer by idempotency key and the row is written
    // again, so the guarantees are those of a write followed by a separate record.
    await recordSucceeded({ ...ref, provider, ...recorded(written) });
    return written;
  }

  return {
    planApprovalLegs: (input: QuoteRef) =>
      inTenant(deps.em, input.organizationId, (tx) =>
        planApprovalLegs(
          {
            paymentsConfigured: Boolean(deps.payments),
            providerConfigured: (provider) => Boolean(providers[provider]),
            connection: async (provider) => (await refreshScheduleRow(tx, provider))?.status ?? null,
            skipped: (ref) => syncSkipped(tx, ref),
          },
          input,
        ),
      ),

    /** D24: the invoice's hosted link to a customer who accepted on the quote's page. */
    emailInvoiceToCustomer: (input: CustomerInvoiceEmailInput) => emailInvoiceToCustomer({ em: deps.em, payments: deps.payments, mailer: deps.mailer, logger: deps.logger }, input),

    /** The payments leg (D7): customer, one item per line, the tax line, a finalised net-14 invoice. */
    writePaymentsInvoice: (input: LegInput) =>
      leg(
        input,
        'PAYMENTS',
        classifyStripeError,
        (quote) => {
          const stripe = deps.payments;
          if (!stripe) throw notConfigured('payments');
          return writeInvoice(stripe, { ...quote, organizationId: input.organizationId }, (paymentsCustomerId) =>
            rememberPaymentsCustomer(deps.em, input.organizationId, quote.customer!.id, paymentsCustomerId),
          );
        },
        (invoice) => ({ externalId: invoice.invoiceId, amountCents: invoice.totalCents }),
      ),

    /** The accounting leg (D7): customer and invoice in the tenant's QuickBooks company, with a fresh token. */
    writeAccountingInvoice: (input: LegInput) =>
      leg(
        input,
        'ACCOUNTING',
        classifyQuickBooksError,
        (quote) => {
          const provider = providers.ACCOUNTING;
          if (!provider) throw notConfigured('accounting');
          return credentials.withFreshToken({ organizationId: input.organizationId, provider: 'ACCOUNTING' }, (session) =>
            writeAccountingInvoice(provider.client({ accessToken: session.accessToken, realmId: session.externalAccountId }), {
              realmId: session.externalAccountId,
              baseUrl: session.instanceUrl ?? provider.apiBaseUrl,
              quote,
            }),
          );
        },
        (invoice) => ({ externalId: invoice.invoiceId, amountCents: invoice.totalCents }),
      ),

    /** The CRM leg (D7): an Opportunity upserted by the quote's external id, with a fresh token. */
    upsertCrmOpportunity: (input: LegInput) =>
      leg(
        input,
        'CRM',
        classifySalesforceError,
        (quote) => {
          const provider = providers.CRM;
          if (!provider) throw notConfigured('CRM');
          return credentials.withFreshToken({ organizationId: input.organizationId, provider: 'CRM' }, (session) =>
            upsertOpportunity(provider.connection({ accessToken: session.accessToken, instanceUrl: session.instanceUrl! }), quote),
          );
        },
        (opportunity) => ({ externalId: opportunity.opportunityId, amountCents: null }),
      ),

    recordSyncFailed: (input: QuoteRef & { provider: SyncProvider; lastError: string }) => syncRecords.failed(input),

    expireStaleQuotes: (_input: Record<string, never>) => expireStaleQuotes(deps.em),
  };
}
