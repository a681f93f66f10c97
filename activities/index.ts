import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { inTenant } from '../db/tenant-scope';
import { SyncRecords, type SyncProvider } from './sync-records';
import { planApprovalLegs } from './approval/plan';
import { loadFrozenQuote } from './approval/frozen-quote';
import { writeInvoice } from './payments/write-invoice';
import { classifyStripeError } from './payments/provider-failure';
import { expireStaleQuotes } from './approval/expire-quotes';
import { createIntegrationActivities, type IntegrationDependencies } from './integrations';
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

  return {
    ...createIntegrationActivities(deps),
    ...createWebhookActivities(deps),

    planApprovalLegs: (input: QuoteRef) => planApprovalLegs({ syncRecords, paymentsConfigured: Boolean(deps.payments) }, input),

    recordSyncSucceeded: (input: QuoteRef & { provider: SyncProvider; externalId: string; amountCents: number | null }) => syncRecords.succeeded(input),

    recordSyncFailed: (input: QuoteRef & { provider: SyncProvider; lastError: string }) => syncRecords.failed(input),

    expireStaleQuotes: (_input: Record<string, never>) => expireStaleQuotes(deps.em),

    /** The payments leg's provider calls; each attempt is counted on the sync record first. */
    async writePaymentsInvoice(input: QuoteRef) {
      const stripe = deps.payments;
      if (!stripe) throw ApplicationFailure.create({ message: 'payments provider not configured', type: 'ProviderNotConfigured', nonRetryable: true });
      const quote = await loadFrozenQuote(deps.em, input.organizationId, input.quoteId);
      if (!quote) throw ApplicationFailure.create({ message: `quote ${input.quoteId} has no frozen calculation`, type: 'QuoteNotApproved', nonRetryable: true });
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
