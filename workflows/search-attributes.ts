/**
 * Custom search attributes every workflow of ours may carry, so an operator can find all the
 * workflows of one quote or one tenant in the Temporal UI or with `temporal workflow list --query`.
 * Registered on the development server at start-up (docker-compose registers them in production).
 */
export const SEARCH_ATTRIBUTES = {
  OrganizationId: 'Keyword',
  QuoteNumber: 'Int',
  QuoteId: 'Keyword',
  Provider: 'Keyword',
} as const;
