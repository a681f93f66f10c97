/**
 * The `type` of every non-retryable ApplicationFailure our activities throw, in one place. The
 * activities throw them; workflows/activity-profiles.ts lists the non-retryable ones by these
 * literal types (`import type`), so a misspelt name fails to compile instead of being retried.
 */
export const FAILURE_TYPES = {
  /** The provider answered that the request itself is wrong (4xx other than 408/429). */
  providerRefused: 'ProviderRefused',
  /** Network errors, timeouts, 5xx, 429: retried with backoff. */
  providerUnavailable: 'ProviderUnavailable',
  providerNotConfigured: 'ProviderNotConfigured',
  providerNotConnected: 'ProviderNotConnected',
  /** The provider refused the refresh token: the connection is EXPIRED. */
  refreshRefused: 'RefreshRefused',
  connectionExpired: 'ConnectionExpired',
  credentialsUnreadable: 'CredentialsUnreadable',
  quoteNotApproved: 'QuoteNotApproved',
  /** D18: a provider page that is not what the provider documents (final for that sync run). */
  providerMalformed: 'ProviderMalformed',
  /** D23: the travel-time source (OSRM) failed or answered garbage: the plan fails naming it, nothing applied. */
  travelTimesUnavailable: 'TravelTimesUnavailable',
  /**
   * D23: the route solver (a VROOM server) failed: unreachable, no answer within
   * ROUTING_VROOM_TIMEOUT_MS, or an answer that is not a VROOM solution. The plan fails naming it,
   * nothing applied, as when the travel-time source fails.
   */
  routeSolverFailed: 'RouteSolverFailed',
  /** D23: the day cannot be routed as it stands (no depot): final, answered as the problem it is. */
  routingRefused: 'RoutingRefused',
} as const;
export type FailureType = (typeof FAILURE_TYPES)[keyof typeof FAILURE_TYPES];
