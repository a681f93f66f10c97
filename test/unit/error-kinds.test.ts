import { describe, expect, it } from '@jest/globals';
import { ERROR_KINDS, ERROR_CODES } from '../../domain/errors/errors';
import { ERROR_RESPONSES } from '../../domain/errors/error-kinds';

// Section 7 and D5: every kind of domain error, answered with its status and envelope code.
const EXPECTED: Record<(typeof ERROR_KINDS)[number], [number, (typeof ERROR_CODES)[number]]> = {
  bad_request: [400, 'bad_request'],
  payload_too_large: [413, 'bad_request'],
  unsupported_encoding: [415, 'bad_request'],
  validation_failed: [422, 'validation_failed'],
  unauthenticated: [401, 'unauthenticated'],
  invalid_credentials: [401, 'invalid_credentials'],
  forbidden: [403, 'forbidden'],
  not_found: [404, 'not_found'],
  conflict: [409, 'conflict'],
  rate_limited: [429, 'rate_limited'],
  provider_failed: [502, 'provider_error'],
  provider_unavailable: [503, 'provider_error'],
  internal: [500, 'internal_error'],
  job_not_found: [404, 'not_found'],
  invalid_transition: [409, 'conflict'],
  idempotency_key_reused: [422, 'validation_failed'],
  idempotency_key_in_use: [409, 'conflict'],
};

describe('error kinds', () => {
  it.each(ERROR_KINDS.map((kind) => [kind]))('%s answers its status and code', (kind) => {
    expect([ERROR_RESPONSES[kind].status, ERROR_RESPONSES[kind].code]).toEqual(EXPECTED[kind]);
  });

  it('every envelope code of section 7 is the answer of some kind', () => {
    expect(new Set(Object.values(ERROR_RESPONSES).map((r) => r.code))).toEqual(new Set(ERROR_CODES));
  });
});
