import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError, RateLimitedError, type ErrorEnvelope } from './errors';
import { sendCallbackPage } from '../integrations/callback-page';

/** Section 4.5: the OAuth callback answers HTML in every outcome, errors included. */
const CALLBACK_PATH = /^\/api\/v1\/integrations\/[^/]+\/callback\/?$/;

/** Router 404: the one error whose envelope has no `details` key at all (section 7). */
export const notFoundHandler: RequestHandler = (req, res) => {
  const body: ErrorEnvelope = { error: { code: 'not_found', message: `No route for ${req.method} ${req.path}.`, request_id: req.requestId ?? null } };
  res.status(404).json(body);
};

interface BodyParserError {
  type?: string;
  status?: number;
}

/**
 * The only place errors become responses. Typed errors keep their status and code; anything
 * else is a 500 whose body says nothing about the cause (the log has it, under the request id).
 */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  const requestId = req.requestId ?? null;
  let apiError: ApiError;
  if (err instanceof ApiError) {
    apiError = err;
  } else if ((err as BodyParserError)?.type === 'entity.parse.failed') {
    apiError = new ApiError(400, 'bad_request', 'The request body is not valid JSON.');
  } else if ((err as BodyParserError)?.type === 'entity.too.large') {
    apiError = new ApiError(413, 'bad_request', 'The request body is too large.');
  } else if ((err as BodyParserError)?.type === 'encoding.unsupported' || (err as BodyParserError)?.type === 'charset.unsupported') {
    apiError = new ApiError(415, 'bad_request', 'The request body encoding is not supported.');
  } else {
    req.log?.error({ err }, 'unhandled error');
    apiError = new ApiError(500, 'internal_error', 'Internal server error.');
  }
  if (apiError instanceof RateLimitedError) res.setHeader('Retry-After', String(apiError.retryAfterSeconds));
  if (apiError.status >= 500 && apiError.code !== 'internal_error') req.log?.warn({ code: apiError.code, message: apiError.message }, 'provider error');
  if (res.headersSent) return;
  if (CALLBACK_PATH.test(req.path)) {
    if (apiError instanceof RateLimitedError) return sendCallbackPage(res, { kind: 'rate_limited', retryAfterSeconds: apiError.retryAfterSeconds });
    if (apiError.status >= 500) return sendCallbackPage(res, { kind: 'failed', requestId: requestId ?? 'unknown' });
    return sendCallbackPage(res, { kind: 'bad_request', reason: apiError.message });
  }
  const body: ErrorEnvelope = { error: { code: apiError.code, message: apiError.message, details: apiError.details, request_id: requestId } };
  res.status(apiError.status).json(body);
};
