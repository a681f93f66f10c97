import { GraphQLEnumType, GraphQLID, GraphQLObjectType, GraphQLString } from 'graphql';
import { ROLES } from '../../../db/entities/user';
import type { PersonRecord } from '../../../db/users';
import { nonNull, type Context } from './common';

/** People as other records name them (a quote's author, a crew's foreman, a time entry's technician). */

const RoleEnum = new GraphQLEnumType({ name: 'Role', values: Object.fromEntries(ROLES.map((s) => [s, { value: s }])) });

export const Person = new GraphQLObjectType<PersonRecord, Context>({
  name: 'Person',
  description: 'A user of the workspace as other records name them.',
  fields: {
    id: { type: nonNull(GraphQLID) },
    name: { type: nonNull(GraphQLString), resolve: (p) => p.full_name },
    email: { type: nonNull(GraphQLString) },
    role: { type: nonNull(RoleEnum) },
  },
});
