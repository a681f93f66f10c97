import { z } from 'zod';
import type { ErrorKind } from '../../domain/errors/errors';

/**
 * D10: errors under /v1/ are RFC 9457 problem details, `application/problem+json`, with one of
 * these `type` slugs. The section 7 envelope of /api/ is not used there.
 */
export const PROBLEM_TYPES = [
  'unauthenticated', 'forbidden', 'job-not-found', 'not-found', 'invalid-transition', 'validation-failed',
  'conflict', 'rate-limited', 'idempotency-key-reused', 'idempotency-key-in-use', 'internal-error',
] as const;
export type ProblemType = (typeof PROBLEM_TYPES)[number];

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * Every kind of domain error as a problem: its status, its D10 type and a title that does not
 * change from one occurrence to the next (RFC 9457 section 3.1.3). D10 has no slug for a
 * malformed body or a provider failure: a body that is not JSON is a validation failure of the
 * body, and the provider errors are `internal-error` with their own status (502/503).
 * test/unit/problem-kinds.test.ts walks every row.
 */
export const PROBLEM_OF_KIND: Readonly<Record<ErrorKind, { status: number; type: ProblemType; title: string }>> = {
  bad_request: { status: 400, type: 'validation-failed', title: 'The request is malformed.' },
  payload_too_large: { status: 413, type: 'validation-failed', title: 'The request body is too large.' },
  unsupported_encoding: { status: 415, type: 'validation-failed', title: 'The request body encoding is not supported.' },
  validation_failed: { status: 422, type: 'validation-failed', title: 'The request did not pass validation.' },
  unauthenticated: { status: 401, type: 'unauthenticated', title: 'A valid bearer token is required.' },
  invalid_credentials: { status: 401, type: 'unauthenticated', title: 'A valid bearer token is required.' },
  forbidden: { status: 403, type: 'forbidden', title: 'Your role does not allow this.' },
  not_found: { status: 404, type: 'not-found', title: 'Not found.' },
  job_not_found: { status: 404, type: 'job-not-found', title: 'No such job.' },
  conflict: { status: 409, type: 'conflict', title: 'The request conflicts with the current state.' },
  invalid_transition: { status: 409, type: 'invalid-transition', title: 'The job cannot move to that status.' },
  idempotency_key_reused: { status: 422, type: 'idempotency-key-reused', title: 'The Idempotency-Key was used with another body.' },
  idempotency_key_in_use: { status: 409, type: 'idempotency-key-in-use', title: 'The Idempotency-Key is in use.' },
  rate_limited: { status: 429, type: 'rate-limited', title: 'Too many requests.' },
  provider_failed: { status: 502, type: 'internal-error', title: 'A provider answered with an error.' },
  provider_unavailable: { status: 503, type: 'internal-error', title: 'A provider is unavailable.' },
  internal: { status: 500, type: 'internal-error', title: 'Internal server error.' },
};

export interface Problem {
  type: ProblemType;
  title: string;
  status: number;
  detail: string;
  request_id: string | null;
  /** validation-failed only: the first complaint per dotted path. */
  errors?: Record<string, string>;
}

export const ProblemSchema = z
  .object({
    type: z.enum(PROBLEM_TYPES),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    request_id: z.string().nullable(),
    errors: z.record(z.string(), z.string()).optional().meta({ description: 'validation-failed only: the first complaint per dotted path.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (D10).' });

/** The status whose problem type is used in the OpenAPI examples of /v1 routes. */
const TYPE_OF_STATUS: Readonly<Record<number, ProblemType>> = {
  400: 'validation-failed', 401: 'unauthenticated', 403: 'forbidden', 404: 'not-found', 409: 'conflict',
  413: 'validation-failed', 415: 'validation-failed', 422: 'validation-failed', 429: 'rate-limited',
  500: 'internal-error', 502: 'internal-error', 503: 'internal-error',
};

export function problemExample(status: number, detail: string, errors?: Record<string, string>, type?: ProblemType): Problem {
  const chosen = type ?? TYPE_OF_STATUS[status];
  if (!chosen) throw new Error(`no problem type is documented for status ${status}`);
  const title = Object.values(PROBLEM_OF_KIND).find((row) => row.type === chosen && row.status === status)?.title ?? detail;
  return { type: chosen, title, status, detail, request_id: '4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f', ...(errors ? { errors } : {}) };
}
