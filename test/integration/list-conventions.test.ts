import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { openApiDocument } from '../../scripts/openapi-document';
import { nextLink } from '../support/link-header';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';
import { WebhookEndpointList } from '../../api/webhooks/schemas';
import { CrewList } from '../../api/fsm/schemas';
import { SiteList, TechnicianList } from '../../api/fsm/routing-schemas';

/**
 * docs/conventions.md: every list answers one way within its interface. `/api/`: the next page in
 * `Link: rel="next"`, and `next_cursor` where the body has room; `/v1/`: `{data, next_cursor,
 * has_more}`. Cursors are opaque. The document is walked for every list operation, and the lists
 * that had no paging (crews, webhook endpoints) and the `/v1/` lists are walked to their end.
 */
let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
let other: Tenant;
let admin: string;
let otherAdmin: string;

/** Lists bounded by nature, answered whole: why each needs no paging. */
const WHOLE_LISTS: Record<string, string> = {
  '/api/versions': 'the dated versions of the API, a handful',
  '/api/v1/integrations': 'the three providers a workspace can connect',
  '/v1/pricebooks': 'one price book per workspace',
  '/v1/fsm/routes': 'one day’s plan: a route per crew, with what was left out and why',
};

type Schema = { $ref?: string; type?: string; properties?: Record<string, Schema> };
type Operation = { parameters?: { name: string; in: string }[]; responses?: Record<string, { headers?: Record<string, { example?: string; schema?: { example?: string } }>; content?: Record<string, { schema: Schema }> }> };

const document = openApiDocument() as unknown as { paths: Record<string, { get?: Operation }>; components: { schemas: Record<string, Schema> } };
const resolve = (schema: Schema | undefined): Schema | undefined => (schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema);

