import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { z } from 'zod';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool } from '../../scripts/harness/owner-db';
import { route } from '../../api/http/route';
import { conflict, invalidTransition, jobNotFound } from '../../domain/errors/errors';
import type { Problem } from '../../api/v1/problem';
import { PROBLEM_TYPES } from '../../domain/errors/error-kinds';

// D10: every error under /v1/ is an RFC 9457 problem with one of D10's type slugs.
let owner: pg.Pool;
let api: ApiHarness;
let admin: string;
let technician: string;

const FAILURES = { job: jobNotFound, transition: () => invalidTransition('scheduled cannot move to complete.'), conflict: () => conflict('The job is complete.') };

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi({
    extraRoutes: (host) => {
      route(host, {
        method: 'post',
        path: '/v1/test/echo/:id',
        operationId: 'testV1Echo',
        summary: 'Validates nested input (test only)',
        description: 'Test only.',
        tags: ['test'],
        auth: 'bearer',
        metering: 'request',
        roles: ['ADMIN'],
        params: z.strictObject({ id: z.uuid() }),
        body: z.strictObject({ lines: z.array(z.strictObject({ quantity: z.number().int().positive() })).min(1) }),
        bodyExample: { lines: [{ quantity: 1 }] },
        responses: { 200: { description: 'echo' } },
        handler: ({ res, body }) => {
          res.json(body);
        },
      });
      route(host, {
        method: 'get',
        path: '/v1/test/fail/:what',
        operationId: 'testV1Fail',
        summary: 'Fails as asked (test only)',
        description: 'Test only.',
        tags: ['test'],
        auth: 'bearer',
        metering: 'request',
        params: z.strictObject({ what: z.enum(['job', 'transition', 'conflict', 'explode']) }),
        responses: { 200: { description: 'never' } },
        handler: ({ params }) => {
          if (params.what === 'explode') throw new Error('secret internal detail: password=hunter2');
          throw FAILURES[params.what]();
        },
      });
    },
  });
  const tenant = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
  admin = await api.tokenFor(tenant.users.admin!);
  technician = await api.tokenFor(tenant.users.tech!);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

async function problemOf(res: Response): Promise<Problem> {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Problem;
  expect(PROBLEM_TYPES).toContain(body.type);
  expect(body.status).toBe(res.status);
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body;
}

describe('the /v1/ guard (D10)', () => {
  it.each([
    ['GET', '/v1/fsm/jobs'],
    ['POST', '/v1/quotes'],
    ['GET', '/v1/invented/path'],
    ['DELETE', '/v1'],
    ['POST', '/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10'],
  ])('%s %s without a token is a 401 unauthenticated problem', async (method, path) => {
    const res = await api.request(path, { method, headers: { 'x-request-id': 'v1-guard' } });
    expect(res.status).toBe(401);
    const body = await problemOf(res);
    expect(body).toEqual({ type: 'unauthenticated', title: 'A valid bearer token is required.', status: 401, detail: 'A valid bearer token is required.', request_id: 'v1-guard' });
  });

  it('a forged token is 401 too', async () => {
    const res = await api.request('/v1/invented', { token: `${admin}x` });
    expect((await problemOf(res)).type).toBe('unauthenticated');
  });

  it('an authenticated request to an invented path is a 404 not-found problem', async () => {
    const res = await api.request('/v1/no/such/path', { token: admin });
    expect(res.status).toBe(404);
    expect((await problemOf(res)).type).toBe('not-found');
  });

  it('a role outside the route is a 403 forbidden problem', async () => {
    const res = await api.request('/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', { method: 'POST', token: technician, json: { lines: [{ quantity: 1 }] } });
    expect(res.status).toBe(403);
    expect((await problemOf(res)).type).toBe('forbidden');
  });
});

describe('validation-failed (D10)', () => {
  it('names dotted paths with the first complaint each', async () => {
    const res = await api.request('/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', { method: 'POST', token: admin, json: { lines: [{ quantity: 1 }, { quantity: 0, colour: 'red' }], extra: 1 } });
    expect(res.status).toBe(422);
    const body = await problemOf(res);
    expect(body.type).toBe('validation-failed');
    expect(body.errors).toEqual({ 'lines.1.quantity': expect.any(String), 'lines.1.colour': 'Unrecognized key', extra: 'Unrecognized key' });
  });

  it('a malformed path parameter and a body that is not JSON are validation-failed too', async () => {
    const path = await api.request('/v1/test/echo/not-a-uuid', { method: 'POST', token: admin, json: { lines: [{ quantity: 1 }] } });
    expect(path.status).toBe(422);
    expect((await problemOf(path)).errors).toEqual({ id: expect.any(String) });
    const notJson = await api.request('/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', { method: 'POST', token: admin, headers: { 'content-type': 'application/json' }, body: '{"lines": [' });
    expect(notJson.status).toBe(400);
    const body = await problemOf(notJson);
    expect(body.type).toBe('validation-failed');
    expect(body.errors).toEqual({});
  });

  it('a valid request passes through', async () => {
    const res = await api.request('/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', { method: 'POST', token: admin, json: { lines: [{ quantity: 2 }] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ lines: [{ quantity: 2 }] });
  });
});

describe('domain errors as problems (D10)', () => {
  it.each([
    ['job', 404, 'job-not-found'],
    ['transition', 409, 'invalid-transition'],
    ['conflict', 409, 'conflict'],
  ])('%s answers %i %s', async (what, status, type) => {
    const res = await api.request(`/v1/test/fail/${what}`, { token: admin });
    expect(res.status).toBe(status);
    const body = await problemOf(res);
    expect(body.type).toBe(type);
    expect('errors' in body).toBe(false);
  });

  it('an unhandled error is internal-error and says nothing of its cause', async () => {
    const res = await api.request('/v1/test/fail/explode', { token: admin, headers: { 'x-request-id': 'v1-boom' } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ type: 'internal-error', title: 'Internal server error.', status: 500, detail: 'Internal server error.', request_id: 'v1-boom' });
    expect(text).not.toContain('hunter2');
  });

  it('/api/ keeps the section 7 envelope', async () => {
    const res = await api.request('/api/v1/no/such/path', { token: admin });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});
