// docs/conventions.md against the OpenAPI document: each interface's casing, money, paging and
// error style as the page states them, walked over every operation, so the page cannot drift
// from what the API does. Where a field departs from its interface's casing, the page lists it,
// and the list must be exactly the departures the document has.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { openApiDocument } from '../../scripts/openapi-document';

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
interface Operation {
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }>; headers?: Record<string, unknown> }>;
}
const doc = openApiDocument() as unknown as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
const page = readFileSync(new URL('../../docs/conventions.md', import.meta.url), 'utf8');

type Interface = 'api' | 'v1' | 'pricebooks' | 'fsm' | 'graphql';
const interfaceOf = (path: string): Interface | undefined =>
  path.startsWith('/api/v1/') ? 'api' : path.startsWith('/v1/fsm/') ? 'fsm' : path.startsWith('/v1/graphql') ? 'graphql' : path.startsWith('/v1/pricebooks') ? 'pricebooks' : path.startsWith('/v1/') ? 'v1' : undefined;

const deref = (schema: Schema | undefined): Schema | undefined => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema);

/** Every property name under a schema, with its own schema, however deep. */
function properties(schema: Schema | undefined, into: [string, Schema][] = [], seen = new Set<Schema>()): [string, Schema][] {
  const node = deref(schema);
  if (!node || seen.has(node)) return into;
  seen.add(node);
  for (const [name, value] of Object.entries(node.properties ?? {})) {
    into.push([name, deref(value) ?? value]);
    properties(value, into, seen);
  }
  if (node.items) properties(node.items, into, seen);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') properties(node.additionalProperties, into, seen);
  for (const list of [node.anyOf, node.oneOf, node.allOf]) for (const item of list ?? []) properties(item, into, seen);
  return into;
}

const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op, where: interfaceOf(path) })));
const json = (content: Record<string, { schema?: Schema }> | undefined) => Object.entries(content ?? {}).filter(([type]) => /json/.test(type)).map(([, media]) => media.schema);
const requestNames = (of: Interface) => operations.filter((o) => o.where === of).flatMap((o) => json(o.op.requestBody?.content).flatMap((s) => properties(s)));
const responseNames = (of: Interface) =>
  operations.filter((o) => o.where === of).flatMap((o) => Object.entries(o.op.responses).filter(([status]) => Number(status) < 400).flatMap(([, r]) => json(r.content).flatMap((s) => properties(s))));

const snake = (name: string) => name.includes('_');
const camel = (name: string) => /[a-z0-9][A-Z]/.test(name);
const unique = (names: [string, Schema][]) => [...new Set(names.map(([name]) => name))].sort();

