import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

/**
 * Every header of a real answer is declared on that response in /openapi.json, and every header
 * the document says is always sent (`required`) is sent: a typed client sees what arrives. The
 * answers are real: every documented operation called once (path ids that exist nowhere, an empty
 * body: the answers a client meets first, 401, 404, 422, and some 2xx), then the answers each header
 * is about: a list with a next page (`Link`), an idempotent POST repeated (`Idempotent-Replayed`),
 * metered `/v1/` successes (`X-RateLimit-*`), a login limit run out (429, `Retry-After`),
 * unauthenticated requests on both interfaces.
 *
 * Headers HTTP itself or the browser is about, the same on every answer and meaningless to a typed
 * client, are left out of the comparison, each with its reason:
 */
const NOT_API_HEADERS: Record<string, string> = {
  'content-type': "the media type, declared as the response's content",
  'content-length': 'HTTP framing',
  'transfer-encoding': 'HTTP framing',
  connection: 'HTTP connection management',
  'keep-alive': 'HTTP connection management',
  date: 'HTTP: when the answer was made',
  etag: "Express's validator of a GET body, for caches",
  vary: 'for caches',
  'cache-control': 'for caches: nothing under /api/ is stored (api/http/security-headers.ts)',
  'content-security-policy': 'browser security, the same on every answer of a kind (api/http/security-headers.ts)',
  'cross-origin-opener-policy': 'browser security (helmet)',
  'cross-origin-resource-policy': 'browser security (helmet)',
  'origin-agent-cluster': 'browser security (helmet)',
  'referrer-policy': 'browser security (helmet)',
  'strict-transport-security': 'browser security, over HTTPS only (helmet)',
  'x-content-type-options': 'browser security (helmet)',
  'x-dns-prefetch-control': 'browser security (helmet)',
  'x-download-options': 'browser security (helmet)',
  'x-frame-options': 'browser security (helmet)',
  'x-permitted-cross-domain-policies': 'browser security (helmet)',
  'x-xss-protection': 'browser security (helmet)',
};

interface HeaderObject {
  required?: boolean;
}
interface Operation {
  security?: unknown[];
  responses: Record<string, { headers?: Record<string, HeaderObject> }>;
  requestBody?: { content: Record<string, { example?: unknown }> };
  parameters?: { name: string; in: string; required?: boolean }[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

const KEY = randomBytes(32).toString('base64');
let owner: pg.Pool;
let api: ApiHarness;
let doc: Document;
let tenant: Tenant;
let admin: string;
let operations: { method: string; template: string; pattern: RegExp; op: Operation }[];
const answers: { method: string; path: string; status: number; headers: Headers }[] = [];

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi({ env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  doc = (await (await api.request('/openapi.json')).json()) as Document;
  operations = Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), template, op, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) })),
  );
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  admin = await api.tokenFor(tenant.users.admin!);
}, 60_000);
afterAll(async () => {
  await api.close();
  await owner.end();
});

/** A real answer, kept for the comparison. */
async function call(method: string, path: string, init: { token?: string; json?: unknown; headers?: Record<string, string>; address?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  // Each phase its own client address, so the walk stays within the broad limit of 300 a minute.
  if (init.address) headers['x-forwarded-for'] = init.address;
  const res = await api.request(path, { method, ...(init.token ? { token: init.token } : {}), ...(init.json !== undefined ? { json: init.json } : {}), headers });
  await res.arrayBuffer();
  answers.push({ method, path: new URL(path, api.url).pathname, status: res.status, headers: res.headers });
  return res;
}

/** A value for a path parameter that names nothing: a fresh uuid, a day, or a word. */
function filled(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => (/date/i.test(name) ? '2026-12-01' : /id$/i.test(name) || name === 'id' ? randomUUID() : 'nothing'));
}

