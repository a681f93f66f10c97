import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { GraphQLID, GraphQLList, GraphQLObjectType, GraphQLSchema, printSchema } from 'graphql';
import { meterResolvers } from '../../api/graphql/cost';
import { schema } from '../../api/graphql/schema';

describe('the GraphQL schema (D17)', () => {
  it('is the committed SDL: a change to the schema shows in review (npm run graphql:schema rewrites it)', () => {
    const committed = readFileSync(new URL('../../api/graphql/schema.graphql', import.meta.url), 'utf8');
    expect(`${printSchema(schema)}\n`).toBe(committed);
  });

  it('a list of objects that does not say how it is costed stops the schema from being served', () => {
    const Item = new GraphQLObjectType({ name: 'Item', fields: { id: { type: GraphQLID } } });
    const uncosted = new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: { items: { type: new GraphQLList(Item) } } }) });
    expect(() => meterResolvers(uncosted)).toThrow('Query.items: a list of objects needs extensions.cost');
  });
});
