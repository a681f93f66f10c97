import type { ErrorCode, ErrorKind } from './errors';

/**
 * Section 7 and D5 as a table: how each kind of domain error is answered. The one error handler
 * reads nothing else; test/unit/error-kinds.test.ts walks every row.
 */
export const ERROR_RESPONSES: Readonly<Record<ErrorKind, { status: number; code: ErrorCode }>> = {
  bad_request: { status: 400, code: 'bad_request' },
  payload_too_large: { status: 413, code: 'bad_request' },
  unsupported_encoding: { status: 415, code: 'bad_request' },
  validation_failed: { status: 422, code: 'validation_failed' },
  unauthenticated: { status: 401, code: 'unauthenticated' },
  invalid_credentials: { status: 401, code: 'invalid_credentials' },
  forbidden: { status: 403, code: 'forbidden' },
  not_found: { status: 404, code: 'not_found' },
  conflict: { status: 409, code: 'conflict' },
  rate_limited: { status: 429, code: 'rate_limited' },
  // D5: 502 and 503 carry provider_error.
  provider_failed: { status: 502, code: 'provider_error' },
  provider_unavailable: { status: 503, code: 'provider_error' },
  internal: { status: 500, code: 'internal_error' },
  // D10's kinds answered in the section 7 envelope should one reach /api/ (the /v1 handler answers them as problems).
  job_not_found: { status: 404, code: 'not_found' },
  invalid_transition: { status: 409, code: 'conflict' },
  idempotency_key_reused: { status: 422, code: 'validation_failed' },
  idempotency_key_in_use: { status: 409, code: 'conflict' },
};
