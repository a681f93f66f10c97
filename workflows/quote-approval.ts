import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  defineQuery,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { LegInput } from '../activities/approval';
import type {
  ApprovalProgress,
  ApprovalProgressQuery,
  ApprovalState,
  LegOutcome,
  LegProvider,
  QuoteApprovalInput,
  QuoteApprovalWorkflow,
  QuoteInvoiceWorkflow,
  RetryLegInput,
  Timing,
} from '../infra/temporal/contracts';
import { localDatabaseProfile, providerLegProfile, REPAIR_WINDOW_MS } from './activity-profiles';
import { recordApprovalState, retryLeg } from './repair-signals';

/** The contract's query (its name is part of the contract's type). */
const approvalProgress: ApprovalProgressQuery = defineQuery<ApprovalProgress, [], 'approvalProgress'>('approvalProgress');
const LEG_PROVIDERS: readonly LegProvider[] = ['PAYMENTS', 'ACCOUNTING', 'CRM'];

/**
 * Sections 3.1 and 3.4, D7: after a quote is approved, each provider leg runs on its own (one
 * failing does not hold back the others). A leg whose provider is not connected is recorded as
 * SKIPPED and calls nothing. Id: `quote-approval-<quoteId>` (one per quote, ever).
 */
export const quoteApproval: QuoteApprovalWorkflow = async function quoteApproval(input) {
  const timing = input.timing ?? {};
  const repairs = new LegRepairs(input, timing);
  repairs.listen();
  // The plan is a short database read: a local activity, no round trip through the server.
  const planner = proxyLocalActivities<Activities>(localDatabaseProfile(timing));
  const plan = await planner.planApprovalLegs({ organizationId: input.organizationId, quoteId: input.quoteId });
  return repairs.run(plan);
};

/**
 * D19: each leg runs once; while any has FAILED, the approval records `ApprovalState` =
 * `awaiting_repair` and waits, up to 30 days, for `retryLeg` updates. An update runs its leg again
 * (same activity, same idempotency keys) and answers the outcome; a leg that succeeded or was
 * skipped answers that and calls nothing; a retry while the leg runs joins that run. The handlers
 * are set before the plan, so a retry that arrives while the legs are being planned waits for it.
 */
class LegRepairs {
  private readonly outcomes = new Map<LegProvider, LegOutcome>();
  private readonly running = new Map<LegProvider, Promise<LegOutcome>>();
  private planned = false;
  private state: ApprovalState = 'running';

  constructor(
    private readonly input: QuoteApprovalInput,
    private readonly timing: Timing,
  ) {}

  listen(): void {
    setHandler(approvalProgress, () => ({ state: this.state, legs: this.ordered() }));
    setHandler(
      retryLeg,
      async ({ provider }) => {
        await condition(() => this.planned);
        const inFlight = this.running.get(provider);
        if (inFlight) return inFlight;
        const known = this.outcomes.get(provider)!;
        return known.status === 'FAILED' ? this.start(provider) : known;
      },
      {
        validator: (arg: RetryLegInput) => {
          if (!arg || !LEG_PROVIDERS.includes(arg.provider)) throw new Error(`provider must be one of ${LEG_PROVIDERS.join(', ')}`);
          if (this.state === 'completed' || this.state === 'repair_window_closed') throw new Error('the approval is no longer waiting for repairs');
        },
      },
    );
  }

  async run(plan: { run: LegProvider[]; skipped: LegProvider[] }): Promise<{ legs: LegOutcome[] }> {
    for (const provider of plan.skipped) this.outcomes.set(provider, { provider, status: 'SKIPPED' });
    // Every planned leg is running (or skipped) before a waiting retry looks.
    const first = plan.run.map((provider) => this.start(provider));
    this.planned = true;
    await Promise.all(first);
    const settled = () => this.running.size === 0 && this.ordered().every((o) => o.status !== 'FAILED');
    if (settled()) {
      this.state = 'completed';
      return { legs: this.ordered() };
    }
    this.setState('awaiting_repair');
    const repaired = await condition(settled, REPAIR_WINDOW_MS);
    // A retry that started just as the window closed still finishes and answers its caller.
    await condition(() => this.running.size === 0);
    this.setState(repaired ? 'completed' : 'repair_window_closed');
    return { legs: this.ordered() };
  }

  private setState(state: ApprovalState): void {
    this.state = state;
    recordApprovalState(state);
  }

  private start(provider: LegProvider): Promise<LegOutcome> {
    const leg = runLeg(provider, this.input, this.timing).then((outcome) => {
      this.outcomes.set(provider, outcome);
      this.running.delete(provider);
      return outcome;
    });
    this.running.set(provider, leg);
    return leg;
  }

  private ordered(): LegOutcome[] {
    return LEG_PROVIDERS.filter((p) => this.outcomes.has(p)).map((p) => this.outcomes.get(p)!);
  }
}

/**
 * The payments leg alone: `POST /quotes/{id}/invoice` runs this as its own workflow
 * (`quote-invoice-<quoteId>-<attempt>`), never the other legs and never a second event.
 */
export const quoteInvoice: QuoteInvoiceWorkflow = async function quoteInvoice(input) {
  return runLeg('PAYMENTS', input, input.timing ?? {});
};

type Provider = LegProvider;

/** Each provider's write (one activity, every call keyed by quote and step, recording its own success), as a leg sees it: the external id. */
const LEG_WRITES: Record<Provider, (acts: ReturnType<typeof proxyActivities<Activities>>, ref: LegInput) => Promise<string>> = {
  PAYMENTS: async (acts, ref) => (await acts.writePaymentsInvoice(ref)).invoiceId,
  ACCOUNTING: async (acts, ref) => (await acts.writeAccountingInvoice(ref)).invoiceId,
  CRM: async (acts, ref) => (await acts.upsertCrmOpportunity(ref)).opportunityId,
};

/**
 * One leg: the provider write and its sync record, SUCCEEDED or FAILED with the last error. One
 * activity writes and records its success; a failure is recorded by a local activity.
 */
async function runLeg(provider: Provider, input: QuoteApprovalInput, timing: Timing): Promise<LegOutcome> {
  const records = proxyLocalActivities<Activities>(localDatabaseProfile(timing));
  const providerCalls = proxyActivities<Activities>(providerLegProfile(timing));
  const ref = { organizationId: input.organizationId, quoteId: input.quoteId };
  try {
    const externalId = await LEG_WRITES[provider](providerCalls, ref);
    // D24: a customer who accepted on the quote's page is emailed the invoice's hosted link. Patched
    // in, so histories recorded before it replay as they ran.
    if (provider === 'PAYMENTS' && patched(CUSTOMER_INVOICE_EMAIL)) await emailInvoice(providerCalls, { ...ref, invoiceId: externalId });
    return { provider, status: 'SUCCEEDED', externalId };
  } catch (error) {
    const message = failureMessage(error);
    await records.recordSyncFailed({ ...ref, provider, lastError: message });
    return { provider, status: 'FAILED', error: message };
  }
}

const CUSTOMER_INVOICE_EMAIL = 'customer-invoice-email';

/** The invoice email is a courtesy of the leg, never its outcome: once its retries run out, the leg still SUCCEEDED. */
async function emailInvoice(acts: ReturnType<typeof proxyActivities<Activities>>, input: { organizationId: string; quoteId: string; invoiceId: string }): Promise<void> {
  try {
    await acts.emailInvoiceToCustomer(input);
  } catch {
    // The worker logged each failed attempt; the invoice stands and GET /quotes/{id}/invoice shows its link.
  }
}

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) return error.cause.message;
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
