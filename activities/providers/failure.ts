import { ApplicationFailure } from '@temporalio/activity';
import Stripe from 'stripe';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';

/**
 * One rule for every provider (D7): a refusal is final, trouble is retried. Refusals become
 * non-retryable `ProviderRefused`; 408, 429, 5xx and network errors are thrown as retryable.
 */
export function refused(provider: string, detail: string): ApplicationFailure {
  return ApplicationFailure.create({ message: `${provider} provider refused the call: ${detail}`, type: FAILURE_TYPES.providerRefused, nonRetryable: true });
}

/** `retryAfterSeconds`: what a 429 asked for becomes the next retry delay. */
export function unavailable(provider: string, detail: string, retryAfterSeconds?: number): ApplicationFailure {
  return ApplicationFailure.create({
    message: `${provider} provider unavailable: ${detail}`,
    type: FAILURE_TYPES.providerUnavailable,
    ...(retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0 ? { nextRetryDelay: retryAfterSeconds * 1000 } : {}),
  });
}

/** stripe-node's typed errors carry the HTTP status; anything else is network trouble. */
export function classifyStripeError(error: unknown): Error {
  if (error instanceof ApplicationFailure) return error;
  if (!(error instanceof Stripe.errors.StripeError)) return unavailable('payments', error instanceof Error ? error.message : String(error));
  const status = error.statusCode;
  const detail = `${status ? `${status} ` : ''}${error.type}${error.code ? ` (${error.code})` : ''}: ${error.message}`;
  if (status === 429) return unavailable('payments', detail, Number(error.headers?.['retry-after']));
  if (status !== undefined && status >= 400 && status < 500 && status !== 408) return refused('payments', detail);
  return unavailable('payments', detail);
}

/**
 * QuickBooks throttles per company and minute (500 requests; D18). intuit-oauth turns its 429 into
 * RATE_LIMIT_EXCEEDED and drops the response's headers, Retry-After among them, so the retry
 * waits out the window the limit is counted in.
 */
export const QUICKBOOKS_THROTTLE_WINDOW_SECONDS = 60;

/** intuit-oauth's OAuthError: `code` is the HTTP status, a QBO fault code, or a word. */
export function classifyQuickBooksError(error: unknown): Error {
  if (error instanceof ApplicationFailure) return error;
  const code = String((error as { code?: unknown })?.code ?? '');
  const message = `${code ? `${code}: ` : ''}${(error as Error)?.message ?? String(error)}`;
  if (code === 'RATE_LIMIT_EXCEEDED' || code === '429') return unavailable('accounting', message, QUICKBOOKS_THROTTLE_WINDOW_SECONDS);
  if (code === '408' || code === 'NETWORK_ERROR' || code === 'TIMEOUT' || /^5\d\d$/.test(code) || code === '') return unavailable('accounting', message);
  return refused('accounting', message);
}

/**
 * jsforce errors from Salesforce carry its errorCode (or ERROR_HTTP_<status>); a network failure
 * (a lost answer, a reset) carries none and is retried.
 */
export function classifySalesforceError(error: unknown): Error {
  if (error instanceof ApplicationFailure) return error;
  const errorCode = (error as { errorCode?: unknown })?.errorCode;
  const message = `${errorCode ? `${String(errorCode)}: ` : ''}${(error as Error)?.message ?? String(error)}`;
  if (typeof errorCode !== 'string' || /^ERROR_HTTP_(5\d\d|408|429)$/.test(errorCode) || ['REQUEST_LIMIT_EXCEEDED', 'SERVER_UNAVAILABLE', 'UNABLE_TO_LOCK_ROW'].includes(errorCode)) {
    return unavailable('CRM', message);
  }
  return refused('CRM', message);
}
