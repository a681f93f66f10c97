import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { GraphQLError } from 'graphql';
import { DomainError, RateLimitedError } from '../../domain/errors/errors';
import { ERROR_CODES, ERROR_KINDS, ERROR_RENDERINGS, PROBLEM_TYPES, type ErrorKind, type ErrorRendering } from '../../domain/errors/error-kinds';
import { MarginOverrideNotAuthorisedError, UnknownSkuError, refusedAtOwnPath } from '../../domain/pricing/errors';
import { errorHandler, notFoundHandler } from '../../api/http/error-handler';
import { errorExample } from '../../api/http/error-examples';
import { problemExample } from '../../api/v1/problem';
import { clientError } from '../../api/graphql/errors';

// The one table of error renderings (domain/errors/error-kinds.ts), walked against what the
// specification says, then through every renderer. The facts below are the specification's,
// stated once; the table itself is never copied here.

/** Spec 000 section 7: the values of `error.code`. */
const SECTION_7_CODES = ['bad_request', 'validation_failed', 'unauthenticated', 'invalid_credentials', 'forbidden', 'not_found', 'conflict', 'rate_limited', 'provider_error', 'internal_error'];

/**
 * Spec 000 section 7's status table with the codes that may go with each status: D5 gives 502 and
 * 503 `provider_error`; 401 is `unauthenticated`, or `invalid_credentials` for a rejected login.
 * 413 and 415 are the body parser's refusals of input, answered with the code of refused input
 * (docs/decisions.md, "Malformed JSON body").
 */
const CODES_OF_STATUS: Readonly<Record<number, readonly string[]>> = {
  400: ['bad_request'],
  401: ['unauthenticated', 'invalid_credentials'],
  403: ['forbidden'],
  404: ['not_found'],
  409: ['conflict'],
  413: ['bad_request'],
  415: ['bad_request'],
  422: ['validation_failed'],
  429: ['rate_limited'],
  500: ['internal_error'],
  502: ['provider_error'],
  503: ['provider_error'],
};

/** D10: the problem types of /v1/. */
const D10_TYPES = ['unauthenticated', 'forbidden', 'job-not-found', 'not-found', 'invalid-transition', 'validation-failed', 'conflict', 'rate-limited', 'idempotency-key-reused', 'idempotency-key-in-use', 'internal-error'];

/** Statuses the documents give problem types: 001 (409 `invalid-transition`), D14 (422 and 409 for the Idempotency-Key), D10 (401). */
const STATUS_OF_TYPE: Readonly<Record<string, number>> = { 'invalid-transition': 409, 'idempotency-key-reused': 422, 'idempotency-key-in-use': 409, unauthenticated: 401 };

const slugOf = (kind: string) => kind.replaceAll('_', '-');

/** The GraphQL codes docs/graphql.md documents in its table of errors. */
function documentedGraphqlCodes(): Set<string> {
  const doc = readFileSync(new URL('../../docs/graphql.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Limits and errors'));
  const table = section.slice(0, section.indexOf('\n## ', 1));
  const codes = table.split('\n').filter((line) => line.startsWith('| `')).flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1]!));
  return new Set(codes);
}

const rows = ERROR_KINDS.map((kind) => [kind, ERROR_RENDERINGS[kind] as ErrorRendering] as const);

describe('the table of error renderings against the specification', () => {
  it('uses exactly the envelope codes of section 7 and the problem types of D10', () => {
    expect([...ERROR_CODES].sort()).toEqual([...SECTION_7_CODES].sort());
    expect([...PROBLEM_TYPES].sort()).toEqual([...D10_TYPES].sort());
    expect(new Set(rows.map(([, row]) => row.code))).toEqual(new Set(SECTION_7_CODES));
    expect(new Set(rows.map(([, row]) => row.problem.type))).toEqual(new Set(D10_TYPES));
  });

  it.each(rows)('%s: its status is one of section 7 and its code goes with that status', (_kind, row) => {
    expect(CODES_OF_STATUS[row.status]).toContain(row.code);
  });

  it.each(rows)('%s: a kind D10 names answers its own type; any other, the type of what it is', (kind, row) => {
    if (D10_TYPES.includes(slugOf(kind))) expect(row.problem.type).toBe(slugOf(kind));
    // D10 has no slug for malformed input or a provider failure: refused input is a validation failure, a provider's failure an internal error.
    else if (row.status >= 500) expect(row.problem.type).toBe('internal-error');
    else if (row.status === 401) expect(row.problem.type).toBe('unauthenticated');
    else expect([row.problem.type, row.code]).toEqual(['validation-failed', expect.stringMatching(/^(bad_request|validation_failed)$/)]);
    if (STATUS_OF_TYPE[row.problem.type]) expect(row.status).toBe(STATUS_OF_TYPE[row.problem.type]);
    expect(row.problem.title).toMatch(/^[A-Z].*\.$/);
  });

  it.each(rows)('%s: its GraphQL code is one docs/graphql.md documents', (_kind, row) => {
    expect(documentedGraphqlCodes()).toContain(row.graphql);
  });

  it('names the login rejection, the provider failures and the override refusal as section 7 and D5 do', () => {
    expect(ERROR_RENDERINGS.invalid_credentials).toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(ERROR_RENDERINGS.provider_failed).toMatchObject({ status: 502, code: 'provider_error' });
    expect(ERROR_RENDERINGS.provider_unavailable).toMatchObject({ status: 503, code: 'provider_error' });
    // Spec 4.3 rules 3 and 6: a refused SKU, tier or margin is 400; an override by a non-ADMIN is 403.
    expect(ERROR_RENDERINGS[new UnknownSkuError('X', 'lineItems.0.fabricSkuCode').kind].status).toBe(400);
    expect(ERROR_RENDERINGS[new MarginOverrideNotAuthorisedError('0.1', '0.35').kind].status).toBe(403);
  });
});

