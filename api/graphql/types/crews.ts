import { GraphQLID, GraphQLInt, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import { CREW_KEYSET, crewPage, type CrewRow } from '../../../db/fsm/crews';
import type { PersonRecord } from '../../../db/users';
import { pageOf } from '../../../db/cursor';
import { CONNECTION_SIZE, connectionArgs, connectionCost, connectionOf, positionOf } from '../connection';
import { listOf, nonNull, sized, sizeArg, type Context } from './common';
import { Person } from './people';

/** Crews (D11): a foreman and member technicians; a TECHNICIAN sees the crews they belong to. */

export const Crew = new GraphQLObjectType<CrewRow, Context>({
  name: 'Crew',
  description: 'A crew: a foreman and member technicians. A TECHNICIAN sees the crews they belong to.',
  fields: {
    id: { type: nonNull(GraphQLID) },
    name: { type: nonNull(GraphQLString) },
    foreman: { type: Person, description: 'Null once every member has left the crew.', resolve: (c, _args, ctx) => (c.foreman_user_id ? ctx.loaders.person.load(c.foreman_user_id) : null) },
    headcount: { type: nonNull(GraphQLInt), resolve: (c) => c.member_ids.length },
    members: {
      type: listOf(Person),
      ...sized(20, 50),
      resolve: async (c, args: { first?: number | null }, ctx) =>
        (await ctx.loaders.person.loadMany(c.member_ids.slice(0, sizeArg(args, 20, 50, 'members')))).filter((p): p is PersonRecord => p !== null && !(p instanceof Error)),
    },
  },
});

const CrewConnection = connectionOf(Crew);

export const crewQueries: GraphQLFieldConfigMap<unknown, Context> = {
  crews: {
    type: nonNull(CrewConnection),
    description: 'Crews by name; a TECHNICIAN gets the crews they belong to.',
    args: connectionArgs(),
    extensions: connectionCost(),
    resolve: async (_root, args: { first: number; after?: string | null }, ctx) => {
      const first = sizeArg(args, CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize, 'crews');
      const rows = await crewPage(ctx.tx, { memberId: ctx.caller.role === 'TECHNICIAN' ? ctx.caller.userId : undefined, after: positionOf(CREW_KEYSET, args.after), limit: first });
      return pageOf(rows, first, CREW_KEYSET);
    },
  },
};
