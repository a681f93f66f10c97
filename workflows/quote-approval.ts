import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { LegOutcome, LegProvider, QuoteApprovalInput, QuoteApprovalWorkflow, QuoteInvoiceWorkflow, Timing } from '../activities/temporal/contracts';
import { databaseProfile, providerLegProfile } from './activity-profiles';

/**
 * Sections 3.1 and 3.4, D7: after a quote is approved, each provider leg runs on its own (one
 * failing does not hold back the others). A leg whose provider is not connected is recorded as
 * SKIPPED and calls nothing. Id: `quote-approval-<quoteId>` (one per quote, ever).
 */
export const quoteApproval: QuoteApprovalWorkflow = async function quoteApproval(input) {
  const timing = input.timing ?? {};
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const plan = await db.planApprovalLegs({ organizationId: input.organizationId, quoteId: input.quoteId });
  const legs: Promise<LegOutcome>[] = plan.skipped.map((provider) => Promise.resolve<LegOutcome>({ provider, status: 'SKIPPED' }));
  for (const provider of plan.run) legs.push(runLeg(provider, input, timing));
  return { legs: await Promise.all(legs) };
};

/**
 * The payments leg alone: `POST /quotes/{id}/invoice` runs this as its own workflow
 * (`quote-invoice-<quoteId>-<attempt>`), never the other legs and never a second event.
 */
export const quoteInvoice: QuoteInvoiceWorkflow = async function quoteInvoice(input) {
  return runLeg('PAYMENTS', input, input.timing ?? {});
};

type Provider = LegProvider;
type QuoteRef = { organizationId: string; quoteId: string };

/** Each provider's write (one activity, every call keyed by quote and step), as a leg sees it. */
const LEG_WRITES: Record<Provider, (acts: ReturnType<typeof proxyActivities<Activities>>, ref: QuoteRef) => Promise<{ externalId: string; amountCents: number | null }>> = {
  PAYMENTS: async (acts, ref) => {
    const invoice = await acts.writePaymentsInvoice(ref);
    return { externalId: invoice.invoiceId, amountCents: invoice.totalCents };
  },
  ACCOUNTING: async (acts, ref) => {
    const invoice = await acts.writeAccountingInvoice(ref);
    return { externalId: invoice.invoiceId, amountCents: invoice.totalCents };
  },
  CRM: async (acts, ref) => ({ externalId: (await acts.upsertCrmOpportunity(ref)).opportunityId, amountCents: null }),
};

/** One leg: the provider write, then its sync record, SUCCEEDED or FAILED with the last error. */
async function runLeg(provider: Provider, input: QuoteApprovalInput, timing: Timing): Promise<LegOutcome> {
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const providerCalls = proxyActivities<Activities>(providerLegProfile(timing));
  const ref = { organizationId: input.organizationId, quoteId: input.quoteId };
  try {
    const written = await LEG_WRITES[provider](providerCalls, ref);
    await db.recordSyncSucceeded({ ...ref, provider, externalId: written.externalId, amountCents: written.amountCents });
    return { provider, status: 'SUCCEEDED', externalId: written.externalId };
  } catch (error) {
    const message = failureMessage(error);
    await db.recordSyncFailed({ ...ref, provider, lastError: message });
    return { provider, status: 'FAILED', error: message };
  }
}

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) return error.cause.message;
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
