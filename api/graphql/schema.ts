import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';
import { meterResolvers } from './cost';
import { crewQueries } from './types/crews';
import { jobMutations, jobQueries } from './types/jobs';
import { pricingMutations } from './types/pricing';
import { quoteMutations, quoteQueries } from './types/quotes';
import { workOrderQueries } from './types/work-orders';
import { pricebookQueries } from './types/pricebook';
import { dispatchMutations } from './types/dispatch';
import { routeQueries } from './types/routes';

/**
 * D17's schema, written once in code and assembled here from its features (api/graphql/types/:
 * quotes and customers, work orders, crews, jobs, pricing). Its types are the records of the
 * list queries in db/ and the pricing engine's result, so a change there that the schema does not
 * follow fails the type check. api/graphql/schema.graphql is its printed SDL (served at
 * /v1/graphql/schema.graphql; a test compares them, so a change to the SDL shows in review).
 * Every field declares its cost (api/graphql/cost.ts); roles are D10's: quotes, customers and
 * pricing are the office's (they carry cost and margin), work orders everyone's, a TECHNICIAN
 * seeing only their own (D4).
 */

const Query = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'Query',
  fields: { ...quoteQueries, ...jobQueries, ...crewQueries, ...workOrderQueries, ...pricebookQueries, ...routeQueries },
});

const Mutation = new GraphQLObjectType<unknown, GraphQLContext>({
  name: 'Mutation',
  fields: { ...quoteMutations, ...jobMutations, ...pricingMutations, ...dispatchMutations },
});

/** The one schema of the process (its resolvers are metered once, here). */
export const schema = new GraphQLSchema({ query: Query, mutation: Mutation });
meterResolvers(schema);
