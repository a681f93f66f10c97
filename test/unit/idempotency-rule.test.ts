import { describe, expect, it } from '@jest/globals';
import { decide, fingerprintOf, keyComplaint, type Holder } from '../../domain/idempotency/idempotency';

// D14's one idempotency rule (domain/idempotency), followed by /v1/ routes and GraphQL's createQuote.
describe('the fingerprint of a request (RFC 8785 canonical JSON)', () => {
  it('leaves out undefined members and refuses numbers JSON cannot hold', () => {
    expect(fingerprintOf({ operation: 'POST /v1/quotes', payload: { a: undefined, b: [undefined] } })).toBe('POST /v1/quotes\n{"b":[null]}');
    expect(() => fingerprintOf({ operation: 'POST /v1/quotes', payload: Number.NaN })).toThrow();
    expect(() => fingerprintOf({ operation: 'POST /v1/quotes', payload: Infinity })).toThrow();
  });

  it('makes key order, whitespace and number spelling irrelevant, and the operation part of the request', () => {
    const body = JSON.parse('{"b": [1.0, 2], "a": {"y": 1e0, "x": "s"}}');
    const reordered = JSON.parse('{"a":{"x":"s","y":1},"b":[1,2]}');
    expect(fingerprintOf({ operation: 'POST /v1/quotes', payload: body })).toBe(fingerprintOf({ operation: 'POST /v1/quotes', payload: reordered }));
    expect(fingerprintOf({ operation: 'POST /v1/quotes', payload: body })).toBe('POST /v1/quotes\n{"a":{"x":"s","y":1},"b":[1,2]}');
    expect(fingerprintOf({ operation: 'graphql createQuote', payload: body })).not.toBe(fingerprintOf({ operation: 'POST /v1/quotes', payload: body }));
    expect(fingerprintOf({ operation: 'POST /v1/customers', payload: undefined })).toBe('POST /v1/customers\nnull');
  });
});

describe('a key (D14: 1-255 characters)', () => {
  it.each([
    ['', 'Must not be empty'],
    ['k', undefined],
    ['k'.repeat(255), undefined],
    ['k'.repeat(256), 'At most 255 characters'],
  ])('%j: %s', (key, complaint) => {
    expect(keyComplaint(key)).toBe(complaint);
  });
});

describe('the decision for a request holding a key', () => {
  const answer = { status: 201, body: { id: 'q1' } };
  const cases: [string, Holder<typeof answer>, ReturnType<typeof decide>][] = [
    ['nobody holds it: the request runs', { by: 'nobody' }, { kind: 'new' }],
    ['a claim not yet committed holds it: in use', { by: 'uncommitted' }, { kind: 'in-use' }],
    ['the same request still running: in use', { by: 'claim', sameRequest: true, state: 'running' }, { kind: 'in-use' }],
    ['the same request done: its answer again', { by: 'claim', sameRequest: true, state: 'done', answer }, { kind: 'replay', answer }],
    ['another request running: reused', { by: 'claim', sameRequest: false, state: 'running' }, { kind: 'reused' }],
    ['another request done: reused', { by: 'claim', sameRequest: false, state: 'done', answer }, { kind: 'reused' }],
  ];
  it.each(cases)('%s', (_what, holder, decision) => {
    expect(decide(holder)).toEqual(decision);
  });
});
