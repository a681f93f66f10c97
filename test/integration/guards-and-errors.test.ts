import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { z } from 'zod';
import { connect } from 'node:net';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool } from '../../scripts/harness/owner-db';
import { route } from '../../api/http/route';

let owner: pg.Pool;
let api: ApiHarness;
let token: string;

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi({
    extraRoutes: (host) => {
      route(host, {
        method: 'get',
        path: '/api/v1/test/explode',
        operationId: 'testExplode',
        summary: 'Fails with an internal error (test only)',
        description: 'Test only.',
        tags: ['test'],
        auth: 'bearer',
        responses: {},
        handler: () => {
          throw new Error('secret internal detail: password=hunter2');
        },
      });
      route(host, {
        method: 'post',
        path: '/api/v1/test/echo/:id',
        operationId: 'testEcho',
        summary: 'Validates nested input (test only)',
        description: 'Test only.',
        tags: ['test'],
        auth: 'bearer',
        params: z.strictObject({ id: z.uuid() }),
        query: z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(25) }),
        body: z.strictObject({ lineItems: z.array(z.strictObject({ dropInches: z.number().positive(), widthInches: z.number().positive() })).min(1) }),
        bodyExample: { lineItems: [{ dropInches: 60, widthInches: 72.5 }] },
        responses: { 200: { description: 'echo' } },
        handler: ({ res, body, query, params }) => {
          res.json({ body, query, params });
        },
      });
    },
  });
  const t = await createTenant(owner, { admin: 'ADMIN' });
  token = await api.tokenFor(t.users.admin!);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

/**
 * Writes raw bytes to the API and reads the whole answer (the server closes after these errors).
 * Pieces are written 30 ms apart, so that the server reads them one at a time.
 */
function rawExchange(bytes: string | string[]): Promise<{ head: string; body: string }> {
  const { hostname, port } = new URL(api.url);
  const pieces = typeof bytes === 'string' ? [bytes] : bytes;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      void (async () => {
        for (const [i, piece] of pieces.entries()) {
          if (i > 0) await new Promise((wait) => setTimeout(wait, 30));
          if (socket.destroyed) return;
          if (i === pieces.length - 1) socket.end(piece, 'latin1');
          else socket.write(piece, 'latin1');
        }
      })();
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = text.indexOf('\r\n\r\n');
      resolve({ head: text.slice(0, split), body: text.slice(split + 4) });
    });
  });
}

interface Envelope {
  error: { code: string; message: string; details?: { fields: Record<string, string> } | null; request_id: string | null };
}

describe('guards run before routing (section 5.7)', () => {
  it.each([
    ['GET', '/api/v1/auth/me'],
    ['GET', '/api/v1/quotes'],
    ['POST', '/api/v1/quotes/calculate'],
    ['GET', '/api/v1/no/such/path'],
    ['DELETE', '/api/v1/anything'],
    ['PATCH', '/api/v1/work-orders/123/status'],
    ['GET', '/api/v1/auth/login'],
  ])('%s %s without a token answers 401 unauthenticated', async (method, path) => {
    const res = await api.request(path, { method });
    expect(res.status).toBe(401);
    const body = (await res.json()) as Envelope;
    expect(body.error.code).toBe('unauthenticated');
    expect(body.error.details).toBeNull();
  });

  it('a router 404 with a valid token has no details key at all', async () => {
    const res = await api.request('/api/v1/no/such/path', { token });
    expect(res.status).toBe(404);
    const body = (await res.json()) as Envelope;
    expect(body.error.code).toBe('not_found');
    expect('details' in body.error).toBe(false);
    expect(typeof body.error.request_id).toBe('string');
    const outside = await api.request('/nope');
    expect(outside.status).toBe(404);
    expect('details' in ((await outside.json()) as Envelope).error).toBe(false);
  });
});

