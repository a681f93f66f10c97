import { ActivityFailure, ApplicationFailure, condition, defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type {
  ApprovalState,
  ChangeOrderInvoiceOutcome,
  ChangeOrderInvoiceProgress,
  ChangeOrderInvoiceProgressQuery,
  ChangeOrderInvoiceWorkflow,
  LegOutcome,
  RetryLegInput,
} from '../infra/temporal/contracts';
import { databaseProfile, providerLegProfile, REPAIR_WINDOW_MS } from './activity-profiles';
import { recordApprovalState, retryLeg } from './repair-signals';

const progress: ChangeOrderInvoiceProgressQuery = defineQuery<ChangeOrderInvoiceProgress, [], 'changeOrderInvoiceProgress'>('changeOrderInvoiceProgress');

/**
 * D12: an approved change order on an approved quote is invoiced for its delta (or credited, when
 * it takes work away) with the tax lines of the quote's region (D25): one payments call keyed by
 * the change order, then its sync record. Id: `change-order-invoice-<id>` (one per change order,
 * ever); the quote's own approval and its `quote.approved` are never run again.
 *
 * D19: a call that FAILED does not end the workflow. It records `ApprovalState` =
 * `awaiting_repair` and waits, up to the repair window, for `retryLeg` (provider PAYMENTS), which
 * runs the same call again with the same idempotency keys and answers its outcome; a retry of a
 * call that succeeded answers that and calls nothing; a retry while the call runs joins it.
 */
export const changeOrderInvoice: ChangeOrderInvoiceWorkflow = async function changeOrderInvoice(input) {
  const timing = input.timing ?? {};
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const payments = proxyActivities<Activities>(providerLegProfile(timing));
  const ref = { organizationId: input.organizationId, changeOrderId: input.changeOrderId };
  let outcome: ChangeOrderInvoiceOutcome | null = null;
  let running: Promise<ChangeOrderInvoiceOutcome> | null = null;
  let state: ApprovalState = 'running';

  const call = async (): Promise<ChangeOrderInvoiceOutcome> => {
    try {
      const invoice = await payments.writeChangeOrderInvoice(ref);
      await db.recordChangeOrderInvoice({ ...ref, status: 'SUCCEEDED', externalId: invoice.invoiceId, amountCents: invoice.totalCents });
      return { status: 'SUCCEEDED', externalId: invoice.invoiceId };
    } catch (error) {
      const message = error instanceof ActivityFailure && error.cause ? error.cause.message : error instanceof ApplicationFailure || error instanceof Error ? error.message : String(error);
      await db.recordChangeOrderInvoice({ ...ref, status: 'FAILED', lastError: message });
      return { status: 'FAILED', error: message };
    }
  };
  const start = (): Promise<ChangeOrderInvoiceOutcome> => {
    const attempt = call().then((result) => {
      outcome = result;
      running = null;
      return result;
    });
    running = attempt;
    return attempt;
  };
  const asLeg = (result: ChangeOrderInvoiceOutcome): LegOutcome => ({ provider: 'PAYMENTS', ...result });
  const setState = (next: ApprovalState) => {
    state = next;
    recordApprovalState(next);
  };

  setHandler(progress, () => ({ state, outcome }));
  setHandler(
    retryLeg,
    async () => {
      await condition(() => running !== null || outcome !== null);
      if (running) return asLeg(await running);
      const known = outcome!;
      return asLeg(known.status === 'FAILED' ? await start() : known);
    },
    {
      validator: (arg: RetryLegInput) => {
        if (!arg || arg.provider !== 'PAYMENTS') throw new Error('a change order has one call to repair: provider must be PAYMENTS');
        if (state === 'completed' || state === 'repair_window_closed') throw new Error('the change order invoice is no longer waiting for repairs');
      },
    },
  );

  const first = await start();
  if (first.status === 'SUCCEEDED') {
    state = 'completed';
    return first;
  }
  setState('awaiting_repair');
  const repaired = await condition(() => running === null && outcome?.status === 'SUCCEEDED', REPAIR_WINDOW_MS);
  // A retry that started just as the window closed still finishes and answers its caller.
  await condition(() => running === null);
  setState(repaired ? 'completed' : 'repair_window_closed');
  return outcome!;
};
