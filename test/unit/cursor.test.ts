import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { decodeCursor, encodeCursor, keyset, pageOf, TimeAndId } from '../../db/cursor';
import { QUOTE_KEYSET } from '../../db/quotes/quote-list';
import { CREW_KEYSET } from '../../db/fsm/crews';
import { SCHEDULE_KEYSET } from '../../db/work-orders/work-orders';

// The one cursor of every list (db/cursor.ts): what a page hands out, the next page reads back.
const ROWS = [
  { id: '5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c', at: '2026-11-20T09:12:44.123456Z' },
  { id: '6b2f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c', at: '2026-11-20T09:12:44.123457Z' },
  { id: '7c3f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c', at: '2026-11-20T09:12:44.123458Z' },
];
const BY_TIME = keyset(TimeAndId, (row: (typeof ROWS)[number]) => [row.at, row.id] as const);

describe('one cursor for every list', () => {
  it('a page read one row beyond its limit hands out the position of its last row, to the microsecond', () => {
    const page = pageOf(ROWS, 2, BY_TIME);
    expect(page.rows).toEqual(ROWS.slice(0, 2));
    expect(page.hasMore).toBe(true);
    expect(decodeCursor(BY_TIME, page.next!)).toEqual([ROWS[1]!.at, ROWS[1]!.id]);
  });

  it('the last page has no next cursor, but every row still has one (GraphQL edges)', () => {
    const page = pageOf(ROWS, 3, BY_TIME);
    expect(page.hasMore).toBe(false);
    expect(page.next).toBeNull();
    expect(decodeCursor(BY_TIME, page.cursorOf(ROWS[0]!))).toEqual([ROWS[0]!.at, ROWS[0]!.id]);
  });

  it('is opaque: base64url, no padding, nothing a URL must escape', () => {
    expect(encodeCursor([ROWS[0]!.at, ROWS[0]!.id])).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['not base64url', 'nope!'],
    ['not JSON', Buffer.from('{not json').toString('base64url')],
    ['a millisecond timestamp (it would repeat or skip rows)', encodeCursor(['2026-11-20T09:12:44.123Z', ROWS[0]!.id])],
    ['a position of another shape', encodeCursor(['a name', ROWS[0]!.id])],
    ['too long', 'a'.repeat(513)],
  ])('refuses what no list of this shape handed out: %s', (_what, cursor) => {
    expect(decodeCursor(BY_TIME, cursor)).toBeUndefined();
  });

  it("each list declares its keyset beside its query, and one list's cursor is not another's", () => {
    const quoteCursor = encodeCursor([ROWS[0]!.at, ROWS[0]!.id]);
    expect(decodeCursor(QUOTE_KEYSET, quoteCursor)).toEqual([ROWS[0]!.at, ROWS[0]!.id]);
    expect(decodeCursor(SCHEDULE_KEYSET, quoteCursor)).toBeUndefined();
    expect(decodeCursor(SCHEDULE_KEYSET, encodeCursor([null, ROWS[0]!.at, ROWS[0]!.id]))).toEqual([null, ROWS[0]!.at, ROWS[0]!.id]);
    expect(decodeCursor(CREW_KEYSET, encodeCursor(['Crew A', ROWS[0]!.id]))).toEqual(['Crew A', ROWS[0]!.id]);
    expect(decodeCursor({ position: z.tuple([z.string()]) }, encodeCursor([1]))).toBeUndefined();
  });
});
