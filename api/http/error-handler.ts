import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { DomainError, RateLimitedError, ServiceUnavailableError, type ErrorEnvelope } from '../../domain/errors/errors';
import { isDatabaseUnreachable } from '../../db/connectivity';
import { ERROR_RENDERINGS, type ErrorRendering } from '../../domain/errors/error-kinds';
import { isProblemPath, sendProblem } from '../v1/problem';

/**
 * Any thrown value as a domain error: ours as they are (the body reader's refusals among them,
 * api/http/body-reader.ts), and anything else as `internal` (logged here, under the request id;
 * the answer says nothing of it).
 * Exported for features that answer their errors in another form (the OAuth callback's page).
 */
/** How long a client waits before retrying while the database is unreachable. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

export function asDomainError(err: unknown, log?: { error(obj: object, msg: string): void; warn?(obj: object, msg: string): void }): DomainError {
  if (err instanceof DomainError) return err;
  if (isDatabaseUnreachable(err)) {
    // One readable line, not a stack: the operator's signal is the database's own health.
    log?.warn?.({ reason: err instanceof Error ? err.message : String(err) }, 'database unreachable; answered 503');
    return new ServiceUnavailableError('The database is unreachable at the moment; retry shortly.', DATABASE_RETRY_AFTER_SECONDS);
  }
  log?.error({ err }, 'unhandled error');
  return new DomainError('internal', 'Internal server error.');
}

/** How one interface words its errors: its row of the one table, in its own shape. */
interface ErrorRenderer {
  /** The router 404: nothing under this path answers the request. */
  noRoute(req: Request, res: Response): void;
  error(error: DomainError, rendering: ErrorRendering, req: Request, res: Response): void;
}

/** Section 7: the `{error: {code, message, details, request_id}}` envelope of /api/. */
const sectionSevenEnvelope: ErrorRenderer = {
  // The one error whose envelope has no `details` key at all (section 7).
  noRoute(req, res) {
    const body: ErrorEnvelope = { error: { code: ERROR_RENDERINGS.not_found.code, message: `No route for ${req.method} ${req.path}.`, request_id: req.requestId ?? null } };
    res.status(ERROR_RENDERINGS.not_found.status).json(body);
  },
  error(error, { status, code }, req, res) {
    const body: ErrorEnvelope = { error: { code, message: error.message, details: error.details, request_id: req.requestId ?? null } };
    res.status(status).json(body);
  },
};

/** D10: RFC 9457 problem details under /v1/. */
const problemDetails: ErrorRenderer = {
  noRoute(req, res) {
    const { status, problem } = ERROR_RENDERINGS.not_found;
    sendProblem(res, { status, type: problem.type, title: problem.title, detail: `No route for ${req.method} ${req.path}.`, request_id: req.requestId ?? null });
  },
  error(error, { status, problem }, req, res) {
    const fields = (error.details as { fields?: Record<string, string> } | null)?.fields;
    sendProblem(res, {
      type: problem.type,
      title: problem.title,
      status,
      detail: error.message,
      request_id: req.requestId ?? null,
      ...(problem.type === 'validation-failed' ? { errors: fields ?? {} } : {}),
    });
  },
};

const rendererOf = (req: Request): ErrorRenderer => (isProblemPath(req.path) ? problemDetails : sectionSevenEnvelope);

/** A request no route answers (under /v1/ only the authenticated get here: D10's guard answered the others 401). */
export const notFoundHandler: RequestHandler = (req, res) => {
  rendererOf(req).noRoute(req, res);
};

/** The only place errors become HTTP answers: each kind as its row of ERROR_RENDERINGS says, in the path's shape. */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  const error = asDomainError(err, req.log);
  const rendering = ERROR_RENDERINGS[error.kind];
  if (error instanceof RateLimitedError || error instanceof ServiceUnavailableError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  if (rendering.status >= 500 && error.kind !== 'internal' && error.kind !== 'service_unavailable') req.log?.warn({ kind: error.kind, message: error.message }, 'provider error');
  if (res.headersSent) return;
  rendererOf(req).error(error, rendering, req, res);
};
