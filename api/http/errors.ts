/**
 * Section 7: the one error envelope and its codes. Handlers throw these; api/http/error-handler.ts
 * is the only place that turns them into responses.
 */
export const ERROR_CODES = [
  'bad_request', 'validation_failed', 'unauthenticated', 'invalid_credentials', 'forbidden',
  'not_found', 'conflict', 'rate_limited', 'provider_error', 'internal_error',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ApiError(400, 'bad_request', message);
export const unauthenticated = (message = 'A valid bearer token is required.') => new ApiError(401, 'unauthenticated', message);
export const invalidCredentials = () => new ApiError(401, 'invalid_credentials', 'The workspace, email or password is incorrect.');
export const forbidden = (message = 'Your role does not allow this.') => new ApiError(403, 'forbidden', message);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
export const conflict = (message: string) => new ApiError(409, 'conflict', message);
/** D5: 502 and 503 carry provider_error. */
export const providerError = (status: 502 | 503, message: string) => new ApiError(status, 'provider_error', message);

/** `total` above the number of `fields` says that the list was cut (api/http/validate.ts). */
export function validationFailed(fields: Record<string, string>, total = Object.keys(fields).length): ApiError {
  const listed = Object.keys(fields).length;
  const message = total > listed ? `The request did not pass validation; only the first ${listed} of ${total} fields with complaints are listed.` : 'The request did not pass validation.';
  return new ApiError(422, 'validation_failed', message, { fields });
}

export class RateLimitedError extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'rate_limited', `Too many requests; retry after ${retryAfterSeconds} seconds.`);
  }
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> | null; request_id: string | null };
}
