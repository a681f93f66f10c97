import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes every workflow of ours may carry, so an operator can find all the
 * workflows of one quote or one tenant in the Temporal UI or with `temporal workflow list --query`.
 * Registered on the development server at start-up (docker-compose registers them in production).
 */
export const SEARCH_ATTRIBUTES = {
  OrganizationId: 'Keyword',
  // The tenant by the name operators use: every workflow of a tenant carries it (tenant-subdomains.ts).
  OrganizationSubdomain: 'Keyword',
  QuoteNumber: 'Int',
  QuoteId: 'Keyword',
  Provider: 'Keyword',
  // D19: `awaiting_repair` while a failed leg waits for `retryLeg`; then `completed` or `repair_window_closed`.
  ApprovalState: 'Keyword',
} as const;

export const OrganizationIdKey = defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD);
export const OrganizationSubdomainKey = defineSearchAttributeKey('OrganizationSubdomain', SearchAttributeType.KEYWORD);
export const QuoteNumberKey = defineSearchAttributeKey('QuoteNumber', SearchAttributeType.INT);
export const QuoteIdKey = defineSearchAttributeKey('QuoteId', SearchAttributeType.KEYWORD);
export const ProviderKey = defineSearchAttributeKey('Provider', SearchAttributeType.KEYWORD);
export const ApprovalStateKey = defineSearchAttributeKey('ApprovalState', SearchAttributeType.KEYWORD);
