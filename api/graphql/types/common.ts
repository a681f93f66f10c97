import { GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLScalarType, Kind, type GraphQLNullableType } from 'graphql';
import { z } from 'zod';
import { OFFICE } from '../../http/roles';
import { forbidden } from '../../../domain/errors/errors';
import type { GraphQLContext } from '../context';
import { costs, sizeOf, type FieldCost } from '../cost';

/** What every feature's types share: the context, the wrappers, the scalars, list sizes, the office's check. */

export type Context = GraphQLContext;
export const nonNull = <T extends GraphQLNullableType>(type: T) => new GraphQLNonNull(type);
export const listOf = <T extends GraphQLNullableType>(type: T) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));
export const isUuid = (value: string) => z.uuid().safeParse(value).success;

export function requireOffice(context: Context): void {
  if (!(OFFICE as readonly string[]).includes(context.caller.role)) throw forbidden('Quotes, customers and pricing are for ADMIN and SALES (they carry cost and margin).');
}

export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant, RFC 3339 (`2026-11-24T13:00:00.000Z`); answers are in UTC.',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    if (typeof value !== 'string') throw new TypeError('DateTime must be an RFC 3339 string.');
    return value;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new TypeError('DateTime must be an RFC 3339 string.');
    return ast.value;
  },
});

export const Decimal = new GraphQLScalarType({
  name: 'Decimal',
  description: 'An exact decimal as a string (`0.4000`): never a float.',
  serialize: (value) => String(value),
});

export const Cents = new GraphQLScalarType({
  name: 'Cents',
  description: 'An amount in integer cents (CAD). A JSON integer, exact up to 2^53 - 1 (beyond GraphQL Int).',
  serialize: (value) => {
    const cents = typeof value === 'string' ? Number(value) : value;
    if (typeof cents !== 'number' || !Number.isSafeInteger(cents)) throw new TypeError('Cents: not a safe integer');
    return cents;
  },
  parseValue: (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new TypeError('Cents must be an integer.');
    return value;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT || !Number.isSafeInteger(Number(ast.value))) throw new TypeError('Cents must be an integer.');
    return Number(ast.value);
  },
});

export const sized = (defaultSize: number, maxSize: number): { args: { first: { type: typeof GraphQLInt; defaultValue: number; description: string } }; extensions: { cost: FieldCost } } => ({
  args: { first: { type: GraphQLInt, defaultValue: defaultSize, description: `At most ${maxSize}; the cost assumes this many.` } },
  extensions: costs.list(defaultSize, maxSize),
});
export const sizeArg = (args: { first?: number | null }, defaultSize: number, maxSize: number, field: string) => sizeOf({ first: args.first ?? undefined }, { defaultSize, maxSize }, field);
