import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { z } from 'zod';

/**
 * The one cursor of every list (REST `next_cursor` and `Link: rel="next"`, GraphQL connections):
 * keyset paging. A list orders on a unique key (a timestamp to the microsecond then the id, a
 * name then the id, a sequence); a page's cursor is the position of its last row in that order,
 * and the next page is what comes strictly after it, so rows added or moved meanwhile never make
 * a later page repeat or skip one. A cursor is opaque to clients: base64url of the position as
 * JSON. It names no tenant or filter: rows are read in the caller's tenant transaction whatever it
 * says, and the caller keeps its query. Each list declares its `Keyset` beside its query; the
 * interface (api/http/pagination.ts, api/graphql/connection.ts) words a refusal in its own shape.
 */

/** A timestamp as positions hold it: UTC to the microsecond (a JS Date would drop them). */
export const CursorTimestamp = z.iso.datetime({ precision: 6 });

/** SQL: a timestamptz column as a CursorTimestamp string. */
export const microseconds = (column: Expression<Date | null>): RawBuilder<string> => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** SQL: a CursorTimestamp as a timestamptz parameter (a JS Date would drop its microseconds). */
export const exactTimestamp = (value: string): RawBuilder<Date> => sql<Date>`${value}::timestamptz`;

/**
 * SQL: the rows strictly beyond a position in a list's order, `(a, b) > (x, y)` ascending or
 * `<` descending: the columns are the builder's checked references, the position's values
 * parameters (PostgreSQL types each by its column).
 */
export function beyond(columns: readonly [Expression<unknown>, Expression<unknown>], direction: 'asc' | 'desc', position: readonly [unknown, unknown]): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${columns[0]}, ${columns[1]}) ${sql.raw(direction === 'asc' ? '>' : '<')} (${position[0]}, ${position[1]})`;
}

/** Where a list's page ended: the zod shape of its position, and a row's position. */
export interface Keyset<Row, Position extends readonly unknown[]> {
  readonly position: z.ZodType<Position>;
  readonly of: (row: Row) => Position;
}

export const keyset = <Row, Position extends readonly unknown[]>(position: z.ZodType<Position>, of: (row: Row) => Position): Keyset<Row, Position> => ({ position, of });

export function encodeCursor(position: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The position a cursor names, or undefined for anything this list did not hand out. */
export function decodeCursor<Position extends readonly unknown[]>(set: { position: z.ZodType<Position> }, cursor: string): Position | undefined {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) return undefined;
  try {
    const parsed = set.position.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A page of a list read one row beyond `limit` (every list query reads `limit` + 1). */
export interface Page<Row> {
  rows: Row[];
  hasMore: boolean;
  /** The cursor of the page's last row when more follow, else null. */
  next: string | null;
  cursorOf: (row: Row) => string;
}

export function pageOf<Row>(rows: Row[], limit: number, set: Keyset<Row, readonly unknown[]>): Page<Row> {
  const page = rows.slice(0, limit);
  const cursorOf = (row: Row) => encodeCursor(set.of(row));
  const hasMore = rows.length > limit;
  return { rows: page, hasMore, next: hasMore ? cursorOf(page[page.length - 1]!) : null, cursorOf };
}

/** The usual position: a row's timestamp to the microsecond, then its id. */
export const TimeAndId = z.tuple([CursorTimestamp, z.uuid()]);
