import { describe, expect, it } from '@jest/globals';
import { ERROR_KINDS } from '../../domain/errors/errors';
import { PROBLEM_OF_KIND, PROBLEM_TYPES, problemExample } from '../../api/v1/problem';

// D10: every kind of domain error, answered under /v1/ with its status and problem type.
const EXPECTED: Record<(typeof ERROR_KINDS)[number], [number, (typeof PROBLEM_TYPES)[number]]> = {
  bad_request: [400, 'validation-failed'],
  payload_too_large: [413, 'validation-failed'],
  unsupported_encoding: [415, 'validation-failed'],
  validation_failed: [422, 'validation-failed'],
  unauthenticated: [401, 'unauthenticated'],
  invalid_credentials: [401, 'unauthenticated'],
  forbidden: [403, 'forbidden'],
  not_found: [404, 'not-found'],
  job_not_found: [404, 'job-not-found'],
  conflict: [409, 'conflict'],
  invalid_transition: [409, 'invalid-transition'],
  idempotency_key_reused: [422, 'idempotency-key-reused'],
  idempotency_key_in_use: [409, 'idempotency-key-in-use'],
  rate_limited: [429, 'rate-limited'],
  provider_failed: [502, 'internal-error'],
  provider_unavailable: [503, 'internal-error'],
  internal: [500, 'internal-error'],
};

describe('problem types (D10)', () => {
  it.each(ERROR_KINDS.map((kind) => [kind]))('%s answers its status and type', (kind) => {
    expect([PROBLEM_OF_KIND[kind].status, PROBLEM_OF_KIND[kind].type]).toEqual(EXPECTED[kind]);
  });

  it('every type of D10 is the answer of some kind', () => {
    expect(new Set(Object.values(PROBLEM_OF_KIND).map((row) => row.type))).toEqual(new Set(PROBLEM_TYPES));
  });

  it('documentation examples carry the type of their status', () => {
    expect(problemExample(422, 'bad', { 'lines.0.sku': 'Required' })).toMatchObject({ type: 'validation-failed', status: 422, errors: { 'lines.0.sku': 'Required' } });
    expect(problemExample(404, 'gone', undefined, 'job-not-found')).toMatchObject({ type: 'job-not-found', title: 'No such job.' });
    expect(() => problemExample(418, 'teapot')).toThrow('no problem type');
  });
});
