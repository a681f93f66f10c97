import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { asDomainError } from '../http/error-handler';
import { RateLimitedError } from '../../domain/errors/errors';
import { PROBLEM_CONTENT_TYPE, PROBLEM_OF_KIND, type Problem } from './problem';

export function sendProblem(res: Response, problem: Problem): void {
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

/** An authenticated request to a path nothing under /v1/ answers (the unauthenticated got 401). */
export const problemNotFound: RequestHandler = (req, res) => {
  sendProblem(res, { ...PROBLEM_OF_KIND.not_found, detail: `No route for ${req.method} ${req.baseUrl}${req.path}.`, request_id: req.requestId ?? null });
};

/** Mounted on /v1 ahead of the section 7 handler: the same domain errors, answered as D10 problems. */
export const problemErrorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  const error = asDomainError(err, req.log);
  const row = PROBLEM_OF_KIND[error.kind];
  if (error instanceof RateLimitedError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  if (row.status >= 500 && error.kind !== 'internal') req.log?.warn({ type: row.type, message: error.message }, 'provider error');
  if (res.headersSent) return;
  const fields = (error.details as { fields?: Record<string, string> } | null)?.fields;
  sendProblem(res, {
    type: row.type,
    title: row.title,
    status: row.status,
    detail: error.message,
    request_id: req.requestId ?? null,
    ...(row.type === 'validation-failed' ? { errors: fields ?? {} } : {}),
  });
};
