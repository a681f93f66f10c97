import { z } from 'zod';
import { cursorPosition } from '../http/pagination';

/**
 * Every list under `/v1/` answers one way (docs/conventions.md): `{data, next_cursor, has_more}`,
 * as document 001 fixes for the job page. `next_cursor` is opaque (db/cursor.ts): pass it back as
 * `cursor`; a cursor the list did not hand out is a 400 `validation-failed` problem.
 */
export const v1Page = <Item extends z.ZodType>(item: Item, id: string) =>
  z
    .strictObject({
      data: z.array(item),
      next_cursor: z.string().nullable().meta({ description: 'Opaque: pass it back as `cursor` for the next page; null on the last page' }),
      has_more: z.boolean().meta({ description: 'Whether another page follows' }),
    })
    .meta({ id });

/** The query of a `/v1/` list: `limit` and an opaque `cursor`. */
export const V1PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(512).optional().meta({ description: 'Opaque: the `next_cursor` of the previous page' }),
});

/** A `/v1/` page from a db page (`rows` and its `next`). */
export const v1PageOf = <Row, Item>(page: { rows: Row[]; next: string | null }, map: (row: Row) => Item) => ({
  data: page.rows.map(map),
  next_cursor: page.next,
  has_more: page.next !== null,
});

/**
 * The position a `/v1/` cursor names. A cursor the list did not hand out is refused as on every
 * list (api/http/pagination.ts, the jobs feed's too): 400, here a `validation-failed` problem.
 */
export function v1CursorPosition<Position extends readonly unknown[]>(set: { position: z.ZodType<Position> }, cursor: string | undefined): Position | undefined {
  return cursor === undefined ? undefined : cursorPosition(set, cursor);
}
