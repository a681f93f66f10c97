import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { request as httpRequest } from 'node:http';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { EVENT_NAMES, EVENTS_EVENT_NAMES, FIELD_EVENT_NAMES, type EventName } from '../../domain/events/catalogue';
import { EVENT_DATA_SCHEMAS } from '../../domain/events/event-data';
import { EVENT_SCHEMAS } from '../../api/events/schemas';
import { TAGS } from '../../api/meta/openapi';
import { checkRecordedEvents } from '../support/recorded-events';
import { internalReferences, openApiWording } from '../support/reference-wording';

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
}
interface Document {
  info: { description?: string };
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
}

let owner: pg.Pool;
let api: ApiHarness;
let doc: Document;
let text: string;
let tenant: Tenant;

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  text = await (await api.request('/openapi.json')).text();
  doc = JSON.parse(text) as Document;
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

const operations = (group: Record<string, Record<string, Operation>>) =>
  Object.entries(group).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

describe("Redocly's recommended ruleset", () => {
  it('reports no error and no warning on /openapi.json', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: 'http://127.0.0.1/openapi.json', config });
    // Readable on failure: rule, severity, where and what.
    expect(problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`)).toEqual([]);
  });

  it('still catches a broken example, so the check above can fail', async () => {
    const broken = JSON.parse(text) as Document;
    const login = broken.paths['/api/v1/auth/login']!.post!.requestBody!.content['application/json']!;
    login.example = { ...(login.example as object), subdomain: 42 };
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: 'http://127.0.0.1/openapi.json', config });
    expect(problems.map((p) => p.ruleId)).toContain('no-invalid-media-type-examples');
  });
});

describe('what generated clients need from the document', () => {
  it('names every operation once, describes it, and says what authenticates it', () => {
    const all = [...operations(doc.paths), ...operations(doc.webhooks)];
    expect(all.length).toBeGreaterThan(35);
    const ids = all.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(all.length);
    const declaredTags = new Set<string>(TAGS.map((t) => t.name));
    for (const { path, method, op } of all) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, operationId: /^[a-z][A-Za-z0-9]+$/.test(op.operationId ?? '') }).toEqual({ where, operationId: true });
      expect({ where, description: (op.description ?? '').length > 20, summary: Boolean(op.summary) }).toEqual({ where, description: true, summary: true });
      expect({ where, tagsDeclared: (op.tags ?? []).every((t) => declaredTags.has(t)) }).toEqual({ where, tagsDeclared: true });
      expect({ where, security: Array.isArray(op.security) }).toEqual({ where, security: true });
    }
    expect(doc.tags?.every((t) => (t.description ?? '').length > 0)).toBe(true);
  });

  it('reads as product docs: no decision id, section number or tracker number in any summary or description it serves', () => {
    const wording = openApiWording(doc);
    expect(wording.length).toBeGreaterThan(500);
    expect(internalReferences(wording)).toEqual([]);
  });

  it("its introduction tells each interface's errors and paging as they answer", () => {
    const intro = doc.info.description ?? '';
    expect(intro).toMatch(/under `\/v1\/` RFC 9457 problem details/);
    expect(intro).toMatch(/`\/api\/` lists answer a `Link: <\.\.\.>; rel="next"` header/);
    expect(intro).toMatch(/`\/v1\/` lists answer `next_cursor`/);
    expect(intro).not.toMatch(/\bD\d+\b|section \d/i);
  });

  it("lists operations of the API only: a page's own scripts, stylesheets and assets are served but not documented", async () => {
    const plumbing = Object.keys(doc.paths ?? {}).filter((path) => /\.(js|css|map|png|svg)$|\/assets\/|\{asset\}/.test(path));
    expect(plumbing).toEqual([]);
    for (const asset of ['/docs/init.js', '/developer/assets/webhooks.js', '/developer/assets/webhooks.css', '/v1/graphql/graphiql/init.js']) {
      // A pooled connection the server closed while Redocly ran may be reset once: ask again.
      const res = await api.request(asset).catch(() => api.request(asset));
      await res.arrayBuffer();
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
    }
  });

  it('has an example for every request and response body', () => {
    const missing: string[] = [];
    for (const { path, method, op } of [...operations(doc.paths), ...operations(doc.webhooks)]) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) if (media.example === undefined) missing.push(`${method} ${path} request ${type}`);
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) if (media.example === undefined) missing.push(`${method} ${path} ${status} ${type}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('serves relative to its own origin by default, and names PUBLIC_BASE_URL when it is set', async () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    const deployed = await startApi({ env: { PUBLIC_BASE_URL: 'https://shades.example.test/' } });
    try {
      const other = (await (await deployed.request('/openapi.json')).json()) as Document;
      expect(other.servers?.map((s) => s.url)).toEqual(['https://shades.example.test']);
    } finally {
      await deployed.close();
    }
  });
});

