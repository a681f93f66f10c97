// The OpenAPI document's defaults are values of their own schemas: a query flag that is the text
// "true" or "false" defaults to the text, not to a boolean (a schema error tools reject).
import { describe, expect, it } from '@jest/globals';
import { openApiDocument } from '../../scripts/openapi-document';

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value);

/** Every `default` beside a `type` or an `enum` that it does not satisfy, by its JSON pointer. */
function wrongDefaults(node: unknown, where = '#', into: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item, i) => wrongDefaults(item, `${where}/${i}`, into));
  if (!node || typeof node !== 'object' || Array.isArray(node)) return into;
  const schema = node as { default?: unknown; enum?: unknown[]; type?: string | string[] };
  if ('default' in schema && (schema.type !== undefined || schema.enum !== undefined)) {
    const types = schema.type === undefined ? [] : [schema.type].flat();
    const actual = typeOf(schema.default);
    const typeOk = types.length === 0 || types.includes(actual) || (actual === 'integer' && types.includes('number'));
    const enumOk = !schema.enum || schema.enum.some((value) => JSON.stringify(value) === JSON.stringify(schema.default));
    if (!typeOk || !enumOk) into.push(`${where}: default ${JSON.stringify(schema.default)} of ${JSON.stringify({ type: schema.type, enum: schema.enum })}`);
  }
  for (const [key, value] of Object.entries(node)) wrongDefaults(value, `${where}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, into);
  return into;
}

describe('defaults in /openapi.json', () => {
  it('are each a value of their own schema (POST /v1/pricebooks/{id}/imports dry_run defaults to the text "true")', () => {
    const doc = openApiDocument();
    expect(wrongDefaults(doc)).toEqual([]);
    const importOp = (doc.paths as Record<string, Record<string, { parameters?: { name: string; schema: { default?: unknown } }[] }>>)['/v1/pricebooks/{id}/imports']!.post!;
    expect(importOp.parameters!.find((p) => p.name === 'dry_run')!.schema.default).toBe('true');
  });

  it('still finds a default outside its enum, so the check above can fail', () => {
    expect(wrongDefaults({ schema: { type: 'string', enum: ['true', 'false'], default: true } })).toEqual(['#/schema: default true of {"type":"string","enum":["true","false"]}']);
  });
});
