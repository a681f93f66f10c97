import type { Request, Response } from 'express';
import { z } from 'zod';
import { badRequest } from '../../domain/errors/errors';

/**
 * Keyset paging for lists whose bodies the contract fixes as `{data: [...]}` with no room for a
 * cursor: the next page is announced in a `Link: <...>; rel="next"` header (RFC 8288), and the
 * client follows it until it is absent. A cursor is opaque to clients: the position of the last
 * row of the page (its sort key), base64url-encoded JSON. It carries no tenant or filter: rows
 * are read inside the caller's tenant whatever it says, and the Link keeps the query it came with.
 */

export const CursorParam = z
  .string()
  .optional()
  .meta({ description: 'Opaque: from the Link rel="next" header of the previous page. A cursor that this list did not hand out is a 400.' });

/** The documented response header of a paged list. */
export const PageHeaders = z.object({
  Link: z
    .string()
    .optional()
    .meta({
      description: 'RFC 8288: `<url>; rel="next"` while there is a next page; absent on the last page.',
      example: `<https://shades.example.test/api/v1/work-orders?limit=50&cursor=${encodeCursor(['2026-12-03', '2026-11-20T09:12:44.123456Z', '5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c'])}>; rel="next"`,
    }),
});

export const CursorTimestamp = z.iso.datetime({ precision: 6 });

export function encodeCursor(position: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** Section 7 envelope, 400 `bad_request`, for anything that is not a position this list encoded. */
export function decodeCursor<S extends z.ZodType>(cursor: string, position: S): z.output<S> {
  const refused = () => badRequest('cursor: not a cursor of this list; follow the Link header of the previous page, or start without a cursor.');
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) throw refused();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  const parsed = position.safeParse(value);
  if (!parsed.success) throw refused();
  return parsed.data;
}

/** Rows fetched one beyond the page: the page, and the cursor of its last row when more follow. */
export function pageOf<T>(rows: T[], limit: number, positionOf: (row: T) => readonly unknown[]): { page: T[]; next: string | null } {
  const page = rows.slice(0, limit);
  return { page, next: rows.length > limit ? encodeCursor(positionOf(page[page.length - 1]!)) : null };
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
