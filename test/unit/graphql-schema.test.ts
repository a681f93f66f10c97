import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { GraphQLID, GraphQLList, GraphQLObjectType, GraphQLSchema, printSchema } from 'graphql';
import { meterResolvers } from '../../api/graphql/cost';
import { schema } from '../../api/graphql/schema';
import { CODE_OF_KIND } from '../../api/graphql/errors';
import { ERROR_KINDS } from '../../domain/errors/errors';

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

// Every domain error kind a resolver's service may throw has a GraphQL code.
const EXPECTED: Record<(typeof ERROR_KINDS)[number], string> = {
  bad_request: 'BAD_USER_INPUT',
  payload_too_large: 'REQUEST_TOO_LARGE',
  unsupported_encoding: 'BAD_REQUEST',
  validation_failed: 'BAD_USER_INPUT',
  unauthenticated: 'UNAUTHENTICATED',
  invalid_credentials: 'UNAUTHENTICATED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  job_not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  invalid_transition: 'INVALID_TRANSITION',
  idempotency_key_reused: 'IDEMPOTENCY_KEY_REUSED',
  idempotency_key_in_use: 'IDEMPOTENCY_KEY_IN_USE',
  rate_limited: 'THROTTLED',
  provider_failed: 'PROVIDER_ERROR',
  provider_unavailable: 'PROVIDER_ERROR',
  internal: 'INTERNAL_SERVER_ERROR',
};

describe('error codes of domain errors', () => {
  it.each(ERROR_KINDS.map((kind) => [kind]))('%s', (kind) => {
    expect(CODE_OF_KIND[kind]).toBe(EXPECTED[kind]);
  });
});