describe('errors and validation (section 7)', () => {
  it('echoes x-request-id, or generates one', async () => {
    const echoed = await api.request('/api/v1/nothing', { headers: { 'x-request-id': 'req-abc-123' } });
    expect(((await echoed.json()) as Envelope).error.request_id).toBe('req-abc-123');
    expect(echoed.headers.get('x-request-id')).toBe('req-abc-123');
    const generated = await api.request('/api/v1/nothing');
    expect(((await generated.json()) as Envelope).error.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a 500 carries no stack trace or internal message', async () => {
    const res = await api.request('/api/v1/test/explode', { token, headers: { 'x-request-id': 'boom-1' } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal_error', message: 'Internal server error.', details: null, request_id: 'boom-1' } });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('at ');
  });

  it('422 names dotted paths with the first complaint per field, unknown keys included', async () => {
    const res = await api.request('/api/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', {
      method: 'POST',
      token,
      json: { lineItems: [{ dropInches: 10, widthInches: 10 }, { dropInches: -1, widthInches: 'wide', colour: 'red' }], extra: true },
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as Envelope;
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details!.fields).toEqual({
      'lineItems.1.dropInches': expect.any(String),
      'lineItems.1.widthInches': expect.any(String),
      'lineItems.1.colour': 'Unrecognized key',
      extra: 'Unrecognized key',
    });
  });

  it('validates path and query too', async () => {
    const badPath = await api.request('/api/v1/test/echo/not-a-uuid', { method: 'POST', token, json: { lineItems: [{ dropInches: 1, widthInches: 1 }] } });
    expect(badPath.status).toBe(422);
    expect(Object.keys(((await badPath.json()) as Envelope).error.details!.fields)).toEqual(['id']);
    const badQuery = await api.request('/api/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10?limit=0', { method: 'POST', token, json: { lineItems: [{ dropInches: 1, widthInches: 1 }] } });
    expect(badQuery.status).toBe(422);
    expect(Object.keys(((await badQuery.json()) as Envelope).error.details!.fields)).toEqual(['limit']);
    const ok = await api.request('/api/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', { method: 'POST', token, json: { lineItems: [{ dropInches: 1, widthInches: 1 }] } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { query: { limit: number } }).query.limit).toBe(25);
  });

  // Uncapped, 50,000 unknown keys answer a 1.4 MB 422.
  it('lists at most the first 50 fields with complaints, and says that more were cut', async () => {
    const body: Record<string, unknown> = { lineItems: [{ dropInches: 1, widthInches: 1 }] };
    for (let i = 0; i < 50_000; i++) body[`k${i}`] = i;
    const res = await api.request('/api/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', { method: 'POST', token, json: body });
    expect(res.status).toBe(422);
    const text = await res.text();
    expect(text.length).toBeLessThan(10_000);
    const envelope = JSON.parse(text) as Envelope;
    const fields = Object.keys(envelope.error.details!.fields);
    expect(fields).toEqual(Array.from({ length: 50 }, (_, i) => `k${i}`));
    expect(envelope.error.message).toMatch(/first 50 of 50000/);
    // Under the cap nothing is said about cutting.
    const few = await api.request('/api/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', { method: 'POST', token, json: { lineItems: [], extra: 1 } });
    expect(((await few.json()) as Envelope).error.message).toBe('The request did not pass validation.');
  });

  it('reports a __proto__ key like any other unknown key, in the body and in the query', async () => {
    const res = await api.request('/api/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10', {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: '{"lineItems":[{"dropInches":1,"widthInches":1,"__proto__":{"x":1}}],"__proto__":{"polluted":true}}',
    });
    expect(res.status).toBe(422);
    const fields = ((await res.json()) as Envelope).error.details!.fields;
    expect(Object.entries(fields).sort()).toEqual([
      ['__proto__', 'Unrecognized key'],
      ['lineItems.0.__proto__', 'Unrecognized key'],
    ]);
    const query = await api.request('/api/v1/test/echo/6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10?__proto__=1', { method: 'POST', token, json: { lineItems: [{ dropInches: 1, widthInches: 1 }] } });
    expect(query.status).toBe(422);
    expect(Object.keys(((await query.json()) as Envelope).error.details!.fields)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  // Left to Node, these are answered with an empty body, not our envelope.
  it('a 60 KB header is a 431 in the envelope, and a request that is not HTTP a 400', async () => {
    const big = await rawExchange(`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(60 * 1024)}\r\n\r\n`);
    expect(big.head).toMatch(/^HTTP\/1\.1 431 /);
    expect(big.head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(big.body)).toEqual({ error: { code: 'bad_request', message: expect.any(String), details: null, request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    const garbage = await rawExchange('NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.head).toMatch(/^HTTP\/1\.1 400 /);
    expect((JSON.parse(garbage.body) as Envelope).error.code).toBe('bad_request');
  });

  // Requests Node's HTTP parser refuses never reach Express: each answers 4xx in the shape of the
  // interface it was sent to (D10: a problem under /v1/, the section 7 envelope under /api/).
  const head = (method: string, target: string) => `${method} ${target} HTTP/1.1\r\nHost: x\r\n`;
  const BIG = 'a'.repeat(20 * 1024);
  const RAW_CASES: [name: string, status: number, request: (target: string) => string | string[]][] = [
    ['Content-Length with Transfer-Encoding: chunked', 400, (t) => `${head('POST', t)}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    ['a Transfer-Encoding that does not end in chunked', 400, (t) => `${head('POST', t)}Transfer-Encoding: chunked, gzip\r\n\r\n2\r\n{}\r\n0\r\n\r\n`],
    ['a chunk size that is not hexadecimal', 400, (t) => `${head('POST', t)}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
    ['chunk data longer than its size', 400, (t) => `${head('POST', t)}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}}}\r\n0\r\n\r\n`],
    ['a control character in a header name', 400, (t) => `${head('GET', t)}X-Bad\x01: y\r\n\r\n`],
    ['a space before a header\'s colon', 400, (t) => `${head('GET', t)}X-Spaced : y\r\n\r\n`],
    ['a NUL in a header value', 400, (t) => `${head('GET', t)}X-Value: a\x00b\r\n\r\n`],
    ['a CR without LF in the head', 400, (t) => `${head('GET', t)}X-A: b\rX-C: d\r\n\r\n`],
    ['a folded header line', 400, (t) => `${head('GET', t)}X-A: b\r\n c\r\n\r\n`],
    ['two Content-Length headers with different values', 400, (t) => `${head('POST', t)}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`],
    ['a Content-Length that is not a number', 400, (t) => `${head('POST', t)}Content-Length: 1x\r\n\r\na`],
    ['an HTTP version that does not exist', 400, (t) => `GET ${t} HTTP/9.9\r\nHost: x\r\n\r\n`],
    ['a method that is not a token', 400, (t) => `G@T ${t} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['a space inside the request target', 400, (t) => `GET ${t} x HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['the absolute form, refused the same way', 400, (t) => `GET http://x${t} HTTP/9.9\r\nHost: x\r\n\r\n`],
    ['headers over 16 KiB', 431, (t) => `${head('GET', t)}X-Padding: ${BIG}\r\n\r\n`],
    ['headers over 16 KiB, sent in pieces', 431, (t) => [`${head('GET', t)}X-Padding: `, BIG.slice(0, 8192), BIG.slice(8192), '\r\n\r\n']],
    ['a request line sent in pieces, then a bad header', 400, (t) => [`GET ${t.slice(0, 4)}`, `${t.slice(4)} HTTP/1.1\r\nHost: x\r\n`, 'X-Bad\x01: y\r\n\r\n']],
    ['a bad request after a good one on the same connection', 400, (t) => ['GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n', `${head('POST', t)}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`]],
    ['a bad request pipelined behind a good one', 400, (t) => `GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n${head('POST', t)}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
  ];
  const lastAnswer = (text: { head: string; body: string }) => {
    // After a good request on the connection, its answer comes first: read the last one.
    const whole = `${text.head}\r\n\r\n${text.body}`;
    const at = whole.lastIndexOf('HTTP/1.1 ');
    const split = whole.indexOf('\r\n\r\n', at);
    return { head: whole.slice(at, split), body: whole.slice(split + 4) };
  };
  it.each(RAW_CASES)('under /v1/, %s is a %d problem document', async (_name, status, request) => {
    const answer = lastAnswer(await rawExchange(request('/v1/fsm/jobs')));
    expect(answer.head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(answer.head).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    expect(JSON.parse(answer.body)).toEqual({ type: 'validation-failed', title: 'The request is malformed.', status, detail: expect.any(String), request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });
  it.each(RAW_CASES)('under /api/, %s is a %d envelope', async (_name, status, request) => {
    const answer = lastAnswer(await rawExchange(request('/api/v1/quotes')));
    expect(answer.head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(answer.head).toMatch(/\r\ncontent-type: application\/json/i);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'bad_request', message: expect.any(String), details: null, request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
  });
  it('says what the parser refused, in its own words and nothing of the request', async () => {
    const answer = await rawExchange(`${head('POST', '/v1/fsm/jobs')}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    expect((JSON.parse(answer.body) as { detail: string }).detail).toBe("The request is not valid HTTP: Transfer-Encoding can't be present with Content-Length.");
  });

  it('a body that is not JSON is a 400 in the envelope', async () => {
    const res = await api.request('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"subdomain": ' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Envelope).error).toMatchObject({ code: 'bad_request', details: null });
  });
});