describe('security in the document is what the guard does', () => {
  /** A concrete path for a templated one: a uuid for ids, a provider for {provider}. */
  const concrete = (path: string) => path.replace('{id}', '00000000-0000-4000-8000-000000000000').replace('{provider}', 'accounting');

  it('every /api/v1 operation without a token: public ones are let through, bearer ones answer 401', async () => {
    const seen = { public: 0, bearer: 0 };
    for (const { path, method, op } of operations(doc.paths)) {
      if (!path.startsWith('/api/v1/')) continue;
      const res = await api.request(concrete(path), { method: method.toUpperCase(), ...(method === 'get' || method === 'delete' ? {} : { json: {} }) });
      const body = await res.text();
      const isPublic = op.security?.length === 0;
      const where = `${method.toUpperCase()} ${path}`;
      if (isPublic) {
        seen.public += 1;
        expect({ where, guarded: res.status === 401 && body.includes('"unauthenticated"') }).toEqual({ where, guarded: false });
      } else {
        seen.bearer += 1;
        expect(op.security).toEqual([{ bearerAuth: [] }]);
        expect({ where, status: res.status }).toEqual({ where, status: 401 });
      }
    }
    // login, the OAuth callback, the payments webhook, and D20's accepting an invitation, asking for a reset and confirming it
    expect(seen.public).toBe(6);
    expect(seen.bearer).toBeGreaterThan(20);
  });
});

describe('examples that work when sent', () => {
  it("the calculate request example prices on the sandbox rate card to exactly the documented result", async () => {
    const op = doc.paths['/api/v1/quotes/calculate']!.post!;
    const requestExample = op.requestBody!.content['application/json']!.example as Record<string, unknown>;
    const responseExample = op.responses['200']!.content!['application/json']!.example as Record<string, unknown>;
    const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: await api.tokenFor(tenant.users.sales!), json: requestExample });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    // Only what identifies the persisted quote differs.
    expect({ ...body, quote_id: 'x', quote_number: 0 }).toEqual({ ...responseExample, quote_id: 'x', quote_number: 0 });
    expect(body.persisted).toBe(true);
  });

  it('the login example has the shape the endpoint accepts (the sandbox answers it when seeded)', async () => {
    const example = doc.paths['/api/v1/auth/login']!.post!.requestBody!.content['application/json']!.example as Record<string, string>;
    const res = await api.request('/api/v1/auth/login', { method: 'POST', json: example });
    // The test database is seeded with the sandbox (D1), so its ADMIN logs in.
    expect(res.status).toBe(200);
  });

  it('GET /api/health documents a 400 for a body that is not JSON, and answers it', async () => {
    expect(doc.paths['/api/health']!.get!.responses['400']).toBeDefined();
    const url = new URL('/api/health', api.url);
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = '{"not json';
      const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(sent)), 'x-forwarded-for': api.clientAddress };
      const req = httpRequest(url, { method: 'GET', headers }, (res) => {
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
      });
      req.on('error', reject);
      req.end(sent);
    });
    expect(status).toBe(400);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'bad_request' } });
  });
});

