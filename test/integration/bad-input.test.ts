import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { gzipSync } from 'node:zlib';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool } from '../../scripts/harness/owner-db';
import { resolve, type JsonSchema, type OpenApiDocument } from '../support/schema-examples';

/**
 * Input that used to answer 500, refused where it enters instead, walked over every operation of
 * the OpenAPI document: a body whose Content-Encoding lies (the body reader), a path parameter
 * whose percent-encoding does not decode (the path decoder), and a date or time of year 0000 or
 * past 9999 (the date rule). Lone surrogates (the string rule) are walked with NUL in
 * text-fields.test.ts. Each answer is in its interface's shape: section 7's envelope under /api/,
 * D10's problem under /v1/.
 */
interface Parameter {
  name: string;
  in: string;
  schema?: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema: JsonSchema }> };
}
type Document = OpenApiDocument & { paths: Record<string, Record<string, Operation>> };

let owner: pg.Pool;
let api: ApiHarness;
let token: string;
let doc: Document;

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  const tenant = await createTenant(owner, { admin: 'ADMIN' });
  token = await api.tokenFor(tenant.users.admin!);
  doc = (await (await api.request('/openapi.json')).json()) as Document;
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

const UUID = '6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10';
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

function operations() {
  const all: { method: string; path: string; op: Operation }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) if (METHODS.has(method)) all.push({ method: method.toUpperCase(), path, op });
  }
  return all;
}

interface Answer {
  status: number;
  /** `envelope` (section 7), `problem` (D10), or what else came back. */
  shape: string;
  code: string | undefined;
  /** The dotted paths a 422 names. */
  fields: string[];
}

async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: {
    error?: { code?: string; details?: { fields?: Record<string, string> } | null; request_id?: unknown };
    type?: string;
    status?: number;
    errors?: Record<string, string> | { extensions?: { code?: string; fields?: Record<string, string> } }[];
  } = {};
  // D24: the customer's quote page answers pages, its refusals included.
  if (res.headers.get('content-type')?.startsWith('text/html')) return { status: res.status, shape: 'page', code: undefined, fields: [] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return { status: res.status, shape: `not JSON: ${text.slice(0, 60)}`, code: undefined, fields: [] };
  }
  if (body.error && typeof body.error.code === 'string' && 'request_id' in body.error) {
    return { status: res.status, shape: 'envelope', code: body.error.code, fields: Object.keys(body.error.details?.fields ?? {}) };
  }
  if (typeof body.type === 'string' && body.status === res.status && res.headers.get('content-type')?.startsWith('application/problem+json')) {
    return { status: res.status, shape: 'problem', code: body.type, fields: Object.keys(body.errors ?? {}) };
  }
  if (Array.isArray(body.errors) && body.errors[0]?.extensions?.code) {
    return { status: res.status, shape: 'graphql', code: body.errors[0].extensions.code, fields: Object.keys(body.errors[0].extensions.fields ?? {}) };
  }
  return { status: res.status, shape: `other: ${text.slice(0, 60)}`, code: undefined, fields: [] };
}

/** Section 7 under /api/, D10 under /v1/, GraphQL's own errors for a refused GraphQL request, and D24's page under /q/. */
const shapeOf = (where: string) =>
  where === 'POST /v1/graphql' ? 'graphql' : where.split(' ')[1]!.startsWith('/v1') ? 'problem' : where.split(' ')[1]!.startsWith('/q/') ? 'page' : 'envelope';

function send(method: string, url: string, init: { headers?: Record<string, string>; body?: string | Uint8Array } = {}) {
  return api.request(url, { method, token, headers: init.headers, body: init.body });
}

