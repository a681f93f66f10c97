import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { databaseProfile, paymentsProfile, type Timing } from './activity-profiles';

export interface QuoteApprovalInput {
  organizationId: string;
  quoteId: string;
  timing?: Timing;
}

export type LegOutcome = { provider: 'PAYMENTS' | 'ACCOUNTING' | 'CRM'; status: 'SUCCEEDED' | 'FAILED' | 'SKIPPED'; externalId?: string | null; error?: string };

/**
 * Sections 3.1 and 3.4, D7: after a quote is approved, each provider leg runs on its own (one
 * failing does not hold back the others). A leg whose provider is not connected is recorded as
 * SKIPPED and calls nothing. Id: `quote-approval-<quoteId>` (one per quote, ever).
 */
export async function quoteApproval(input: QuoteApprovalInput): Promise<{ legs: LegOutcome[] }> {
  const timing = input.timing ?? {};
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const plan = await db.planApprovalLegs({ organizationId: input.organizationId, quoteId: input.quoteId });
  const legs: Promise<LegOutcome>[] = plan.skipped.map((provider) => Promise.resolve<LegOutcome>({ provider, status: 'SKIPPED' }));
  if (plan.run.includes('PAYMENTS')) legs.push(paymentsLeg(input, timing));
  if (plan.run.includes('ACCOUNTING')) legs.push(accountingLeg(input, timing));
  if (plan.run.includes('CRM')) legs.push(crmLeg(input, timing));
  return { legs: await Promise.all(legs) };
}

/**
 * The payments leg alone: `POST /quotes/{id}/invoice` runs this as its own workflow
 * (`quote-invoice-<quoteId>-<attempt>`), never the other legs and never a second event.
 */
export async function quoteInvoice(input: QuoteApprovalInput): Promise<LegOutcome> {
  return paymentsLeg(input, input.timing ?? {});
}

async function paymentsLeg(input: QuoteApprovalInput, timing: Timing): Promise<LegOutcome> {
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const payments = proxyActivities<Activities>(paymentsProfile(timing));
  const ref = { organizationId: input.organizationId, quoteId: input.quoteId };
  try {
    const invoice = await payments.writePaymentsInvoice(ref);
    await db.recordSyncSucceeded({ ...ref, provider: 'PAYMENTS', externalId: invoice.invoiceId, amountCents: invoice.totalCents });
    return { provider: 'PAYMENTS', status: 'SUCCEEDED', externalId: invoice.invoiceId };
  } catch (error) {
    const message = failureMessage(error);
    await db.recordSyncFailed({ ...ref, provider: 'PAYMENTS', lastError: message });
    return { provider: 'PAYMENTS', status: 'FAILED', error: message };
  }
}

async function accountingLeg(input: QuoteApprovalInput, timing: Timing): Promise<LegOutcome> {
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const accounting = proxyActivities<Activities>(paymentsProfile(timing));
  const ref = { organizationId: input.organizationId, quoteId: input.quoteId };
  try {
    const invoice = await accounting.writeAccountingInvoice(ref);
    await db.recordSyncSucceeded({ ...ref, provider: 'ACCOUNTING', externalId: invoice.invoiceId, amountCents: invoice.totalCents });
    return { provider: 'ACCOUNTING', status: 'SUCCEEDED', externalId: invoice.invoiceId };
  } catch (error) {
    const message = failureMessage(error);
    await db.recordSyncFailed({ ...ref, provider: 'ACCOUNTING', lastError: message });
    return { provider: 'ACCOUNTING', status: 'FAILED', error: message };
  }
}

async function crmLeg(input: QuoteApprovalInput, timing: Timing): Promise<LegOutcome> {
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const crm = proxyActivities<Activities>(paymentsProfile(timing));
  const ref = { organizationId: input.organizationId, quoteId: input.quoteId };
  try {
    const opportunity = await crm.upsertCrmOpportunity(ref);
    await db.recordSyncSucceeded({ ...ref, provider: 'CRM', externalId: opportunity.opportunityId, amountCents: null });
    return { provider: 'CRM', status: 'SUCCEEDED', externalId: opportunity.opportunityId };
  } catch (error) {
    const message = failureMessage(error);
    await db.recordSyncFailed({ ...ref, provider: 'CRM', lastError: message });
    return { provider: 'CRM', status: 'FAILED', error: message };
  }
}

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) return error.cause.message;
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
