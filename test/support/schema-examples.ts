/**
 * Valid example values built from the JSON Schemas of our OpenAPI document (the zod schemas
 * that validate requests, as generated), and the dotted paths of every string field in them.
 * Tests use them to reach every field of every request body without listing either by hand.
 */
export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  minItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  format?: string;
  pattern?: string;
};

export interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema: JsonSchema }> } }>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export function resolve(doc: OpenApiDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  while (current.$ref) {
    const name = current.$ref.replace('#/components/schemas/', '');
    const found = doc.components?.schemas?.[name];
    if (!found) throw new Error(`unresolvable ${current.$ref}`);
    current = found;
  }
  return current;
}

const types = (schema: JsonSchema) => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** Strings that satisfy a pattern, tried in order. */
const PATTERN_CANDIDATES = ['a', 'sandbox', '1', '0.5', '2026-01-01', '08:00'];

function exampleString(schema: JsonSchema): string {
  if (schema.enum) return String(schema.enum.find((v) => typeof v === 'string'));
  if (typeof schema.const === 'string') return schema.const;
  switch (schema.format) {
    case 'uuid':
      return '6f1c2f7e-5b0a-4a43-9b4e-1f7d3c2a9e10';
    case 'email':
      return 'someone@example.test';
    case 'date':
      return '2026-05-12';
    case 'date-time':
      return '2026-05-12T09:00:00Z';
    case 'uri':
      // .invalid never resolves (RFC 6761); tests inject DNS answers anyway.
      return 'https://hooks.invalid/receiver';
  }
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern);
    const fit = PATTERN_CANDIDATES.find((c) => pattern.test(c) && c.length >= (schema.minLength ?? 0));
    if (!fit) throw new Error(`no example for pattern ${schema.pattern}: add a candidate`);
    return fit;
  }
  return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
}

/** A value the schema accepts, with every optional property present. */
export function example(doc: OpenApiDocument, raw: JsonSchema): unknown {
  const schema = resolve(doc, raw);
  const branch = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (branch) return example(doc, branch);
  if (schema.const !== undefined) return schema.const;
  const [type] = types(schema).filter((t) => t !== 'null');
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, property]) => [key, example(doc, property)]));
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => example(doc, schema.items ?? {}));
    case 'string':
      return exampleString(schema);
    case 'integer':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 0.5 : 1);
    case 'boolean':
      return false;
    default:
      if (schema.enum) return schema.enum[0];
      throw new Error(`no example for schema ${JSON.stringify(schema)}`);
  }
}

/** Dotted paths (array items as index 0) of every field whose value may be a string. */
export function stringPaths(doc: OpenApiDocument, raw: JsonSchema, path: string[] = []): string[] {
  const schema = resolve(doc, raw);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return branches.some((b) => types(resolve(doc, b)).includes('string')) ? [path.join('.')] : stringPaths(doc, branches[0]!, path);
  const kinds = types(schema);
  if (kinds.includes('string')) return [path.join('.')];
  if (kinds.includes('object')) return Object.entries(schema.properties ?? {}).flatMap(([key, property]) => stringPaths(doc, property, [...path, key]));
  if (kinds.includes('array')) return stringPaths(doc, schema.items ?? {}, [...path, '0']);
  return [];
}

/** A copy of `value` with the string at the dotted `path` passed through `change`. */
export function withStringAt(value: unknown, path: string, change: (s: string) => string): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = path.split('.');
  let parent: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  const last = keys[keys.length - 1]!;
  parent[last] = change(String(parent[last]));
  return copy;
}
