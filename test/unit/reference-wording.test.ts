import { describe, expect, it } from '@jest/globals';
import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { openApiDocument } from '../../scripts/openapi-document';
import { schema } from '../../api/graphql/schema';
import { graphQLWording, internalReference, internalReferences, openApiWording } from '../support/reference-wording';

/**
 * The reference reads as product docs: no decision id, section number or tracker number in any
 * summary or description of the OpenAPI document (paths, webhooks, parameters, headers, schemas,
 * tags, the introduction) or of the GraphQL schema as introspection answers it (GraphiQL's docs).
 * test/integration/openapi-document.test.ts and graphql-dispatch.test.ts walk the served copies.
 */
describe('the reference reads as product docs', () => {
  it('the OpenAPI document: every summary, description and title, wherever it sits', () => {
    const wording = openApiWording(openApiDocument());
    // The walk reaches every kind of place, so a clean result means something.
    const places = (pattern: RegExp) => wording.filter((w) => pattern.test(w.where)).length;
    expect(places(/^\/paths\/[^/]+\/[a-z]+\/summary$/)).toBeGreaterThan(50);
    expect(places(/^\/paths\/.*\/parameters\/\d+\/description$/)).toBeGreaterThan(10);
    expect(places(/^\/paths\/.*\/headers\//)).toBeGreaterThan(5);
    expect(places(/^\/components\/schemas\/.*\/properties\//)).toBeGreaterThan(50);
    expect(places(/^\/webhooks\//)).toBeGreaterThan(10);
    expect(places(/^\/tags\/\d+\/description$/)).toBeGreaterThan(10);
    expect(places(/^\/info\/description$/)).toBe(1);
    expect(internalReferences(wording)).toEqual([]);
  });

  it('the GraphQL schema: every description introspection answers (types, fields, arguments, input fields, enum values)', () => {
    const wording = graphQLWording(schema);
    expect(wording.some((w) => w.where.startsWith('Mutation.'))).toBe(true);
    expect(wording.some((w) => w.where.includes('(') && w.where.endsWith(':)'))).toBe(true);
    expect(wording.length).toBeGreaterThan(60);
    expect(internalReferences(wording)).toEqual([]);
  });

  it('catches each kind of internal reference, and leaves product words alone', () => {
    for (const text of ['Add a customer (D14)', "Jobs in D11's feed order", 'Document 001 §6.2', 'as section 4.3 states', 'Sections 6.1 and 6.2', 'fixed in #31', 'see issue 31', 'document 001 spells it']) {
      expect({ text, found: internalReference(text) !== null }).toEqual({ text, found: true });
    }
    for (const text of ['A 3D view of the shade', 'Quote Q-12', 'Colour #1f2937 is not a number sign here: HTTP/2', 'D-ring brackets', 'Sent after 10 seconds', 'ISO 3166-2 region']) {
      expect({ text, found: internalReference(text) }).toEqual({ text, found: null });
    }
  });

  it('finds an id planted anywhere in the document or the schema, examples aside', () => {
    const planted = {
      paths: { '/x': { get: { summary: 'Fine', parameters: [{ name: 'q', description: 'D15: tokens' }], responses: { 200: { description: 'Ok', headers: { H: { schema: { description: 'section 9' } } } } } } } },
      components: { schemas: { A: { properties: { b: { items: { description: 'Per §4' } }, line: { example: { description: 'D14 is a fabric code here' } } } } } },
      webhooks: { e: { post: { description: 'fixed in #12' } } },
    };
    expect(internalReferences(openApiWording(planted)).map((line) => line.split(':')[0])).toEqual([
      '/paths/~1x/get/parameters/0/description',
      '/paths/~1x/get/responses/200/headers/H/schema/description',
      '/components/schemas/A/properties/b/items/description',
      '/webhooks/e/post/description',
    ]);
    const Query = new GraphQLObjectType({ name: 'Query', description: 'Fine', fields: { a: { type: GraphQLString, args: { b: { type: GraphQLString, description: "D11's order" } } } } });
    expect(internalReferences(graphQLWording(new GraphQLSchema({ query: Query })))).toEqual([`Query.a(b:): decision id "D11" in "D11's order"`]);
  });
});
