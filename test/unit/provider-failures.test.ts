import { describe, expect, it } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/activity';
import Stripe from 'stripe';
import { classifyQuickBooksError, classifySalesforceError, classifyStripeError, QUICKBOOKS_THROTTLE_WINDOW_SECONDS } from '../../activities/providers/failure';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';

// D7 and D18: a refusal is final, trouble is retried, and a provider's rate limit sets the wait.
const failure = (error: Error) => {
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
};
const oauthError = (code: string) => Object.assign(new Error('Too many requests, please try again later'), { code });

describe('provider failures', () => {
  it.each(['RATE_LIMIT_EXCEEDED', '429'])('QuickBooks %s is retried after its per-minute window (intuit-oauth drops Retry-After)', (code) => {
    const f = failure(classifyQuickBooksError(oauthError(code)));
    expect(f.type).toBe(FAILURE_TYPES.providerUnavailable);
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBe(QUICKBOOKS_THROTTLE_WINDOW_SECONDS * 1000);
  });

  it.each([['503', FAILURE_TYPES.providerUnavailable, false], ['NETWORK_ERROR', FAILURE_TYPES.providerUnavailable, false], ['6240', FAILURE_TYPES.providerRefused, true]] as const)(
    'QuickBooks %s is %s',
    (code, type, nonRetryable) => {
      const f = failure(classifyQuickBooksError(oauthError(code)));
      expect([f.type, f.nonRetryable, f.nextRetryDelay]).toEqual([type, nonRetryable, undefined]);
    },
  );

  it("a payments 429's Retry-After becomes the next retry delay", () => {
    const error = Stripe.errors.StripeError.generate({ type: 'rate_limit_error', message: 'slow down' } as never);
    Object.assign(error, { statusCode: 429, headers: { 'retry-after': '7' } });
    const f = failure(classifyStripeError(error));
    expect([f.type, f.nonRetryable, f.nextRetryDelay]).toEqual([FAILURE_TYPES.providerUnavailable, false, 7000]);
  });

  it('Salesforce REQUEST_LIMIT_EXCEEDED is retried, a field error is refused', () => {
    expect(failure(classifySalesforceError(Object.assign(new Error('limit'), { errorCode: 'REQUEST_LIMIT_EXCEEDED' }))).nonRetryable).toBe(false);
    expect(failure(classifySalesforceError(Object.assign(new Error('bad'), { errorCode: 'INVALID_FIELD' }))).nonRetryable).toBe(true);
  });
});
