import type { RequestHandler, Request, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { pinTenantVersion } from '../../db/versions/pins';
import { checkVersion, CURRENT_VERSION, shapeFor } from '../../domain/versions/versions';
import { badRequest } from '../../domain/errors/errors';

declare module 'express-serve-static-core' {
  interface Request {
    /** D16: the version this request is answered in. */
    serviceVersion?: string;
  }
}

export const VERSION_HEADER = 'Service-Version';

/**
 * D16, first step (before the bearer guard, so even a 401 says its version): answers
 * `Service-Version`, and shapes every successful JSON answer of a route for the request's version
 * through the chain of version-change modules (db/versions). Nothing else in the code knows
 * about old versions.
 */
export const announceVersion: RequestHandler = (req, res, next) => {
  const requested = req.get(VERSION_HEADER);
  const verdict = requested === undefined ? undefined : checkVersion(requested);
  if (verdict?.ok) req.serviceVersion = verdict.version;
  res.setHeader(VERSION_HEADER, req.serviceVersion ?? CURRENT_VERSION);
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const version = req.serviceVersion;
    if (!version || version === CURRENT_VERSION || !req.route || res.statusCode >= 400) return json(body);
    return json(shapeFor(version, { kind: 'response', route: String(req.route.path) }, body));
  };
  next();
};

/**
 * res.json for a large POST answer, minus two costs res.send adds: a SHA-1 of the text
 * for an ETag no POST answer uses, and, for a string body, a copy of the whole answer joined to
 * the header text before writing. The same text as res.json (JSON.stringify, no spaces), as bytes
 * written beside the headers. An older pinned version still goes through res.json and the chain
 * above. (A serializer compiled by fast-json-stringify was measured and lost: its text is a rope
 * of thousands of pieces, and flattening it for the socket costs more than JSON.stringify in
 * all; docs/pricing.md section 11.)
 */
export function sendJsonBytes(req: Request, res: Response, body: unknown): void {
  const version = req.serviceVersion;
  if (version && version !== CURRENT_VERSION) {
    res.json(body);
    return;
  }
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}

/**
 * D16, second step (after the bearer guard): a malformed, unknown, future or retired
 * `Service-Version` is 400 (`bad_request` on /api/, a `validation-failed` problem on /v1/), naming
 * the header in its fields (`details.fields`, the problem's `errors`);
 * without the header, the tenant's pinned version applies, pinned to the current version at its
 * first request (cached per process: a pin never changes).
 */
export function resolveVersion(em: EntityManager): RequestHandler {
  const pins = new Map<string, string>();
  return async (req, res, next) => {
    try {
      const requested = req.get(VERSION_HEADER);
      if (requested !== undefined) {
        const verdict = checkVersion(requested);
        if (!verdict.ok) throw badRequest(verdict.reason, { [VERSION_HEADER]: verdict.reason });
        return next();
      }
      if (!req.caller) return next();
      const organizationId = req.caller.organizationId;
      let pinned = pins.get(organizationId);
      if (!pinned) {
        pinned = await inTenant(em, organizationId, (tx) => pinTenantVersion(tx, CURRENT_VERSION));
        pins.set(organizationId, pinned);
      }
      // A pin whose version has since been retired is answered in the current version.
      req.serviceVersion = checkVersion(pinned).ok ? pinned : CURRENT_VERSION;
      res.setHeader(VERSION_HEADER, req.serviceVersion);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** D16: a webhook endpoint pins the version current at its registration, or the one its request named. */
export function registrationVersion(req: Request): string {
  return req.get(VERSION_HEADER) !== undefined && req.serviceVersion ? req.serviceVersion : CURRENT_VERSION;
}
