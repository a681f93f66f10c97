import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, RateLimitedError, type ErrorEnvelope } from '../../domain/errors/errors';
import { ERROR_RESPONSES } from '../../domain/errors/error-kinds';

/** Router 404: the one error whose envelope has no `details` key at all (section 7). */
export const notFoundHandler: RequestHandler = (req, res) => {
  const body: ErrorEnvelope = { error: { code: 'not_found', message: `No route for ${req.method} ${req.path}.`, request_id: req.requestId ?? null } };
  res.status(404).json(body);
};

interface BodyParserError {
  type?: string;
}

const BODY_PARSER_ERRORS: Record<string, () => DomainError> = {
  'entity.parse.failed': () => new DomainError('bad_request', 'The request body is not valid JSON.'),
  'entity.too.large': () => new DomainError('payload_too_large', 'The request body is too large.'),
  'encoding.unsupported': () => new DomainError('unsupported_encoding', 'The request body encoding is not supported.'),
  'charset.unsupported': () => new DomainError('unsupported_encoding', 'The request body encoding is not supported.'),
};

/**
 * Any thrown value as a domain error: ours as they are, the body parser's by its type, and
 * anything else as `internal` (logged here, under the request id; the answer says nothing of it).
 * Exported for features that answer their errors in another form (the OAuth callback's page).
 */
export function asDomainError(err: unknown, log?: { error(obj: object, msg: string): void }): DomainError {
  if (err instanceof DomainError) return err;
  const parserError = BODY_PARSER_ERRORS[(err as BodyParserError)?.type ?? ''];
  if (parserError) return parserError();
  log?.error({ err }, 'unhandled error');
  return new DomainError('internal', 'Internal server error.');
}

/** The only place errors become JSON responses: each kind answered as ERROR_RESPONSES says. */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  const error = asDomainError(err, req.log);
  const { status, code } = ERROR_RESPONSES[error.kind];
  if (error instanceof RateLimitedError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  if (status >= 500 && error.kind !== 'internal') req.log?.warn({ code, message: error.message }, 'provider error');
  if (res.headersSent) return;
  const body: ErrorEnvelope = { error: { code, message: error.message, details: error.details, request_id: req.requestId ?? null } };
  res.status(status).json(body);
};
