import { GraphQLBoolean, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigArgumentMap } from 'graphql';
import type { z } from 'zod';
import { decodeCursor, type Page } from '../../db/cursor';
import { codedError, REFUSAL_CODES } from './errors';
import { costs } from './cost';

/**
 * Cursor connections (the Relay shape clients expect): `edges { cursor node }`, `nodes`, and
 * `pageInfo { hasNextPage endCursor }`, paged forward with `first` and `after`. The cursor is the
 * one of every list (db/cursor.ts): opaque, the position of a row in its list's order, naming no
 * tenant (rows are read in the caller's tenant whatever it says).
 */
export const PageInfo = new GraphQLObjectType({
  name: 'PageInfo',
  fields: {
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    endCursor: { type: GraphQLString, description: 'Pass as `after` for the next page; null on an empty page.' },
  },
});

export const CONNECTION_SIZE = { defaultSize: 20, maxSize: 100 } as const;

export function connectionArgs(extra: GraphQLFieldConfigArgumentMap = {}): GraphQLFieldConfigArgumentMap {
  return {
    first: { type: GraphQLInt, defaultValue: CONNECTION_SIZE.defaultSize, description: `At most ${CONNECTION_SIZE.maxSize}; the cost assumes this many.` },
    after: { type: GraphQLString, description: 'The endCursor of the previous page.' },
    ...extra,
  };
}

export const connectionCost = () => costs.connection(CONNECTION_SIZE.defaultSize, CONNECTION_SIZE.maxSize);

export function connectionOf<T>(node: GraphQLObjectType<T>) {
  const edge = new GraphQLObjectType<{ row: T; cursor: string }>({
    name: `${node.name}Edge`,
    fields: {
      cursor: { type: new GraphQLNonNull(GraphQLString) },
      node: { type: new GraphQLNonNull(node), resolve: (edge) => edge.row },
    },
  });
  return new GraphQLObjectType<Page<T>>({
    name: `${node.name}Connection`,
    fields: {
      edges: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(edge))),
        extensions: costs.free,
        resolve: (page) => page.rows.map((row) => ({ row, cursor: page.cursorOf(row) })),
      },
      nodes: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(node))), extensions: costs.items, resolve: (page) => page.rows },
      pageInfo: {
        type: new GraphQLNonNull(PageInfo),
        extensions: costs.free,
        resolve: (page) => ({ hasNextPage: page.hasMore, endCursor: page.rows.length ? page.cursorOf(page.rows[page.rows.length - 1]!) : null }),
      },
    },
  });
}

/** The position an `after` cursor names in a list (its keyset), or BAD_USER_INPUT for anything this endpoint did not hand out. */
export function positionOf<Position extends readonly unknown[]>(set: { position: z.ZodType<Position> }, after: string | null | undefined): Position | undefined {
  if (after === null || after === undefined) return undefined;
  const position = decodeCursor(set, after);
  if (!position) throw codedError('after: not a cursor of this list; pass an endCursor from a previous page.', REFUSAL_CODES.badInput, { argument: 'after' });
  return position;
}
