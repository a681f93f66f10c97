import { defineUpdate, upsertSearchAttributes } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { ApprovalState, LegOutcome, RetryLegInput, RetryLegUpdate } from '../infra/temporal/contracts';
import type { SEARCH_ATTRIBUTES } from '../infra/temporal/search-attributes';

/**
 * D19, as every workflow that makes a provider call moving money takes it: the `retryLeg` update
 * (its name is part of the contract's type) and the `ApprovalState` search attribute an operator
 * finds waiting runs by. The approval and a change order's invoice both use these.
 */
export const retryLeg: RetryLegUpdate = defineUpdate<LegOutcome, [RetryLegInput], 'retryLeg'>('retryLeg');

const APPROVAL_STATE: keyof typeof SEARCH_ATTRIBUTES = 'ApprovalState';
const ApprovalStateKey = defineSearchAttributeKey(APPROVAL_STATE, SearchAttributeType.KEYWORD);

/** Records where a repairable workflow stands, for `ApprovalState = 'awaiting_repair'` queries. */
export function recordApprovalState(state: ApprovalState): void {
  upsertSearchAttributes([{ key: ApprovalStateKey, value: state }]);
}
