import { ActivityFailure, ApplicationFailure, condition, setHandler, type QueryDefinition } from '@temporalio/workflow';
import type { ApprovalState, ChangeOrderInvoiceOutcome, ChangeOrderInvoiceProgress, LegOutcome, RetryLegInput } from '../infra/temporal/contracts';
import { REPAIR_WINDOW_MS } from './activity-profiles';
import { recordApprovalState, retryLeg } from './repair-signals';

type Outcome = ChangeOrderInvoiceOutcome;

/**
 * D19 for a workflow whose whole work is one payments call that moves money (a change order's
 * invoice or credit note, D12; a completed job's invoice, issue 30): `call` writes and records
 * the outcome. A call that FAILED does not end the workflow: it records `ApprovalState` =
 * `awaiting_repair` and waits, up to the repair window, for `retryLeg` (provider PAYMENTS), which
 * runs the same call again with the same idempotency keys and answers its outcome; a retry of a
 * call that succeeded answers that and calls nothing; a retry while the call runs joins it.
 */
export async function repairableCall(options: {
  progress: QueryDefinition<ChangeOrderInvoiceProgress, [], string>;
  /** Names the call in the validator's refusals ("change order", "job"). */
  what: string;
  call: () => Promise<Outcome>;
}): Promise<Outcome> {
  let outcome: Outcome | null = null;
  let running: Promise<Outcome> | null = null;
  let state: ApprovalState = 'running';

  const start = (): Promise<Outcome> => {
    const attempt = options.call().then((result) => {
      outcome = result;
      running = null;
      return result;
    });
    running = attempt;
    return attempt;
  };
  const asLeg = (result: Outcome): LegOutcome => ({ provider: 'PAYMENTS', ...result });
  const setState = (next: ApprovalState) => {
    state = next;
    recordApprovalState(next);
  };

  setHandler(options.progress, () => ({ state, outcome }));
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
        if (!arg || arg.provider !== 'PAYMENTS') throw new Error(`a ${options.what} has one call to repair: provider must be PAYMENTS`);
        if (state === 'completed' || state === 'repair_window_closed') throw new Error(`the ${options.what} invoice is no longer waiting for repairs`);
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
}

/** The message of an activity's failure, as the sync log records it. */
export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof ApplicationFailure || error instanceof Error ? error.message : String(error);
}
