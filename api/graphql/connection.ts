import { z } from 'zod';
import { GraphQLBoolean, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigArgumentMap } from 'graphql';
import { codedError, REFUSAL_CODES } from './errors';
import { costs } from './cost';
import { CursorTimestamp, encodeCursor } from '../http/pagination';

/**
 * Cursor connections (the Relay shape clients expect): `edges { cursor node }`, `nodes`, and
 * `pageInfo { hasNextPage endCursor }`, paged forward with `first` and `after`. A cursor is
 * opaque: the position of a row in the list's order (its created_at to the microsecond and id),
 * base64url JSON. It names no tenant: rows are read in the caller's tenant whatever it says.
 */
export const PageInfo = new GraphQLObjectType({
  name: 'PageInfo',
  fields: {
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    endCursor: { type: GraphQLString, description: 'Pass as `after` for the next page; null on an empty page.' },
  },
});

export interface Page<T> {
  rows: T[];
  hasNextPage: boolean;
  cursorOf: (row: T) => string;
}

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
        resolve: (page) => ({ hasNextPage: page.hasNextPage, endCursor: page.rows.length ? page.cursorOf(page.rows[page.rows.length - 1]!) : null }),
      },
    },
  });
}

/** Most lists page on (a timestamp to the microsecond, id). */
export const TIME_POSITION = z.tuple([CursorTimestamp, z.uuid()]);
/** Crews page on (name, id). */
export const NAME_POSITION = z.tuple([z.string().max(200), z.uuid()]);

/** The position an `after` cursor names, or BAD_USER_INPUT for anything this endpoint did not hand out. */
export function positionOf(after: string | null | undefined, Position: typeof TIME_POSITION | typeof NAME_POSITION = TIME_POSITION): readonly [string, string] | undefined {
  if (after === null || after === undefined) return undefined;
  const refused = () => codedError('after: not a cursor of this list; pass an endCursor from a previous page.', REFUSAL_CODES.badInput, { argument: 'after' });
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(after)) throw refused();
  try {
    const parsed = Position.safeParse(JSON.parse(Buffer.from(after, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: refused below
  }
  throw refused();
}

/** Rows read one beyond `first`: the page, and whether more follow; by default positioned on (created_at, id). */
export function pageOf<T>(rows: T[], first: number, keyOf: (row: T) => readonly [string, string] = (row) => {
  const keyed = row as { cursor_created_at: string; id: string };
  return [keyed.cursor_created_at, keyed.id];
}): Page<T> {
  return { rows: rows.slice(0, first), hasNextPage: rows.length > first, cursorOf: (row) => encodeCursor(keyOf(row)) };
}
