import { describe, expect, it } from '@jest/globals';
import { LONE_SURROGATE_COMPLAINT, NUL_COMPLAINT, unstorableTextComplaint } from '../../domain/text/storable-text';
import { isSupportedDay, isSupportedInstant } from '../../domain/dates/supported-range';
import { unstorableText } from '../../api/http/validate';
import { pathDecodes } from '../../api/http/path-decoder';
import { asBodyError, RequestBodyError } from '../../api/http/body-reader';

/** The four rules that refuse bad input where it enters, alone (bad-input.test.ts walks them over the API). */
describe('the string rule', () => {
  it.each([
    ['plain', undefined],
    ['sun blind \ud83c\udf1e', undefined],
    ['a\u0000b', NUL_COMPLAINT],
    ['a\ud800b', LONE_SURROGATE_COMPLAINT],
    ['\udfff', LONE_SURROGATE_COMPLAINT],
    ['\udf1e\ud83c', LONE_SURROGATE_COMPLAINT],
  ])('%j: %s', (text, complaint) => {
    expect(unstorableTextComplaint(text)).toBe(complaint);
  });

  it('is applied to every string and key, at its dotted path', () => {
    const found = unstorableText({ customer: { name: 'x\ud800' }, lines: [{ ref: 'ok' }, { ref: 'a\u0000' }], ['k\udc00']: 1 }, 'body');
    expect(new Map(found)).toEqual(new Map([
      ['customer.name', LONE_SURROGATE_COMPLAINT],
      ['lines.1.ref', NUL_COMPLAINT],
      ['k\udc00', LONE_SURROGATE_COMPLAINT],
    ]));
    expect(found).toHaveLength(3);
  });
});

describe('the date rule', () => {
  it.each([
    ['0000-01-01', false],
    ['0000-12-31', false],
    ['0001-01-01', true],
    ['2026-11-26', true],
    ['9999-12-31', true],
  ])('day %s: %s', (day, ok) => {
    expect(isSupportedDay(day)).toBe(ok);
  });

  it.each([
    ['0000-06-01T00:00:00Z', false],
    ['0001-01-01T00:00:00Z', true],
    // Year 0001 as written, year 0000 in UTC.
    ['0001-01-01T00:00:00+00:01', false],
    ['0001-01-01T00:00:00-01:00', true],
    ['9999-12-31T23:59:59.999Z', true],
    // Year 9999 as written, year 10000 in UTC.
    ['9999-12-31T23:59:59-00:01', false],
    ['9999-12-31T23:59:59+14:00', true],
  ])('instant %s: %s', (text, ok) => {
    expect(isSupportedInstant(text)).toBe(ok);
  });
});

describe('the path decoder', () => {
  it.each([
    ['/v1/fsm/jobs/abc', true],
    ['/v1/fsm/jobs/caf%C3%A9', true],
    ['/v1/fsm/jobs/a%2Fb', true],
    ['/v1/fsm/jobs/%FF%FE', false],
    // A surrogate's own UTF-8 bytes are not UTF-8 text.
    ['/api/v1/quotes/%ED%A0%80', false],
    ['/api/v1/quotes/%E', false],
  ])('%s decodes: %s', (path, ok) => {
    expect(pathDecodes(path)).toBe(ok);
  });
});

describe('the body reader', () => {
  it('answers a body that does not inflate as a 400 that names the encoding', () => {
    const zlibFailure = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR', status: 400 });
    const error = asBodyError(zlibFailure, 'gzip') as RequestBodyError;
    expect(error).toBeInstanceOf(RequestBodyError);
    expect(error.kind).toBe('bad_request');
    expect(error.message).toMatch(/gzip/);
  });

  it('answers the parser typed refusals by their kinds, and leaves its own faults as they are', () => {
    expect((asBodyError(Object.assign(new Error('x'), { type: 'encoding.unsupported', status: 415 }), 'compress') as RequestBodyError).kind).toBe('unsupported_encoding');
    expect((asBodyError(Object.assign(new Error('x'), { type: 'entity.too.large', status: 413 }), undefined) as RequestBodyError).kind).toBe('payload_too_large');
    const fault = Object.assign(new Error('stream is not readable'), { type: 'stream.not.readable', status: 500 });
    expect(asBodyError(fault, undefined)).toBe(fault);
  });
});
