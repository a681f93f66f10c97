import { WorkflowIdReusePolicy, type TypedSearchAttributes } from '@temporalio/common';
import type { EventEnvelope } from '../events/catalogue';
import { OrganizationIdKey, QuoteIdKey, QuoteNumberKey } from '../../workflows/search-attributes';
import type { Timing } from '../../workflows/activity-profiles';

export interface WorkflowStart {
  workflowType: string;
  workflowId: string;
  args: [Record<string, unknown>];
  searchAttributes: ConstructorParameters<typeof TypedSearchAttributes>[0];
  idReusePolicy: WorkflowIdReusePolicy;
}

export const approvalWorkflowId = (quoteId: string) => `quote-approval-${quoteId}`;

/**
 * Which workflows an outbox event starts. Workflow ids are business keys, so a second start of
 * the same event (the API's fast path and the relay both trying) lands on the same run.
 */
export function workflowsForEvent(envelope: EventEnvelope, timing: Timing): WorkflowStart[] {
  switch (envelope.event) {
    case 'quote.approved': {
      const data = envelope.data as { quote_id: string; quote_number: number };
      return [
        {
          workflowType: 'quoteApproval',
          workflowId: approvalWorkflowId(data.quote_id),
          args: [{ organizationId: envelope.organization_id, quoteId: data.quote_id, timing }],
          searchAttributes: [
            { key: OrganizationIdKey, value: envelope.organization_id },
            { key: QuoteIdKey, value: data.quote_id },
            { key: QuoteNumberKey, value: data.quote_number },
          ],
          // One approval fan-out per quote, ever: a finished run is never started again.
          idReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        },
      ];
    }
    default:
      return [];
  }
}
