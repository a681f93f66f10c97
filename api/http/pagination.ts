import type { Request, Response } from 'express';
import { z } from 'zod';
import { badRequest } from '../../domain/errors/errors';
import { decodeCursor, encodeCursor } from '../../db/cursor';

/**
 * Keyset paging for lists whose bodies the contract fixes as `{data: [...]}` with no room for a
 * cursor: the next page is announced in a `Link: <...>; rel="next"` header (RFC 8288), and the
 * client follows it until it is absent. The cursor is the one of every list (db/cursor.ts); the
 * Link keeps the query it came with.
 */

export const CursorParam = z
  .string()
  .optional()
  .meta({ description: 'Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400.' });

/** The documented response header of a paged list, its example naming that list (`next` is its next page's URL). */
export const pageHeaders = (next: string) =>
  z.object({
    Link: z
      .string()
      .optional()
      .meta({ description: 'RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page.', example: `<${next}>; rel="next"` }),
  });

/** The work orders' Link header (the list most clients page first). */
export const PageHeaders = pageHeaders(
  `https://shades.example.test/api/v1/work-orders?limit=50&cursor=${encodeCursor(['2026-12-03', '2026-11-20T09:12:44.123456Z', '5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c'])}`,
);

/** Section 7 envelope, 400 `bad_request`, for anything that is not a position this list encoded (db/cursor.ts). */
export function cursorPosition<Position extends readonly unknown[]>(set: { position: z.ZodType<Position> }, cursor: string): Position {
  const position = decodeCursor(set, cursor);
  if (!position) throw badRequest('cursor: not a cursor of this list; follow the Link header of the previous page, or start without a cursor.');
  return position;
}

/**
 * Announces the next page: the request's own URL (every other query parameter kept) with the
 * new cursor, absolute on PUBLIC_BASE_URL when it is set (app.locals.publicBaseUrl), else on the
 * origin the request came to.
 */
export function linkNext(req: Request, res: Response, cursor: string | null): void {
  if (!cursor) return;
  const configured = req.app.locals.publicBaseUrl as string | undefined;
  const origin = configured ?? `${req.protocol}://${req.get('host')}`;
  const url = new URL(origin.replace(/\/+$/, '') + req.originalUrl);
  url.searchParams.set('cursor', cursor);
  res.append('Link', `<${url.href}>; rel="next"`);
}