/** Every GET whose answer is a list (`data` is an array), with its keys and paging parameters. */
function listOperations() {
  return Object.entries(document.paths).flatMap(([path, item]) => {
    const ok = item.get?.responses?.['200'];
    const body = resolve(ok?.content?.['application/json']?.schema);
    if (!body?.properties?.data || resolve(body.properties.data)?.type !== 'array') return [];
    return [{ path, keys: Object.keys(body.properties), link: ok?.headers?.Link, cursor: (item.get!.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cursor') }];
  });
}

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', t1: 'TECHNICIAN', t2: 'TECHNICIAN', t3: 'TECHNICIAN', t4: 'TECHNICIAN', t5: 'TECHNICIAN' });
  other = await createTenant(owner, { admin: 'ADMIN', t1: 'TECHNICIAN' });
  for (const t of [tenant, other]) {
    await giveRateCard(t.id, SANDBOX_RATE_CARD);
    await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [t.id]);
    for (const p of SANDBOX_PRODUCTS) {
      await owner.query(
        'insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)',
        [t.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null],
      );
    }
  }
  admin = await api.tokenFor(tenant.users.admin!);
  otherAdmin = await api.tokenFor(other.users.admin!);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

describe('the document: one paging rule per interface', () => {
  it('every /v1/ list answers {data, next_cursor, has_more} and takes a cursor; every /api/ list documents Link and takes a cursor', () => {
    const lists = listOperations();
    expect(lists.map((l) => l.path)).toEqual(expect.arrayContaining(['/v1/fsm/crews', '/v1/fsm/technicians', '/v1/fsm/sites', '/api/v1/webhook-endpoints', '/v1/quotes', '/v1/customers', '/api/v1/quotes']));
    const departures = lists
      .filter((l) => !(l.path in WHOLE_LISTS))
      .flatMap((l) => {
        const wrong: string[] = [];
        if (!l.cursor) wrong.push('no cursor parameter');
        if (l.path.startsWith('/v1/')) {
          if (!l.keys.includes('next_cursor') || !l.keys.includes('has_more')) wrong.push(`keys ${l.keys.join(', ')}`);
        } else if (!l.link) {
          wrong.push('no Link header');
        }
        return wrong.map((w) => `${l.path}: ${w}`);
      });
    expect(departures).toEqual([]);
    // The whole lists are exactly those, and still lists.
    expect(lists.filter((l) => l.path in WHOLE_LISTS).map((l) => l.path).sort()).toEqual(Object.keys(WHOLE_LISTS).sort());
  });

  it("each list's Link example names that list (the quotes list's names the quotes list)", () => {
    for (const list of listOperations().filter((l) => l.link)) {
      const example = list.link!.example ?? list.link!.schema?.example;
      const url = new URL(/^<([^>]+)>; rel="next"$/.exec(example ?? '')![1]!);
      if (list.path === '/api/v1/quotes' || list.path === '/api/v1/webhook-endpoints') expect(url.pathname).toBe(list.path);
    }
  });
});

/** Walks a /v1/ list by next_cursor to its end; answers every page. */
async function walkV1(path: string, token = admin): Promise<{ data: Record<string, unknown>[]; next_cursor: string | null; has_more: boolean }[]> {
  const pages = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const res = await api.request(`${path}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    const page = (await res.json()) as { data: Record<string, unknown>[]; next_cursor: string | null; has_more: boolean };
    expect(Object.keys(page).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    pages.push(page);
    cursor = page.has_more ? page.next_cursor : null;
    if (page.has_more) expect(page.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(pages.length).toBeLessThan(50);
  } while (cursor);
  return pages;
}

describe('the /v1/ lists, walked', () => {
  beforeAll(async () => {
    for (let i = 1; i <= 5; i += 1) {
      const res = await api.request('/v1/fsm/crews', { method: 'POST', token: admin, json: { name: `Crew ${String.fromCharCode(70 - i)}`, foreman_id: tenant.users[`t${i}`]!.id } });
      expect(res.status).toBe(201);
    }
    expect((await api.request('/v1/fsm/crews', { method: 'POST', token: otherAdmin, json: { name: 'Crew Elsewhere', foreman_id: other.users.t1!.id } })).status).toBe(201);
    for (let i = 0; i < 5; i += 1) {
      const customer = await api.request('/v1/customers', { method: 'POST', token: admin, json: { name: `Walker ${i}`, email: `walker${i}@example.test` } });
      expect(customer.status).toBe(201);
      const customerId = ((await customer.json()) as { id: string }).id;
      const quote = await api.request('/v1/quotes', {
        method: 'POST',
        token: admin,
        json: { customerId, currency: 'CAD', taxRegion: 'CA-ON', pricebookId: tenant.id, lines: [{ sku: 'ROLLER-SCREEN', quantity: 1, configuration: { finishedWidthIn: 40 + i, finishedHeightIn: 50, controlSide: 'left' } }] },
      });
      expect(quote.status).toBe(201);
    }
  });

  it('crews: by name, two at a time, every crew once, has_more false only on the last page; another tenant sees none of them', async () => {
    const pages = await walkV1('/v1/fsm/crews?limit=2');
    expect(pages.map((p) => [p.data.length, p.has_more])).toEqual([[2, true], [2, true], [1, false]]);
    expect(pages.at(-1)!.next_cursor).toBeNull();
    const names = pages.flatMap((p) => CrewList.parse(p).data.map((c) => c.name));
    expect(names).toEqual(['Crew A', 'Crew B', 'Crew C', 'Crew D', 'Crew E']);
    const theirs = await walkV1('/v1/fsm/crews?limit=2', otherAdmin);
    expect(theirs.flatMap((p) => p.data.map((c) => c.name))).toEqual(['Crew Elsewhere']);
    // A technician pages through their own crews only.
    const own = await walkV1('/v1/fsm/crews?limit=1', await api.tokenFor(tenant.users.t3!));
    expect(own.flatMap((p) => p.data.map((c) => c.name))).toEqual(['Crew C']);
  });

  it('technicians and sites: by name, two at a time, every one once; another tenant sees none of them', async () => {
    const technicians = await walkV1('/v1/fsm/technicians?limit=2');
    expect(technicians.map((p) => [p.data.length, p.has_more])).toEqual([[2, true], [2, true], [1, false]]);
    const techIds = technicians.flatMap((p) => TechnicianList.parse(p).data.map((t) => t.technician_id));
    expect(techIds).toEqual(['t1', 't2', 't3', 't4', 't5'].map((key) => tenant.users[key]!.id));
    const theirTechnicians = await walkV1('/v1/fsm/technicians?limit=2', otherAdmin);
    expect(theirTechnicians.flatMap((p) => p.data.map((t) => t.technician_id))).toEqual([other.users.t1!.id]);

    // Sites as jobs make them: one per address of the workspace.
    const names = ['Site E', 'Site C', 'Site A', 'Site D', 'Site B'];
    for (const [i, name] of names.entries()) {
      await owner.query(`insert into sites (organization_id, name, region, address_key) values ($1, $2, 'CA-ON', $3)`, [tenant.id, name, `walk-${i}`]);
    }
    await owner.query(`insert into sites (organization_id, name, region, address_key) values ($1, 'Site Elsewhere', 'CA-ON', 'walk-other')`, [other.id]);
    const sites = await walkV1('/v1/fsm/sites?limit=2');
    expect(sites.map((p) => [p.data.length, p.has_more])).toEqual([[2, true], [2, true], [1, false]]);
    expect(sites.flatMap((p) => SiteList.parse(p).data.map((site) => site.name))).toEqual([...names].sort());
    for (const page of sites.filter((p) => p.has_more)) expect(page.next_cursor).not.toBe(page.data.at(-1)!.site_id);
    const theirSites = await walkV1('/v1/fsm/sites', otherAdmin);
    expect(theirSites.flatMap((p) => p.data.map((site) => site.name))).toEqual(['Site Elsewhere']);
  });

  it('products, customers and quotes: each row once, cursors opaque', async () => {
    const products = (await walkV1('/v1/products?limit=2')).flatMap((p) => p.data.map((row) => row.sku));
    expect(products).toEqual(SANDBOX_PRODUCTS.map((p) => p.sku).sort());
    const customers = (await walkV1('/v1/customers?limit=2')).flatMap((p) => p.data.map((row) => row.id));
    expect(new Set(customers).size).toBe(5);
    const quotePages = await walkV1('/v1/quotes?limit=2');
    const quotes = quotePages.flatMap((p) => p.data.map((row) => row.id));
    expect(new Set(quotes).size).toBe(5);
    // Opaque: a cursor is not the last row's id or sku.
    for (const page of quotePages.filter((p) => p.has_more)) expect(page.next_cursor).not.toBe(page.data.at(-1)!.id);
  });

  it('a cursor a /v1/ list did not hand out is a 400 validation-failed problem, on every /v1/ list', async () => {
    // Lists ordered by name then id share a position's shape: a crew's cursor there is a name to start after, not a foreign cursor.
    const BY_NAME = ['/v1/fsm/crews', '/v1/fsm/technicians', '/v1/fsm/sites'];
    const crewCursor = (await walkV1('/v1/fsm/crews?limit=2'))[0]!.next_cursor!;
    for (const list of ['/v1/fsm/crews', '/v1/fsm/technicians', '/v1/fsm/sites', '/v1/products', '/v1/customers', '/v1/quotes', '/v1/fsm/jobs']) {
      for (const cursor of ['%%%', 'bm90IGpzb24', Buffer.from('[1,2,3]').toString('base64url'), ...(BY_NAME.includes(list) ? [] : [crewCursor])]) {
        const res = await api.request(`${list}?cursor=${encodeURIComponent(cursor)}`, { token: admin });
        expect({ list, cursor, status: res.status }).toEqual({ list, cursor, status: 400 });
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(((await res.json()) as { type: string }).type).toBe('validation-failed');
      }
    }
  });
});

describe('GET /api/v1/webhook-endpoints, paged', () => {
  it('follows Link to the end, next_cursor beside it; the last page has neither; another tenant sees none', async () => {
    // Rows as registration writes them (nothing is ever delivered to them here).
    const { rows } = await owner.query<{ id: string }>(
      `insert into webhook_endpoints (organization_id, url, events, status, secret_ciphertext, secret_key_id, created_at)
       select $1, 'https://hooks.example.test/' || n, array['quote.approved'], 'enabled', 'sealed', 'k1', now() - make_interval(secs => 10 - n)
         from generate_series(1, 5) n returning id`,
      [tenant.id],
    );
    const ids: string[] = [];
    const cursors: (string | null)[] = [];
    let url: string | null = `${api.url}/api/v1/webhook-endpoints?limit=2`;
    while (url) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${admin}`, 'x-forwarded-for': api.clientAddress } });
      expect(res.status).toBe(200);
      const page = WebhookEndpointList.parse(await res.json());
      ids.push(...page.data.map((e) => e.id));
      cursors.push(page.next_cursor);
      url = nextLink(res);
      expect(url === null ? null : new URL(url).searchParams.get('cursor')).toBe(page.next_cursor);
      expect(cursors.length).toBeLessThan(10);
    }
    expect(ids).toEqual(rows.map((r) => r.id));
    expect(cursors.at(-1)).toBeNull();
    expect(cursors.slice(0, -1).every((c) => c !== null && !rows.some((r) => r.id === c))).toBe(true);
    const theirs = WebhookEndpointList.parse(await (await api.request('/api/v1/webhook-endpoints', { token: otherAdmin })).json());
    expect(theirs).toEqual({ data: [], next_cursor: null });
    const bad = await api.request('/api/v1/webhook-endpoints?cursor=bm90IGpzb24', { token: admin });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('bad_request');
  });
});
