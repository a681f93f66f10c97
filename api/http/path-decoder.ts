import type { RequestHandler } from 'express';
import { notFound } from '../../domain/errors/errors';

/** True when every percent-escape of the path decodes, as UTF-8, to text. */
export function pathDecodes(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The one path decoder, in front of every route: a path whose percent-encoding does not decode
 * (`/v1/fsm/jobs/%FF%FE`) can name no resource, so it is a 404 in the path's shape here, rather
 * than the router's URIError when it decodes a parameter (which would reach the error handler as
 * an unknown error, a 500). After the guards: an unauthenticated caller learns nothing of paths.
 */
export function refuseUndecodablePaths(): RequestHandler {
  return (req, _res, next) => {
    if (pathDecodes(req.path)) return next();
    next(notFound('No resource has this path: its percent-encoding does not decode to UTF-8 text.'));
  };
}
