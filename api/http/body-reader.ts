import express, { type RequestHandler } from 'express';
import { DomainError } from '../../domain/errors/errors';

/** The largest request body any route reads. */
const BODY_LIMIT = '1mb';

/**
 * A refusal of the request body itself, raised by the one body reader before any route runs.
 * A DomainError like any other (the error handler answers it in the path's shape); its own class
 * so that GraphQL can answer it in GraphQL's shape instead (api/graphql/routes.ts).
 */
export class RequestBodyError extends DomainError {}

interface ReaderError {
  type?: string;
  status?: number;
}

/** The body parser's refusals by their type: each as the kind the error table answers. */
const REFUSALS: Record<string, (limit: string) => RequestBodyError> = {
  'entity.parse.failed': () => new RequestBodyError('bad_request', 'The request body is not valid JSON.'),
  'entity.too.large': (limit) => new RequestBodyError('payload_too_large', `The request body is too large (at most ${limit}).`),
  'parameters.too.many': () => new RequestBodyError('payload_too_large', 'The form has too many fields.'),
  'encoding.unsupported': () => new RequestBodyError('unsupported_encoding', 'The request body encoding is not supported; send it uncompressed, or as gzip, deflate or br.'),
  'charset.unsupported': () => new RequestBodyError('unsupported_encoding', 'The request body charset is not supported; send UTF-8.'),
};

/**
 * Anything the reader reports is about the bytes the client sent, never about us: a body that
 * does not decode as its Content-Encoding says (zlib and brotli raise their own errors, which the
 * parser passes on untyped), a body cut short, or one of the typed refusals above. So each is a
 * 4xx, and none reaches the error handler as an unknown error (a 500).
 */
export function asBodyError(err: unknown, contentEncoding: string | undefined, limit = '1 MB'): unknown {
  if (err instanceof RequestBodyError) return err;
  // The parser's own faults (a stream it cannot read): ours, so left for the handler's `internal`.
  if (((err as ReaderError | null)?.status ?? 400) >= 500) return err;
  const refusal = REFUSALS[(err as ReaderError | null)?.type ?? ''];
  if (refusal) return refusal(limit);
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') return new RequestBodyError('bad_request', `The request body does not decode as its Content-Encoding (${encoding}) says.`);
  return new RequestBodyError('bad_request', 'The request body could not be read in full.');
}

/** One parser behind the shared error translation: whatever it refuses goes on as a RequestBodyError. */
function reading(parser: RequestHandler, limit = '1 MB'): RequestHandler {
  return (req, res, next) => {
    parser(req, res, (err?: unknown) => (err === undefined || err === null ? next() : next(asBodyError(err, req.headers['content-encoding'], limit))));
  };
}

/**
 * The one body reader of JSON routes: every JSON body, in every interface, is read here, so a bad
 * encoding is refused once for all of them.
 */
export const readJsonBody = (): RequestHandler => reading(express.json({ limit: BODY_LIMIT, strict: false }));

/** The exact bytes, for a body verified by its signature (the payments webhook), under the same refusals. */
export const readRawBody = (): RequestHandler => reading(express.raw({ type: () => true, limit: BODY_LIMIT }));

/** D21: a CSV file as bytes (the price book import decodes and parses it); other types pass on untouched. */
export const readCsvBody = (): RequestHandler => reading(express.raw({ type: ['text/csv', 'application/csv'], limit: BODY_LIMIT }));

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * D24: a page's form post (URL-encoded, flat, at most 16 KB decoded and 10 fields), under the same
 * refusals as every other body: a Content-Encoding the body does not decode as is a 400, an
 * encoding we do not take a 415, a body (or a compressed body once inflated) over the limit a 413.
 * Only UTF-8 is read: the parser would also take ISO-8859-1, which no page of ours sends, so any
 * other charset is a 415 here. Another content type passes on unread (the form then has no fields).
 */
export function readFormBody(): RequestHandler {
  const parser = reading(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 }), '16 KB');
  return (req, res, next) => {
    if (req.is(FORM_TYPE)) {
      const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase();
      if (charset !== undefined && charset !== 'utf-8') return next(REFUSALS['charset.unsupported']!('16 KB'));
    }
    parser(req, res, next);
  };
}

/** D24: a workspace logo as bytes (PNG or JPEG, at most 256 KB); other types pass on unread (the route answers 415). */
export const readImageBody = (): RequestHandler => reading(express.raw({ type: ['image/png', 'image/jpeg'], limit: '256kb' }), '256 KB');
