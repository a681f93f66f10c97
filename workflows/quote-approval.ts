import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  defineQuery,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
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
  RetryLegUpdate,
  Timing,
} from '../infra/temporal/contracts';
import type { SEARCH_ATTRIBUTES } from '../infra/temporal/search-attributes';
import { databaseProfile, localDatabaseProfile, providerLegProfile, REPAIR_WINDOW_MS } from './activity-profiles';

/** The contract's update and query (their names are part of the contract's types). */
const retryLeg: RetryLegUpdate = defineUpdate<LegOutcome, [RetryLegInput], 'retryLeg'>('retryLeg');
const approvalProgress: ApprovalProgressQuery = defineQuery<ApprovalProgress, [], 'approvalProgress'>('approvalProgress');
const APPROVAL_STATE: keyof typeof SEARCH_ATTRIBUTES = 'ApprovalState';
const ApprovalStateKey = defineSearchAttributeKey(APPROVAL_STATE, SearchAttributeType.KEYWORD);
const LEG_PROVIDERS: readonly LegProvider[] = ['PAYMENTS', 'ACCOUNTING', 'CRM'];
/**
 * The lean approval: the plan and a failed leg's sync row are local activities, and each
 * leg's one activity records its own SUCCEEDED row. Runs started before it keep their shape.
 */
export const LEAN_APPROVAL_PATCH = 'lean-approval-legs';

/**
 * Sections 3.1 and 3.4, D7: after a quote is approved, each provider leg runs on its own (one
 * failing does not hold back the others). A leg whose provider is not connected is recorded as
 * SKIPPED and calls nothing. Id: `quote-approval-<quoteId>` (one per quote, ever).
 */
export const quoteApproval: QuoteApprovalWorkflow = async function quoteApproval(input) {
  const timing = input.timing ?? {};
  const db = proxyActivities<Activities>(databaseProfile(timing));
  // D19: runs started before the repair existed end when their legs end, as they did.
  if (!patched('d19-await-repair')) {
    const plan = await db.planApprovalLegs({ organizationId: input.organizationId, quoteId: input.quoteId });
    const legs: Promise<LegOutcome>[] = plan.skipped.map((provider) => Promise.resolve<LegOutcome>({ provider, status: 'SKIPPED' }));
    for (const provider of plan.run) legs.push(runLeg(provider, input, timing, false));
    return { legs: await Promise.all(legs) };
  }
  // Asked once, before the first command: asked again after a replay has caught up, it would say yes.
  const lean = patched(LEAN_APPROVAL_PATCH);
  const repairs = new LegRepairs(input, timing, lean);
  repairs.listen();
  const planner = lean ? proxyLocalActivities<Activities>(localDatabaseProfile(timing)) : db;
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
    private readonly lean: boolean,
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
    upsertSearchAttributes([{ key: ApprovalStateKey, value: state }]);
  }

  private start(provider: LegProvider): Promise<LegOutcome> {
    const leg = runLeg(provider, this.input, this.timing, this.lean).then((outcome) => {
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
  return runLeg('PAYMENTS', input, input.timing ?? {}, patched(LEAN_APPROVAL_PATCH));
};

type Provider = LegProvider;

/** Each provider's write (one activity, every call keyed by quote and step), as a leg sees it. */
const LEG_WRITES: Record<Provider, (acts: ReturnType<typeof proxyActivities<Activities>>, ref: LegInput) => Promise<{ externalId: string; amountCents: number | null }>> = {
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

/**
 * One leg: the provider write and its sync record, SUCCEEDED or FAILED with the last error. Lean:
 * one activity writes and records its success; a failure is recorded by a local
 * activity. Before: the write, then an activity for the record either way.
 */
async function runLeg(provider: Provider, input: QuoteApprovalInput, timing: Timing, lean: boolean): Promise<LegOutcome> {
  const records = lean ? proxyLocalActivities<Activities>(localDatabaseProfile(timing)) : proxyActivities<Activities>(databaseProfile(timing));
  const providerCalls = proxyActivities<Activities>(providerLegProfile(timing));
  const ref = { organizationId: input.organizationId, quoteId: input.quoteId };
  try {
    const written = await LEG_WRITES[provider](providerCalls, lean ? { ...ref, recordSync: true } : ref);
    if (!lean) await records.recordSyncSucceeded({ ...ref, provider, externalId: written.externalId, amountCents: written.amountCents });
    return { provider, status: 'SUCCEEDED', externalId: written.externalId };
  } catch (error) {
    const message = failureMessage(error);
    await records.recordSyncFailed({ ...ref, provider, lastError: message });
    return { provider, status: 'FAILED', error: message };
  }
}

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) return error.cause.message;
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
