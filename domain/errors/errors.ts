import type { ErrorCode, ErrorKind } from './error-kinds';

/**
 * Domain errors. Services and handlers throw DomainErrors that say what went wrong (a kind), not
 * how an interface answers it; domain/errors/error-kinds.ts holds each kind's answer in every
 * interface, and api/http/error-handler.ts and api/graphql/errors.ts are the only places that answer them.
 */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(message);
  }
}

/** `fields` names what was malformed (a header), as a validation failure names its fields. */
export const badRequest = (message: string, fields?: Record<string, string>) => new DomainError('bad_request', message, fields ? { fields } : null);
export const unauthenticated = (message = 'A valid bearer token is required.') => new DomainError('unauthenticated', message);
export const invalidCredentials = () => new DomainError('invalid_credentials', 'The workspace, email or password is incorrect.');
export const forbidden = (message = 'Your role does not allow this.') => new DomainError('forbidden', message);
export const notFound = (message: string) => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
/** D10 `job-not-found`: also what a technician gets for another crew's job. */
export const jobNotFound = (message = 'No such job.') => new DomainError('job_not_found', message);
/** D11: a job status change the table does not allow (409 `invalid-transition`). */
export const invalidTransition = (message: string) => new DomainError('invalid_transition', message);
/** D14: the same Idempotency-Key with another body. */
export const idempotencyKeyReused = () => new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with another request body.');
/** D14: the first request with this Idempotency-Key is still running. */
export const idempotencyKeyInUse = () => new DomainError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress; retry later.');
/** The provider answered with an error (a 502 in section 7). */
export const providerFailed = (message: string) => new DomainError('provider_failed', message);
/** The provider is not configured or cannot be reached (a 503). */
export const providerUnavailable = (message: string) => new DomainError('provider_unavailable', message);

/** `total` above the number of `fields` says that the list was cut (api/http/validate.ts). */
export function validationFailed(fields: Record<string, string>, total = Object.keys(fields).length): DomainError {
  const listed = Object.keys(fields).length;
  const message = total > listed ? `The request did not pass validation; only the first ${listed} of ${total} fields with complaints are listed.` : 'The request did not pass validation.';
  return new DomainError('validation_failed', message, { fields });
}

export class RateLimitedError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `Too many requests; retry after ${retryAfterSeconds} seconds.`);
  }
}

/** Something the service itself depends on (its database) cannot be reached now; the client retries after a while. */
export class ServiceUnavailableError extends DomainError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super('service_unavailable', message);
  }
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> | null; request_id: string | null };
}
