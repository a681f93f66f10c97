import {
  workflowInfo,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/**
 * The worker's own workflow interceptors (worker/create-worker.ts loads this module beside the
 * workflows; deterministic code only, like them): every workflow log line (the SDK's and ours)
 * carries the business ids of the workflow's input and search attributes, and the id of the API
 * request that started it (memo).
 */

const SEARCH_ATTRIBUTE_FIELDS: Record<string, string> = { OrganizationId: 'organization_id', OrganizationSubdomain: 'organization_subdomain', QuoteId: 'quote_id', QuoteNumber: 'quote_number', Provider: 'provider' };
const INPUT_FIELDS: Record<string, string> = { organizationId: 'organization_id', quoteId: 'quote_id', provider: 'provider' };

/** The ids worth a log line: from the input's first argument (one object, as all ours take). */
function inputIds(args: readonly unknown[]): Record<string, unknown> {
  const input = args[0];
  if (typeof input !== 'object' || input === null) return {};
  const ids: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(INPUT_FIELDS)) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'string' || typeof value === 'number') ids[field] = value;
  }
  return ids;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  const ids: Record<string, unknown> = {};

  const inbound: WorkflowInboundCallsInterceptor = {
    async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
      Object.assign(ids, inputIds(input.args));
      return next(input);
    },
  };

  const outbound: WorkflowOutboundCallsInterceptor = {
    getLogAttributes(input, next) {
      const info = workflowInfo();
      const attributes: Record<string, unknown> = {};
      for (const pair of info.typedSearchAttributes.getAll()) {
        const field = SEARCH_ATTRIBUTE_FIELDS[pair.key.name];
        if (field) attributes[field] = pair.value;
      }
      const requestId = info.memo?.request_id;
      if (typeof requestId === 'string') attributes.request_id = requestId;
      return next({ ...attributes, ...ids, ...input });
    },
  };

  return { inbound: [inbound], outbound: [outbound] };
};