describe('a body whose Content-Encoding does not match it (the one body reader)', () => {
  const jsonOperations = () => operations().filter(({ op }) => op.requestBody?.content?.['application/json']);

  it.each(['gzip', 'deflate', 'br'])('%s that is not compressed: 400 on every JSON route, in its interface shape', async (encoding) => {
    const ops = jsonOperations();
    expect(ops.length).toBeGreaterThanOrEqual(10);
    const answers: { where: string; status: number; shape: string }[] = [];
    for (const { method, path } of ops) {
      const res = await send(method, path.replace(/\{[^}]+\}/g, UUID), { headers: { 'content-type': 'application/json', 'content-encoding': encoding }, body: '{"name":"not compressed"}' });
      const answer = await answerOf(res);
      answers.push({ where: `${method} ${path}`, status: answer.status, shape: answer.shape });
    }
    expect(answers).toEqual(answers.map(({ where }) => ({ where, status: 400, shape: shapeOf(where) })));
  });

  it('login with a falsely gzipped body is a 400 envelope saying what is wrong', async () => {
    const res = await api.request('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: '{"subdomain":"sandbox","email":"a@b.test","password":"x"}' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('bad_request');
    expect(body.error.message).toMatch(/gzip/);
  });

  it('a truncated gzip stream is a 400 too, and a real one is read as before', async () => {
    const real = gzipSync(JSON.stringify({ subdomain: 'sandbox', email: 'nobody@b.test', password: 'wrong-password' }));
    const truncated = await api.request('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: real.subarray(0, real.length - 6) });
    expect(truncated.status).toBe(400);
    const whole = await api.request('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: real });
    // Read and judged: wrong credentials, not a body error.
    expect(whole.status).toBe(401);
  });

  it.each([
    ['/api/v1/auth/login', 'envelope'],
    ['/v1/quotes', 'problem'],
  ])('an encoding the API does not take is 415 on %s', async (path, shape) => {
    const res = await send('POST', path, { headers: { 'content-type': 'application/json', 'content-encoding': 'compress' }, body: '{}' });
    expect(await answerOf(res)).toMatchObject({ status: 415, shape });
  });
});

describe('a path parameter whose percent-encoding does not decode (the one path decoder)', () => {
  it('is 404 or 422 for every parameter of every operation, in its interface shape', async () => {
    const answers: { where: string; status: number; shape: string }[] = [];
    for (const { method, path } of operations()) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      for (const name of names) {
        const url = path.replace(/\{([^}]+)\}/g, (_m, n: string) => (n === name ? '%FF%FE' : UUID));
        const res = await send(method, url, method === 'GET' || method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' });
        const answer = await answerOf(res);
        answers.push({ where: `${method} ${path} {${name}}`, status: [404, 422].includes(answer.status) ? 404 : answer.status, shape: answer.shape });
      }
    }
    expect(answers.length).toBeGreaterThanOrEqual(15);
    expect(answers).toEqual(answers.map(({ where }) => ({ where, status: 404, shape: shapeOf(where.split(' ').slice(0, 2).join(' ')) })));
  });

  it.each([
    ['/v1/fsm/jobs/%FF%FE', 'problem'],
    ['/api/v1/quotes/%FF%FE', 'envelope'],
    ['/v1/graphql/graphiql/%FF%FE.js', 'problem'],
    ['/api/v1/no-such-route/%FF', 'envelope'],
  ])('GET %s is a 404 in its shape', async (url, shape) => {
    expect(await answerOf(await send('GET', url))).toMatchObject({ status: 404, shape });
  });
});

describe('a date or time of year 0000 or past 9999 (the one date rule)', () => {
  const DATE_FORMATS: Record<string, string[]> = {
    date: ['0000-01-01', '0000-02-29', '10000-01-01'],
    'date-time': ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '10000-01-01T00:00:00Z', '9999-12-31T23:59:59-01:00'],
  };

  /** Every query parameter, and every top-level body field, whose schema is a date or a time. */
  function dateInputs() {
    const inputs: { method: string; path: string; where: 'query' | 'body'; name: string; format: string }[] = [];
    for (const { method, path, op } of operations()) {
      for (const p of op.parameters ?? []) {
        const schema = p.schema ? resolve(doc, p.schema) : {};
        if (p.in === 'query' && schema.format && schema.format in DATE_FORMATS) inputs.push({ method, path, where: 'query', name: p.name, format: schema.format });
      }
      const body = op.requestBody?.content?.['application/json'];
      if (!body) continue;
      const schema = resolve(doc, body.schema);
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const resolved = resolve(doc, property);
        const format = resolved.format ?? resolved.anyOf?.map((b) => resolve(doc, b).format).find(Boolean);
        if (format && format in DATE_FORMATS) inputs.push({ method, path, where: 'body', name, format });
      }
    }
    return inputs;
  }

  it('is a 422 naming the parameter, for every date and time parameter of every operation', async () => {
    const inputs = dateInputs();
    // scheduledOn, updated_since, a work order's scheduledDate, a sign-off's completed_at, a time entry's start and end at least.
    expect(inputs.map((i) => i.name)).toEqual(expect.arrayContaining(['scheduledOn', 'updated_since', 'scheduledDate', 'completed_at', 'started_at', 'ended_at']));
    const answers: { where: string; status: number; shape: string; named: boolean }[] = [];
    for (const input of inputs) {
      for (const value of DATE_FORMATS[input.format]!) {
        const url = input.path.replace(/\{[^}]+\}/g, UUID);
        const res =
          input.where === 'query'
            ? await send(input.method, `${url}?${input.name}=${encodeURIComponent(value)}`)
            : await send(input.method, url, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [input.name]: value }) });
        const answer = await answerOf(res);
        answers.push({ where: `${input.method} ${input.path} ${input.name}=${value}`, status: answer.status, shape: answer.shape, named: answer.fields.includes(input.name) });
      }
    }
    expect(answers).toEqual(answers.map(({ where }) => ({ where, status: 422, shape: shapeOf(where.split(' ').slice(0, 2).join(' ')), named: true })));
  });

  it('the first and last days the rule allows are still taken', async () => {
    for (const day of ['0001-01-01', '9999-12-31']) {
      const res = await send('GET', `/api/v1/work-orders?scheduledOn=${day}`);
      expect({ day, status: res.status }).toEqual({ day, status: 200 });
    }
    const res = await send('GET', `/v1/fsm/jobs?updated_since=${encodeURIComponent('0001-01-01T00:00:00Z')}`);
    expect(res.status).toBe(200);
  });
});