describe('outbound events under webhooks (section 6)', () => {
  it('has one webhook per catalogue event of every format (D13), with its envelope schema', () => {
    const expected = [...EVENT_NAMES, ...FIELD_EVENT_NAMES.map((e) => `field:${e}`), ...EVENTS_EVENT_NAMES.map((e) => `events:${e}`)];
    expect(Object.keys(doc.webhooks).sort()).toEqual(expected.sort());
    for (const name of expected) {
      const [format, event] = name.includes(':') ? name.split(':') : ['core', name];
      const body = doc.webhooks[name]!.post!.requestBody!.content['application/json'] as { schema: { $ref: string }; example: Record<string, unknown> };
      if (format === 'core') {
        expect(body.schema.$ref).toMatch(/^#\/components\/schemas\/(QuoteApproved|WorkOrder\w+|PricebookPublished|DispatchUpdated)Event$/);
        expect(body.example.event).toBe(event);
      } else {
        expect(body.schema.$ref).toMatch(format === 'field' ? /^#\/components\/schemas\/Field\w+Event$/ : /^#\/components\/schemas\/Events\w+Event$/);
        expect(format === 'field' ? body.example.event : body.example.type).toBe(event);
      }
    }
  });

  it('the core events are documented as before: the data of each is its one schema, inline', () => {
    for (const event of EVENT_NAMES) {
      const component = (doc as unknown as { components: { schemas: Record<string, { properties: { data: { $ref?: string; properties?: object } } }> } }).components.schemas[
        (doc.webhooks[event]!.post!.requestBody!.content['application/json'] as { schema: { $ref: string } }).schema.$ref.split('/').at(-1)!
      ]!;
      expect(component.properties.data.$ref).toBeUndefined();
      expect(Object.keys(component.properties.data.properties!).sort()).toEqual(Object.keys(EVENT_DATA_SCHEMAS[event].shape).sort());
    }
  });

  it('the events the API records parse with the published schemas, every one of them', async () => {
    const admin = await api.tokenFor(tenant.users.admin!);
    const sales = await api.tokenFor(tenant.users.sales!);
    const calc = await api.request('/api/v1/quotes/calculate', {
      method: 'POST',
      token: sales,
      json: { laborTierCode: 'STANDARD', persist: true, lineItems: [{ widthInches: 40, dropInches: 50, quantity: 1, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD' }] },
    });
    const quoteId = ((await calc.json()) as { quote_id: string }).quote_id;
    expect((await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token: sales })).status).toBe(200);
    const create = async () => ((await (await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { quoteId, assignedTechnicianId: tenant.users.tech!.id } })).json()) as { id: string }).id;
    const move = async (id: string, status: string) => expect((await api.request(`/api/v1/work-orders/${id}/status`, { method: 'PATCH', token: admin, json: { status } })).status).toBe(200);
    const first = await create();
    for (const status of ['DISPATCHED', 'PENDING', 'DISPATCHED', 'COMPLETED']) await move(first, status);
    const second = await create();
    await move(second, 'CANCELLED');
    // Without a token's quote: the nullable fields as they are sent.
    const bare = ((await (await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: {} })).json()) as { id: string }).id;
    await move(bare, 'CANCELLED');
    // D21: a price book revision published (its pricebook.published goes to core and events endpoints).
    const book = (await (await api.request(`/v1/pricebooks/${tenant.id}`, { token: admin })).json()) as { revision: string };
    const published = await api.request(`/v1/pricebooks/${tenant.id}/revisions`, { method: 'POST', token: admin, json: { base_revision: book.revision, changes: [{ op: 'set_setting', field: 'margin_floor', value: '0.36' }] } });
    expect(published.status).toBe(201);
    // D23: a crew's day set by hand (its dispatch.updated goes to every format).
    await owner.query('update organizations set depot_lat = 43.6532, depot_lon = -79.3832 where id = $1', [tenant.id]);
    const routed = ((await (await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { assignedTechnicianId: tenant.users.tech!.id, scheduledDate: '2026-12-03', siteAddress: '1 Route Rd' } })).json()) as { id: string }).id;
    const site = ((await (await api.request(`/v1/fsm/jobs/${routed}`, { token: admin })).json()) as { site: { site_id: string } }).site.site_id;
    expect((await api.request(`/v1/fsm/sites/${site}`, { method: 'PATCH', token: admin, json: { lat: 43.6677, lon: -79.3948 } })).status).toBe(200);
    const crew = (await owner.query<{ id: string }>('select id from crews where foreman_user_id = $1', [tenant.users.tech!.id])).rows[0]!.id;
    expect((await api.request(`/v1/fsm/routes/2026-12-03/${crew}`, { method: 'PUT', token: admin, json: { stops: [routed] } })).status).toBe(200);

    // The core catalogue's events (D13: quote.created and invoice.generated are the field and events formats').
    const { rows } = await owner.query<{ event: EventName; envelope: unknown }>('select event, envelope from outbox_events where organization_id = $1 and event = any($2) order by sequence', [
      tenant.id,
      [...EVENT_NAMES],
    ]);
    expect(new Set(rows.map((r) => r.event))).toEqual(new Set(EVENT_NAMES));
    for (const row of rows) {
      const parsed = EVENT_SCHEMAS[row.event].safeParse(row.envelope);
      expect({ event: row.event, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ event: row.event, issues: [] });
    }
    // Every event of the tenant, of every format, as each format sends it: the job's events of the
    // moves above and quote.created among them.
    const checked = await checkRecordedEvents(owner, [tenant.id]);
    expect(checked.filter((c) => c.problems.length > 0)).toEqual([]);
    expect(new Set(checked.map((c) => c.event))).toEqual(new Set([...EVENT_NAMES, 'quote.created', 'job.status_changed', 'job.dispatched', 'job.completed']));
  });
});
