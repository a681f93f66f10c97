import { getIntrospectionQuery, graphqlSync, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

/**
 * The reference an integrator reads (/openapi.json, /docs, GraphiQL's docs) speaks in product
 * terms. Internal bookkeeping is for code comments: decision ids (D14), the specification's
 * section numbers (section 4.3, §6.2, document 001) and tracker numbers (#31, issue 31).
 */
const INTERNAL: { what: string; pattern: RegExp }[] = [
  { what: 'decision id', pattern: /\bD\d+\b/ },
  { what: 'section sign', pattern: /§/ },
  { what: 'section number', pattern: /\bsections? \d/i },
  { what: 'specification document', pattern: /\bdocument 0\d\d\b/i },
  { what: 'tracker number', pattern: /(?:^|[\s(])#\d+\b|\bissue \d+/i },
];

export interface Wording {
  /** Where the text is: a JSON pointer into the document, or a GraphQL schema coordinate. */
  where: string;
  text: string;
}

/** The first kind of internal reference the text carries, or null when it reads as product docs. */
export function internalReference(text: string): string | null {
  for (const { what, pattern } of INTERNAL) {
    const found = pattern.exec(text);
    if (found) return `${what} "${found[0].trim()}"`;
  }
  return null;
}

/**
 * Every summary and description of an OpenAPI document, wherever it sits: info, tags, paths,
 * webhooks, parameters, headers, responses, request bodies and every schema, nested or not.
 * Examples are data an integrator sends, not prose: a line item's own `description` is skipped.
 */
export function openApiWording(document: unknown): Wording[] {
  const found: Wording[] = [];
  const walk = (node: unknown, pointer: string) => {
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${pointer}/${i}`));
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'example' || key === 'examples') continue;
        const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if ((key === 'summary' || key === 'description' || key === 'title') && typeof value === 'string') found.push({ where: at, text: value });
        else walk(value, at);
      }
    }
  };
  walk(document, '');
  return found;
}

/** Every description of a GraphQL schema as introspection answers it: types, fields, arguments, input fields, enum values. */
export function graphQLWording(schema: GraphQLSchema): Wording[] {
  const result = graphqlSync({ schema, source: getIntrospectionQuery({ inputValueDeprecation: true }) });
  if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
  return graphQLWordingOf(result.data as unknown as IntrospectionQuery);
}

export function graphQLWordingOf(introspection: IntrospectionQuery): Wording[] {
  const found: Wording[] = [];
  const add = (where: string, text: string | null | undefined) => {
    if (text) found.push({ where, text });
  };
  for (const type of introspection.__schema.types) {
    if (type.name.startsWith('__')) continue;
    add(type.name, type.description);
    if ('fields' in type && type.fields) {
      for (const field of type.fields) {
        add(`${type.name}.${field.name}`, field.description);
        add(`${type.name}.${field.name}`, field.deprecationReason);
        for (const arg of field.args) add(`${type.name}.${field.name}(${arg.name}:)`, arg.description);
      }
    }
    if ('inputFields' in type && type.inputFields) for (const field of type.inputFields) add(`${type.name}.${field.name}`, field.description);
    if ('enumValues' in type && type.enumValues) for (const value of type.enumValues) add(`${type.name}.${value.name}`, value.description);
  }
  for (const directive of introspection.__schema.directives) add(`@${directive.name}`, directive.description);
  return found;
}

/** The texts that name an internal reference, each with what it names: empty when the reference reads as product docs. */
export function internalReferences(wording: Wording[]): string[] {
  return wording.flatMap(({ where, text }) => {
    const what = internalReference(text);
    return what ? [`${where}: ${what} in "${text}"`] : [];
  });
}
