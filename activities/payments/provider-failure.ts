import { ApplicationFailure } from '@temporalio/activity';
import Stripe from 'stripe';

/**
 * Turns a payments-provider error into what the retry policy needs: refusals (4xx other than
 * 408 and 429) are non-retryable `ProviderRefused`; 408, 429, 5xx and network trouble are thrown
 * as retryable, a 429's Retry-After becoming the next retry delay.
 */
export function classifyStripeError(error: unknown): Error {
  if (!(error instanceof Stripe.errors.StripeError)) return error instanceof Error ? error : new Error(String(error));
  const status = error.statusCode;
  const detail = `${error.type}${error.code ? ` (${error.code})` : ''}: ${error.message}`;
  if (status === 429) {
    const retryAfter = Number(error.headers?.['retry-after']);
    return ApplicationFailure.create({
      message: `payments provider rate-limited the call: ${detail}`,
      type: 'ProviderThrottled',
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { nextRetryDelay: retryAfter * 1000 } : {}),
    });
  }
  if (status !== undefined && status >= 400 && status < 500 && status !== 408) {
    return ApplicationFailure.create({ message: `payments provider refused the call (${status}) ${detail}`, type: 'ProviderRefused', nonRetryable: true });
  }
  return ApplicationFailure.create({ message: `payments provider unavailable${status ? ` (${status})` : ''}: ${detail}`, type: 'ProviderUnavailable' });
}