/** What the document says of one real answer's headers: [sent but not declared, declared required but not sent]. */
function compare(answer: (typeof answers)[number]): { operation: string; undeclared: string[]; missing: string[]; unknownStatus?: true } {
  const found = operations.find((o) => o.method === answer.method && o.pattern.test(answer.path));
  const operation = `${answer.method} ${found?.template ?? answer.path} ${answer.status}`;
  const response = found?.op.responses[String(answer.status)];
  if (!found || !response) return { operation, undeclared: [], missing: [], unknownStatus: true };
  const declared = new Map(Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header.required === true]));
  const sent = [...answer.headers.keys()].map((name) => name.toLowerCase()).filter((name) => !(name in NOT_API_HEADERS));
  return {
    operation,
    undeclared: sent.filter((name) => !declared.has(name)),
    missing: [...declared].filter(([name, required]) => required && !answer.headers.has(name)).map(([name]) => name),
  };
}

describe('the headers of real answers are the ones /openapi.json declares', () => {
  it('for every operation called once, and for the answers each header is about', async () => {
    // Every operation once, as a client that has not read the reference yet would call it.
    const walk = `198.18.${Math.floor(Math.random() * 250)}.7`;
    for (const { method, template, op } of operations) {
      // Signing out would end the walk's token; its answer is compared below with a token of its own.
      if (/logout|sign-out/.test(template)) continue;
      const body = op.requestBody?.content['application/json'] ? {} : undefined;
      await call(method, filled(template), { ...(op.security?.length ? { token: admin } : {}), ...(body ? { json: body } : {}), address: walk });
    }
    // Lists with a next page: Link.
    for (let i = 0; i < 2; i++) {
      expect((await call('POST', '/api/v1/webhook-endpoints', { token: admin, json: { url: `http://127.0.0.1:9/hook-${i}`, events: ['*'] } })).status).toBe(201);
    }
    expect((await call('GET', '/api/v1/webhook-endpoints?limit=1', { token: admin })).headers.get('link')).toMatch(/rel="next"/);
    // Metered /v1/ successes, and an idempotent POST repeated with its key.
    expect((await call('GET', '/v1/products?limit=1', { token: admin })).status).toBe(200);
    const customer = doc.paths['/v1/customers']!.post!.requestBody!.content['application/json']!.example;
    const key = { 'Idempotency-Key': randomUUID() };
    expect((await call('POST', '/v1/customers', { token: admin, json: customer, headers: key })).status).toBe(201);
    const again = await call('POST', '/v1/customers', { token: admin, json: customer, headers: key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await call('POST', '/v1/graphql', { token: admin, json: { query: '{ workOrders(first: 1) { nodes { id } } }' } })).status).toBe(200);
    // Unauthenticated on both interfaces; a token signed out.
    expect((await call('GET', '/api/v1/work-orders')).status).toBe(401);
    expect((await call('GET', '/v1/quotes')).status).toBe(401);
    // The login limit run out: 429 with Retry-After.
    const address = `198.19.${Math.floor(Math.random() * 250)}.9`;
    let last = 0;
    for (let i = 0; i < 11; i++) last = (await call('POST', '/api/v1/auth/login', { json: { subdomain: tenant.subdomain, email: 'nobody@example.test', password: 'wrong' }, address })).status;
    expect(last).toBe(429);

    const compared = answers.map(compare);
    const mismatches = compared.filter((c) => c.undeclared.length > 0 || c.missing.length > 0);
    expect(mismatches).toEqual([]);
    // The comparison saw every header it is about.
    const seen = new Set(answers.flatMap((a) => [...a.headers.keys()]));
    for (const header of ['x-request-id', 'service-version', 'ratelimit', 'ratelimit-policy', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'link', 'idempotent-replayed']) {
      expect({ header, seen: seen.has(header) }).toEqual({ header, seen: true });
    }
    expect(compared.filter((c) => !c.unknownStatus).length).toBeGreaterThan(operations.length);
  }, 120_000);
});
