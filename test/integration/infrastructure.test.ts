import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { route } from '../../api/http/route';
import { SETTING_NAMES } from '../../infra/runtime/settings';
import { ConnectorStatus } from '../../api/connectors/routes';
import { RouteTable } from '../../api/meta/routes';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi({
    extraRoutes: (host) =>
      route(host, {
        method: 'put',
        path: '/api/v1/added-in-code/:id',
        operationId: 'addedInCode',
        summary: 'A route that exists only in this test',
        description: 'Test only.',
        tags: ['test'],
        auth: 'bearer',
        responses: { 204: { description: 'nothing' } },
        handler: ({ res }) => void res.status(204).end(),
      }),
  });
});
afterAll(() => api.close());

describe('GET /api/routes', () => {
  it('is generated from the router, sorted by path then method, and lists a route added in code', async () => {
    const res = await api.request('/api/routes');
    expect(res.status).toBe(200);
    const table = RouteTable.parse(await res.json());
    expect(table.count).toBe(table.routes.length);
    const keys = table.routes.map((r) => `${r.path} ${r.method}`);
    const sorted = [...table.routes].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path < b.path ? -1 : 1));
    expect(table.routes).toEqual(sorted);
    expect(keys).toEqual(expect.arrayContaining(['/api/health GET', '/api/routes GET', '/api/connectors GET', '/api/v1/auth/login POST', '/api/v1/auth/me GET', '/api/v1/added-in-code/{id} PUT']));
    // Paths and methods only: no handlers, schemas or configuration (a path may name a schema,
    // as /v1/graphql/schema.graphql does; no route carries any other key).
    const raw = (await (await api.request('/api/routes')).json()) as { routes: Record<string, unknown>[] };
    for (const r of raw.routes) expect(Object.keys(r).sort()).toEqual(['method', 'path']);
    const text = JSON.stringify(table);
    expect(text).not.toMatch(/handler/i);
    for (const setting of SETTING_NAMES) expect(text).not.toContain(setting);
  });
});

describe('GET /api/connectors (D9)', () => {
  const cases: [string, Record<string, string | undefined>, string[]][] = [
    ['nothing configured', {}, ['operator_credentials_missing', 'operator_credentials_missing', 'operator_credentials_missing']],
    [
      'everything configured',
      { PAYMENTS_SECRET_KEY: 'sk_test_x', ACCOUNTING_CLIENT_ID: 'a', ACCOUNTING_CLIENT_SECRET: 'b', CRM_CLIENT_ID: 'c', CRM_CLIENT_SECRET: 'd', CREDENTIAL_ENCRYPTION_KEY: 'k'.repeat(44) },
      ['platform_account_live', 'awaiting_tenant_consent', 'awaiting_tenant_consent'],
    ],
    [
      'client credentials without the encryption key',
      { ACCOUNTING_CLIENT_ID: 'a', ACCOUNTING_CLIENT_SECRET: 'b', CRM_CLIENT_ID: 'c' },
      ['operator_credentials_missing', 'operator_credentials_missing', 'operator_credentials_missing'],
    ],
  ];
  it.each(cases)('%s', async (_name, env, expected) => {
    const blank = Object.fromEntries(['PAYMENTS_SECRET_KEY', 'ACCOUNTING_CLIENT_ID', 'ACCOUNTING_CLIENT_SECRET', 'CRM_CLIENT_ID', 'CRM_CLIENT_SECRET', 'CREDENTIAL_ENCRYPTION_KEY'].map((k) => [k, '']));
    const local = await startApi({ env: { ...blank, ...env } });
    try {
      const res = await local.request('/api/connectors');
      const body = ConnectorStatus.parse(await res.json());
      expect(body.count).toBe(3);
      expect(body.connectors.map((c) => c.slug)).toEqual(['payments', 'accounting', 'crm']);
      expect(body.connectors.map((c) => c.readiness)).toEqual(expected);
      expect(body.connectors.map((c) => c.platform_ready)).toEqual(expected.map((r) => r !== 'operator_credentials_missing'));
      const text = JSON.stringify(body);
      for (const name of SETTING_NAMES) expect(text).not.toContain(name);
    } finally {
      await local.close();
    }
  });
});

describe('GET /openapi.json (section 9.3)', () => {
  it('is a valid OpenAPI 3.1.0 document that covers every listed route', async () => {
    const doc = (await (await api.request('/openapi.json')).json()) as { openapi: string; info: { title: string; version: string }; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.info.title).toMatch(/API$/);
    await SwaggerParser.validate(structuredClone(doc) as never);
    const table = RouteTable.parse(await (await api.request('/api/routes')).json());
    // A page's own scripts, stylesheets and assets are dispatched (and listed) but are not operations of the API.
    for (const r of table.routes.filter((entry) => !/\.(js|css)$|\/assets\/|\{asset\}/.test(entry.path))) {
      expect({ route: `${r.method} ${r.path}`, documented: Boolean(doc.paths[r.path]?.[r.method.toLowerCase()]) }).toEqual({ route: `${r.method} ${r.path}`, documented: true });
    }
    // The login body in the document is the schema that validates it: strict, with the rules of 4.2.
    const login = doc.paths['/api/v1/auth/login']!.post as { requestBody: { content: { 'application/json': { schema: { $ref?: string } } } } };
    expect(JSON.stringify(login.requestBody)).toContain('LoginRequest');
  });
});

describe('GET /docs', () => {
  it('serves the reference page and every asset it references from this app (no CDN)', async () => {
    const res = await api.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) {
      expect(ref.startsWith('/')).toBe(true);
      const asset = await api.request(ref);
      expect({ ref, status: asset.status }).toEqual({ ref, status: 200 });
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect(await (await api.request('/docs/init.js')).text()).toContain('/openapi.json');
  });
});
