import type { RequestHandler } from 'express';
import { runWithLogContext } from '../../infra/runtime/log-context';

/**
 * Whatever a request starts runs inside its scope, so the workflows it starts carry its
 * request id (infra/temporal/request-id-interceptor.ts puts it in their memo). After
 * api/http/request-id.ts, which chose the id.
 */
export function requestScope(): RequestHandler {
  return (req, _res, next) => runWithLogContext({ requestId: req.requestId, fields: {} }, next);
}
