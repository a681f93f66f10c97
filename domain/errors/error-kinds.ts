/**
 * Every kind of domain error and how each interface answers it, one row per kind: the status
 * (section 7; the same under /v1/, D10), the section 7 envelope code (D5 for 502 and 503), the
 * D10 problem type with a title that does not change from one occurrence to the next (RFC 9457
 * section 3.1.3), and the GraphQL `extensions.code` (D17, docs/graphql.md). The Express error
 * handler, the GraphQL error mask and the OpenAPI examples read this table and nothing else;
 * test/unit/error-renderings.test.ts walks it against the specification.
 */

/** Section 7: the envelope's `error.code`, the value clients branch on. */
export const ERROR_CODES = [
  'bad_request', 'validation_failed', 'unauthenticated', 'invalid_credentials', 'forbidden',
  'not_found', 'conflict', 'rate_limited', 'provider_error', 'internal_error',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** D10: the `type` of a problem under /v1/. */
export const PROBLEM_TYPES = [
  'unauthenticated', 'forbidden', 'job-not-found', 'not-found', 'invalid-transition', 'validation-failed',
  'conflict', 'rate-limited', 'idempotency-key-reused', 'idempotency-key-in-use', 'internal-error',
] as const;
export type ProblemType = (typeof PROBLEM_TYPES)[number];

export interface ErrorRendering {
  status: number;
  code: ErrorCode;
  problem: { type: ProblemType; title: string };
  graphql: string;
}

/**
 * The general kind of each status comes before the kinds that narrow it (`not_found` before
 * `job_not_found`): documentation examples show the first kind of their status.
 *
 * D10 has no slug for a malformed body or a provider failure: a body that is not JSON is a
 * validation failure of the body, and the provider errors are `internal-error` with their own
 * status. The D10 kinds that /api/ never raises still have their section 7 answer.
 */
export const ERROR_RENDERINGS = {
  bad_request: { status: 400, code: 'bad_request', problem: { type: 'validation-failed', title: 'The request is malformed.' }, graphql: 'BAD_USER_INPUT' },
  payload_too_large: { status: 413, code: 'bad_request', problem: { type: 'validation-failed', title: 'The request body is too large.' }, graphql: 'REQUEST_TOO_LARGE' },
  unsupported_encoding: { status: 415, code: 'bad_request', problem: { type: 'validation-failed', title: 'The request body encoding is not supported.' }, graphql: 'BAD_REQUEST' },
  validation_failed: { status: 422, code: 'validation_failed', problem: { type: 'validation-failed', title: 'The request did not pass validation.' }, graphql: 'BAD_USER_INPUT' },
  unauthenticated: { status: 401, code: 'unauthenticated', problem: { type: 'unauthenticated', title: 'A valid bearer token is required.' }, graphql: 'UNAUTHENTICATED' },
  invalid_credentials: { status: 401, code: 'invalid_credentials', problem: { type: 'unauthenticated', title: 'A valid bearer token is required.' }, graphql: 'UNAUTHENTICATED' },
  forbidden: { status: 403, code: 'forbidden', problem: { type: 'forbidden', title: 'Your role does not allow this.' }, graphql: 'FORBIDDEN' },
  not_found: { status: 404, code: 'not_found', problem: { type: 'not-found', title: 'Not found.' }, graphql: 'NOT_FOUND' },
  conflict: { status: 409, code: 'conflict', problem: { type: 'conflict', title: 'The request conflicts with the current state.' }, graphql: 'CONFLICT' },
  rate_limited: { status: 429, code: 'rate_limited', problem: { type: 'rate-limited', title: 'Too many requests.' }, graphql: 'THROTTLED' },
  // D5: 502 and 503 carry provider_error.
  provider_failed: { status: 502, code: 'provider_error', problem: { type: 'internal-error', title: 'A provider answered with an error.' }, graphql: 'PROVIDER_ERROR' },
  provider_unavailable: { status: 503, code: 'provider_error', problem: { type: 'internal-error', title: 'A provider is unavailable.' }, graphql: 'PROVIDER_ERROR' },
  // The service's own database is unreachable: 503 with Retry-After, recovering by itself when it returns.
  service_unavailable: { status: 503, code: 'provider_error', problem: { type: 'internal-error', title: 'The service is temporarily unavailable.' }, graphql: 'SERVICE_UNAVAILABLE' },
  internal: { status: 500, code: 'internal_error', problem: { type: 'internal-error', title: 'Internal server error.' }, graphql: 'INTERNAL_SERVER_ERROR' },
  job_not_found: { status: 404, code: 'not_found', problem: { type: 'job-not-found', title: 'No such job.' }, graphql: 'NOT_FOUND' },
  invalid_transition: { status: 409, code: 'conflict', problem: { type: 'invalid-transition', title: 'The job cannot move to that status.' }, graphql: 'INVALID_TRANSITION' },
  idempotency_key_reused: { status: 422, code: 'validation_failed', problem: { type: 'idempotency-key-reused', title: 'The Idempotency-Key was used with another body.' }, graphql: 'IDEMPOTENCY_KEY_REUSED' },
  idempotency_key_in_use: { status: 409, code: 'conflict', problem: { type: 'idempotency-key-in-use', title: 'The Idempotency-Key is in use.' }, graphql: 'IDEMPOTENCY_KEY_IN_USE' },
} as const satisfies Record<string, ErrorRendering>;

export type ErrorKind = keyof typeof ERROR_RENDERINGS;
export const ERROR_KINDS = Object.keys(ERROR_RENDERINGS) as ErrorKind[];

/** The general kind answered with `status`, or undefined when no kind answers it. */
export function kindOfStatus(status: number): ErrorKind | undefined {
  return ERROR_KINDS.find((kind) => ERROR_RENDERINGS[kind].status === status);
}
