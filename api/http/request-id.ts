import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

const MAX_INBOUND_ID = 200;
const SAFE_ID = /^[\x21-\x7e]+$/;

/**
 * Section 7: `request_id` echoes an inbound `x-request-id` (when it is a sane token) or is
 * generated; every log line of the request carries it.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const inbound = req.get('x-request-id');
    req.requestId = inbound && inbound.length <= MAX_INBOUND_ID && SAFE_ID.test(inbound) ? inbound : randomUUID();
    req.log = logger.child({ request_id: req.requestId });
    res.setHeader('x-request-id', req.requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // The path only: query strings can carry OAuth codes and states.
      req.log.info(
        { method: req.method, path: req.path, status: res.statusCode, duration_ms: Number((process.hrtime.bigint() - started) / 1_000_000n) },
        'request completed',
      );
    });
    next();
  };
}