describe('every renderer reads the table', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.get(['/api/v1/fail/:kind', '/v1/fail/:kind'], (req) => {
      if (req.params.kind === 'rate_limited') throw new RateLimitedError(7);
      throw new DomainError(req.params.kind as ErrorKind, `refused as ${req.params.kind}`);
    });
    app.get(['/api/v1/price', '/v1/price'], () => {
      throw new MarginOverrideNotAuthorisedError('0.1', '0.35');
    });
    app.use(notFoundHandler);
    app.use(errorHandler);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));
  const replaced: { restore(): void }[] = [];
  afterEach(() => replaced.splice(0).forEach((replacement) => replacement.restore()));

  /** Replaces `kind`'s row with values no renderer could know but from the table. */
  function replaceRow(kind: ErrorKind): ErrorRendering {
    const marked = { status: 470 + ERROR_KINDS.indexOf(kind), code: `code-of-${kind}`, problem: { type: `type-of-${kind}`, title: `Title of ${kind}.` }, graphql: `GRAPHQL_OF_${kind}` };
    replaced.push(jest.replaceProperty(ERROR_RENDERINGS as Record<ErrorKind, ErrorRendering>, kind, marked as unknown as ErrorRendering));
    return marked as unknown as ErrorRendering;
  }

  it.each(ERROR_KINDS.map((kind) => [kind]))('%s: the section 7 envelope outside /v1/, a problem under /v1/, a GraphQL code', async (kind) => {
    const row = replaceRow(kind);
    const envelope = await fetch(`${base}/api/v1/fail/${kind}`);
    expect(envelope.status).toBe(row.status);
    expect(envelope.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await envelope.json()) as unknown).toEqual({ error: { code: row.code, message: expect.any(String), details: null, request_id: null } });

    const problem = await fetch(`${base}/v1/fail/${kind}`);
    expect(problem.status).toBe(row.status);
    expect(problem.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect((await problem.json()) as unknown).toEqual({ type: row.problem.type, title: row.problem.title, status: row.status, detail: expect.any(String), request_id: null });

    const masked = clientError(new GraphQLError('x', { path: ['field'], originalError: new DomainError(kind, 'refused') }));
    expect(masked.extensions.code).toBe(row.graphql);
  });

  it.each(ERROR_KINDS.map((kind) => [kind]))('%s: the OpenAPI examples of its status', (kind) => {
    const row = replaceRow(kind);
    expect(errorExample(row.status, 'example').error.code).toBe(row.code);
    expect(problemExample(row.status, 'example', undefined, row.problem.type)).toMatchObject({ type: row.problem.type, title: row.problem.title, status: row.status });
  });

  it('the router 404 answers the not_found row in the shape of its path', async () => {
    const row = replaceRow('not_found');
    const envelope = await fetch(`${base}/api/v1/nothing-here`);
    expect([envelope.status, (await envelope.json()) as unknown]).toEqual([row.status, { error: { code: row.code, message: 'No route for GET /api/v1/nothing-here.', request_id: null } }]);
    const problem = await fetch(`${base}/v1/nothing-here`);
    expect([problem.status, (await problem.json()) as unknown]).toEqual([row.status, { status: row.status, type: row.problem.type, title: row.problem.title, detail: 'No route for GET /v1/nothing-here.', request_id: null }]);
  });

  it('a path that only starts like /v1 is not under /v1/; Express matches /V1/ as /v1/', async () => {
    expect((await fetch(`${base}/v1x/fail`)).headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await fetch(`${base}/V1/fail/conflict`)).headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  });

  it('a pricing refusal is a domain error of its kind: 403 for an override by a non-ADMIN (spec 4.3 rule 3)', async () => {
    const envelope = await fetch(`${base}/api/v1/price`);
    expect([envelope.status, ((await envelope.json()) as { error: { code: string } }).error.code]).toEqual([403, 'forbidden']);
    const problem = await fetch(`${base}/v1/price`);
    expect([problem.status, ((await problem.json()) as { type: string }).type]).toEqual([403, 'forbidden']);
  });

  it('the 429 says when to retry in both shapes', async () => {
    for (const path of ['/api/v1/fail/rate_limited', '/v1/fail/rate_limited']) {
      const res = await fetch(`${base}${path}`);
      expect([res.status, res.headers.get('retry-after')]).toEqual([429, '7']);
    }
  });
});

describe('pricing refusals at the caller\'s own path', () => {
  it('answer a validation failure of the field as the caller names it', () => {
    const refused = (() => {
      try {
        refusedAtOwnPath(() => {
          throw new UnknownSkuError('FAB-NOPE', 'lineItems.1.fabricSkuCode');
        }, (path) => path.replace(/^lineItems/, 'line_items'));
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'validation_failed', details: { fields: { 'line_items.1.fabricSkuCode': expect.stringContaining('FAB-NOPE') } } });
  });

  it('let every other error through, and answer what the pricing answers', () => {
    const boom = new Error('not a refusal');
    expect(() => refusedAtOwnPath(() => { throw boom; }, (path) => path)).toThrow(boom);
    expect(refusedAtOwnPath(() => 42, (path) => path)).toBe(42);
  });
});