/** The page's bullet that starts with `label`, to the next bullet or heading. */
function bullet(label: string): string {
  const start = page.indexOf(`\n- **${label}**`);
  if (start < 0) throw new Error(`docs/conventions.md has no bullet starting "- **${label}**"`);
  const end = page.slice(start + 1).search(/\n(- |#)/);
  return page.slice(start, end < 0 ? undefined : start + 1 + end);
}
/** Its backticked field names. */
const listed = (label: string) => [...new Set([...bullet(label).matchAll(/`([A-Za-z_]+)`/g)].map((m) => m[1]!))].sort();

describe('docs/conventions.md is what the OpenAPI document says (casing)', () => {
  it('/api/: responses snake_case, never camelCase', () => {
    expect(unique(responseNames('api')).filter(camel)).toEqual([]);
  });
  it('/api/: requests camelCase, except the snake_case fields the page lists, exactly', () => {
    expect(unique(requestNames('api')).filter(snake)).toEqual(listed('/api/ request fields in snake_case:'));
  });
  it('/v1/quotes, products, customers: camelCase both ways but the list envelope (next_cursor, has_more)', () => {
    expect(unique([...requestNames('v1'), ...responseNames('v1')]).filter(snake)).toEqual(['has_more', 'next_cursor']);
  });
  it('/v1/pricebooks: snake_case both ways', () => {
    expect(unique([...requestNames('pricebooks'), ...responseNames('pricebooks')]).filter(camel)).toEqual([]);
  });
  it('/v1/fsm/: snake_case both ways, except the camelCase fields the page lists, exactly', () => {
    expect(unique([...requestNames('fsm'), ...responseNames('fsm')]).filter(camel)).toEqual(listed('/v1/fsm/ fields in camelCase:'));
  });
  it('GraphQL: camelCase', () => {
    expect(unique([...requestNames('graphql'), ...responseNames('graphql')]).filter(snake)).toEqual([]);
  });
});

describe('docs/conventions.md is what the OpenAPI document says (money, paging, errors)', () => {
  it('money: integer `*_cents` under /api/ and /v1/pricebooks only; /v1/quotes answers dollars as numbers', () => {
    const cents = (['api', 'v1', 'pricebooks', 'fsm', 'graphql'] as const).filter((of) => [...requestNames(of), ...responseNames(of)].some(([name]) => name.endsWith('_cents')));
    expect(cents).toEqual(['api', 'pricebooks']);
    const notIntegers = [...requestNames('api'), ...responseNames('api'), ...requestNames('pricebooks'), ...responseNames('pricebooks')]
      .filter(([name]) => name.endsWith('_cents') && name !== 'unit_cost_cents')
      .filter(([, schema]) => ![schema.type].flat().includes('integer'))
      .map(([name]) => name);
    expect(notIntegers).toEqual([]);
    // Document 000 section 2.1's one exception: a per-unit cost is an exact decimal string of cents.
    const unitCosts = [...requestNames('pricebooks'), ...responseNames('pricebooks'), ...requestNames('api'), ...responseNames('api')].filter(([name]) => name === 'unit_cost_cents');
    expect(unitCosts.length).toBeGreaterThan(0);
    expect(unitCosts.filter(([, schema]) => schema.type !== 'string')).toEqual([]);
    const grandTotal = responseNames('v1').find(([name]) => name === 'grandTotal');
    expect([grandTotal?.[1].type].flat()).toContain('number');
    expect(page).toMatch(/\| \*\*money\*\* \| integer cents in `\*_cents` fields;[^|]*\| dollars as JSON numbers[^|]*\| integer cents in `\*_cents` fields/);
  });

  it('paging: every /api/ list declares its Link header; every /v1/ list answers next_cursor and has_more', () => {
    const lists = operations.filter((o) => o.method === 'get' && o.where && o.where !== 'graphql').filter((o) => {
      const schema = deref(json(o.op.responses['200']?.content)[0]);
      return deref(schema?.properties?.data)?.type === 'array';
    });
    expect(lists.length).toBeGreaterThan(10);
    const departing = lists.filter((o) => {
      const schema = deref(json(o.op.responses['200']?.content)[0])!;
      if (o.where === 'api') return !('Link' in (o.op.responses['200']!.headers ?? {}));
      return !('next_cursor' in (schema.properties ?? {}) && 'has_more' in (schema.properties ?? {}));
    });
    const whole = [...bullet('Lists answered whole, not paged').matchAll(/`(\/[^`]+)`/g)].map((m) => m[1]!);
    expect(departing.map((o) => o.path).sort()).toEqual(whole.filter((path) => interfaceOf(path)).sort());
  });

  it('errors: the section 7 envelope under /api/, RFC 9457 problems under /v1/ (GraphQL: its own errors)', () => {
    const departing: string[] = [];
    for (const { path, method, op, where } of operations) {
      if (!where || where === 'graphql') continue;
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400 || !response.content) continue;
        const [type, media] = Object.entries(response.content)[0]!;
        // Document 000 section 4.5: the OAuth callback is a page for people, HTML in every outcome (so the page says).
        if (path === '/api/v1/integrations/{provider}/callback' && type === 'text/html') continue;
        const ok = where === 'api' ? type === 'application/json' && media.schema?.$ref === '#/components/schemas/Error' : type === 'application/problem+json';
        if (!ok) departing.push(`${method} ${path} ${status} ${type}`);
      }
    }
    expect(departing).toEqual([]);
  });
});
