import {
  defaultFieldResolver,
  getNamedType,
  GraphQLError,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type DocumentNode,
  type GraphQLField,
  type GraphQLFieldConfig,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';

/**
 * D17: the cost of a GraphQL operation, in points, on the model Shopify and Jobber publish
 * (docs/graphql.md has the rules and worked examples, which test/unit/graphql-cost.test.ts checks):
 *
 * - a scalar or enum field costs 0;
 * - an object field costs 1 plus what is selected in it;
 * - a connection costs 2 plus `first` times what one of its items costs (the item's node: 1
 *   plus its selection); `edges` and `pageInfo` add nothing of their own;
 * - a list field sized by `first` costs `first` times (1 plus what one item's selection costs);
 * - a mutation field costs 10 plus what is selected in its result.
 *
 * The requested cost is computed from the document and its variables before anything runs,
 * with every connection and list assumed full; the actual cost counts the same way what
 * execution really returned (each object returned costs 1, each connection 2), so it is never
 * more than the requested cost.
 */
export const MAX_QUERY_COST = 10_000;
export const MUTATION_COST = 10;
export const CONNECTION_COST = 2;

/** How a field is costed; declared on each field of the schema as `extensions.cost`. */
export type FieldCost =
  /** Adds nothing of its own (edges, pageInfo): only its selection counts. */
  | { kind: 'free' }
  /** A connection sized by `first`. */
  | { kind: 'connection'; defaultSize: number; maxSize: number }
  /** The `nodes` list inside a connection: one item each (the connection multiplies). */
  | { kind: 'items' }
  /** A plain list of objects sized by `first`. */
  | { kind: 'list'; defaultSize: number; maxSize: number }
  | { kind: 'mutation'; points: number };

declare module 'graphql' {
  interface GraphQLFieldExtensions<_TSource, _TContext, _TArgs> {
    cost?: FieldCost;
  }
}

/** A sized field's `first` as the request gives it (or its default), refused outside 0..max. */
export function sizeOf(args: { first?: unknown }, cost: { defaultSize: number; maxSize: number }, fieldName: string): number {
  const first = args.first ?? cost.defaultSize;
  if (typeof first !== 'number' || !Number.isInteger(first) || first < 0 || first > cost.maxSize) {
    throw new GraphQLError(`${fieldName}: first must be an integer from 0 to ${cost.maxSize}.`, { extensions: { code: 'BAD_USER_INPUT', argument: 'first' } });
  }
  return first;
}

const returnsObject = (type: GraphQLOutputType) => !isLeafType(getNamedType(type));

/** The one estimator: every field of the schema is costed by the rules above. */
export const estimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const cost = field.extensions?.cost;
  // Introspection (`__schema`, `__type` and the fields of their types) is bounded by the limits, not costed.
  if (field.name.startsWith('__') || type.name.startsWith('__')) return childComplexity;
  switch (cost?.kind) {
    case 'free':
      return childComplexity;
    case 'connection':
      return CONNECTION_COST + sizeOf(args, cost, field.name) * childComplexity;
    case 'items':
      return 1 + childComplexity;
    case 'list':
      return sizeOf(args, cost, field.name) * (1 + childComplexity);
    case 'mutation':
      return cost.points + childComplexity;
    default:
      return returnsObject(field.type) ? 1 + childComplexity : 0;
  }
};

/** The requested cost of one operation of `document` with these variables. Throws GraphQLError. */
export function requestedCost(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined): number {
  return getComplexity({ schema, query: document, variables: variables ?? {}, operationName, estimators: [estimator] });
}

/** Where execution counts what it returned (the context carries one per request). */
export interface CostMeter {
  actual: number;
}

function countOf(cost: FieldCost | undefined, type: GraphQLOutputType, value: unknown): number {
  if (value === null || value === undefined) return 0;
  switch (cost?.kind) {
    case 'free':
      return 0;
    case 'connection':
      return CONNECTION_COST;
    case 'items':
    case 'list':
      return Array.isArray(value) ? value.length : 0;
    case 'mutation':
      return cost.points;
    default:
      return returnsObject(type) ? 1 : 0;
  }
}

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as Promise<unknown> | null)?.then === 'function';

/**
 * Wraps every field resolver of the schema so that what it returns is counted into the
 * request's meter (`context.cost`), by the same rules as the requested cost. Done once, when the
 * schema is built.
 */
export function meterResolvers(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, { cost: CostMeter }>[]) {
      const resolve = field.resolve ?? defaultFieldResolver;
      const cost = field.extensions?.cost;
      if (!cost && !returnsObject(field.type)) continue;
      const bare = isNonNullType(field.type) ? field.type.ofType : field.type;
      // A list of objects costs by its size: it must say how it is sized (or that it is free).
      if (!cost && isListType(bare)) throw new Error(`${type.name}.${field.name}: a list of objects needs extensions.cost`);
      field.resolve = (source, args, context, info) => {
        const value = resolve(source, args, context, info);
        if (isPromise(value)) {
          return value.then((settled) => {
            context.cost.actual += countOf(cost, field.type, settled);
            return settled;
          });
        }
        context.cost.actual += countOf(cost, field.type, value);
        return value;
      };
    }
  }
}

/** Field-config helpers, so the schema declares each cost beside its field. */
export const costs = {
  free: { cost: { kind: 'free' } } satisfies GraphQLFieldConfig<unknown, unknown>['extensions'],
  items: { cost: { kind: 'items' } } satisfies GraphQLFieldConfig<unknown, unknown>['extensions'],
  connection: (defaultSize: number, maxSize: number) => ({ cost: { kind: 'connection' as const, defaultSize, maxSize } }),
  list: (defaultSize: number, maxSize: number) => ({ cost: { kind: 'list' as const, defaultSize, maxSize } }),
  mutation: (points = MUTATION_COST) => ({ cost: { kind: 'mutation' as const, points } }),
};
