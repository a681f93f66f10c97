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
const REFUSALS: Record<string, () => RequestBodyError> = {
  'entity.parse.failed': () => new RequestBodyError('bad_request', 'The request body is not valid JSON.'),
  'entity.too.large': () => new RequestBodyError('payload_too_large', 'The request body is too large (at most 1 MB).'),
  'encoding.unsupported': () => new RequestBodyError('unsupported_encoding', 'The request body encoding is not supported; send it uncompressed, or as gzip, deflate or br.'),
  'charset.unsupported': () => new RequestBodyError('unsupported_encoding', 'The request body charset is not supported; send UTF-8.'),
};

/**
 * Anything the reader reports is about the bytes the client sent, never about us: a body that
 * does not decode as its Content-Encoding says (zlib and brotli raise their own errors, which the
 * parser passes on untyped), a body cut short, or one of the typed refusals above. So each is a
 * 4xx, and none reaches the error handler as an unknown error (a 500).
 */
export function asBodyError(err: unknown, contentEncoding: string | undefined): unknown {
  if (err instanceof RequestBodyError) return err;
  // The parser's own faults (a stream it cannot read): ours, so left for the handler's `internal`.
  if (((err as ReaderError | null)?.status ?? 400) >= 500) return err;
  const refusal = REFUSALS[(err as ReaderError | null)?.type ?? ''];
  if (refusal) return refusal();
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') return new RequestBodyError('bad_request', `The request body does not decode as its Content-Encoding (${encoding}) says.`);
  return new RequestBodyError('bad_request', 'The request body could not be read in full.');
}

/** One parser behind the shared error translation: whatever it refuses goes on as a RequestBodyError. */
function reading(parser: RequestHandler): RequestHandler {
  return (req, res, next) => {
    parser(req, res, (err?: unknown) => (err === undefined || err === null ? next() : next(asBodyError(err, req.headers['content-encoding']))));
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
