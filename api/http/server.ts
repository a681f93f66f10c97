import { createServer, maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenOn } from '../../infra/runtime/listen';
import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import type { ErrorEnvelope } from '../../domain/errors/errors';
import { ERROR_RENDERINGS } from '../../domain/errors/error-kinds';
import { isProblemPath, PROBLEM_CONTENT_TYPE, type Problem } from '../v1/problem';

/** Below docker compose's 10-second grace before SIGKILL, and `npm start`'s 15. */
export const DRAIN_DEADLINE_MS = 8_000;

export interface ApiServer {
  server: Server;
  url: string;
  /**
   * Stops accepting connections, lets the requests in flight finish (each answered with
   * `Connection: close`), and after `deadlineMs` cuts whatever is still open. Resolves once no
   * connection is left, saying whether everything finished in time. Only then may the caller
   * close the database pools the handlers use.
   */
  stop(deadlineMs?: number): Promise<{ drained: boolean }>;
}

/** The statuses Node itself would answer a request it could not parse, with our error shapes (section 7, D10). */
const CLIENT_ERRORS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request took too long to arrive.' },
};
const MALFORMED = { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP.' };

/** llhttp's reasons are fixed texts ("Invalid header token"); anything else is not repeated to the client. */
const SAFE_REASON = /^[A-Za-z][\x20-\x7e]{0,119}$/;

/** What Node attaches to the errors of its HTTP parser (`clientError`). */
type ClientError = Error & { code?: string; reason?: unknown; rawPacket?: unknown; bytesParsed?: unknown };

/** Node's parser of a connection, as `clientError` finds it: the request it is reading, if any. */
type ParsedSocket = Socket & { parser?: { incoming?: IncomingMessage | null } | null };

/**
 * Per connection, the bytes of the request head being read (and a little before it): Node's
 * parser keeps no text of a request it refuses, and the error's `rawPacket` is only the last
 * read, which need not hold the request line (a head sent in pieces).
 */
interface Received {
  chunks: Buffer[];
  length: number;
  /** A request's head was read during the last read: what came before it is no longer wanted. */
  headRead: boolean;
}
const received = new WeakMap<Socket, Received>();
/** The response in progress on each connection, if any. */
const responding = new WeakMap<Socket, ServerResponse>();

/**
 * Keeps a connection's recent head bytes, at most `limit` of them besides the last read. A `data`
 * listener of our own makes Node parse the connection in JavaScript rather than natively (each
 * read is handed to the parser, then to this listener); beside a request's own work it costs
 * nothing we could measure. Inside a body only the last read is kept: a refused body is known by
 * its request (`refusedTarget`), and the next request can only start in the read that ends it.
 */
function keepReceived(socket: ParsedSocket, limit: number): void {
  const kept: Received = { chunks: [], length: 0, headRead: false };
  received.set(socket, kept);
  socket.on('data', (chunk: Buffer) => {
    const incoming = socket.parser?.incoming;
    if (kept.headRead || (incoming && !incoming.complete)) {
      kept.chunks = [];
      kept.length = 0;
      kept.headRead = false;
    }
    kept.chunks.push(chunk);
    kept.length += chunk.length;
    while (kept.chunks.length > 1 && kept.length - kept.chunks[0]!.length >= limit) kept.length -= kept.chunks.shift()!.length;
  });
}

/** A request line (`METHOD target [version]`): the method has no colon, unlike a header line. */
const REQUEST_LINE = /^[^\s:]+ +(\/\S*|\*|[a-z][a-z0-9+.-]*:\/\/\S*)(?:\s.*)?$/i;

/**
 * The target of the request Node refused, or undefined when none can be read: the request being
 * read when its body was refused (a bad chunk), else the last request line up to the line where
 * the parser stopped.
 */
function refusedTarget(error: ClientError, socket: ParsedSocket): string | undefined {
  const incoming = socket.parser?.incoming;
  if (incoming && !incoming.complete && incoming.url) return incoming.url;
  let current = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : Buffer.alloc(0);
  if (typeof error.bytesParsed === 'number') {
    const lineEnd = current.indexOf(0x0a, error.bytesParsed);
    if (lineEnd >= 0) current = current.subarray(0, lineEnd + 1);
  }
  const text = Buffer.concat([...(received.get(socket)?.chunks ?? []), current]).toString('latin1');
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const target = REQUEST_LINE.exec(lines[i]!)?.[1];
    if (target !== undefined) return target;
  }
  return undefined;
}

/** D10: the request's interface by its target; an unreadable target is answered as /api/ (section 7). */
function answersProblem(target: string | undefined): boolean {
  if (target === undefined || target === '*') return false;
  let path = target.split(/[?#]/, 1)[0]!;
  if (!path.startsWith('/')) {
    try {
      path = new URL(target).pathname;
    } catch {
      return false;
    }
  }
  return isProblemPath(path);
}

/**
 * A request Node cannot parse never reaches Express; Node would answer it with an empty body.
 * This answers the error in the shape of the interface it was sent to instead: a problem
 * document under /v1/ (D10), the section 7 envelope elsewhere, where the connection still can be
 * written to (not while a response of its is half sent).
 */
function answerClientError(error: ClientError, socket: Socket): void {
  const inProgress = responding.get(socket);
  if (error.code === 'ECONNRESET' || !socket.writable || (inProgress && inProgress.headersSent && !inProgress.writableEnded)) {
    socket.destroy();
    return;
  }
  const known = CLIENT_ERRORS[error.code ?? ''];
  const { status, reason } = known ?? MALFORMED;
  const message = known ? known.message : typeof error.reason === 'string' && SAFE_REASON.test(error.reason) ? `The request is not valid HTTP: ${error.reason}.` : MALFORMED.message;
  const requestId = randomUUID();
  // Refused input whatever the status: the bad_request row's code and problem type (section 7, D10).
  const rendering = ERROR_RENDERINGS.bad_request;
  let body: string;
  let contentType: string;
  if (answersProblem(refusedTarget(error, socket))) {
    const problem: Problem = { type: rendering.problem.type, title: rendering.problem.title, status, detail: message, request_id: requestId };
    body = JSON.stringify(problem);
    contentType = PROBLEM_CONTENT_TYPE;
  } else {
    const envelope: ErrorEnvelope = { error: { code: rendering.code, message, details: null, request_id: requestId } };
    body = JSON.stringify(envelope);
    contentType = 'application/json; charset=utf-8';
  }
  socket.end(
    [
      `HTTP/1.1 ${status} ${reason}`,
      `Content-Type: ${contentType}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      'X-Content-Type-Options: nosniff',
      'Cache-Control: no-store',
      `x-request-id: ${requestId}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/** Longer than Caddy's upstream keep-alive (2 minutes), so the proxy is always the side that lets an idle connection go. */
const KEEP_ALIVE_TIMEOUT_MS = 125_000;

/** The API's HTTP server: the app, envelopes for unparseable requests, and a draining stop. */
export async function serve(app: Express, options: { port: number; host?: string }): Promise<ApiServer> {
  const server = createServer(app);
  // An idle connection is kept longer than any client or proxy in front of us keeps it (Caddy's
  // upstream keep-alive is two minutes): when the server closed first, at Node's 5 s default, a
  // request sent on the socket at that moment met a reset (a 502 through the proxy, ECONNRESET
  // for a direct client). A stop still closes every connection at once.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on('clientError', answerClientError);
  // A refused head is at most Node's header limit of counted bytes (names and values; not the
  // separators between them), so its request line is within a few times that.
  server.on('connection', (socket: Socket) => keepReceived(socket, 4 * maxHeaderSize));

  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  let settle: (() => void) | undefined;
  // No connection is kept alive past a stop: the client opens its next one elsewhere.
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const kept = received.get(req.socket);
    if (kept) kept.headRead = true;
    responding.set(req.socket, res);
    inFlight.add(res);
    if (stopping) closeAfter(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (inFlight.size === 0) settle?.();
    });
  });

  const url = await listenOn(server, options.port, options.host);

  return {
    server,
    url,
    async stop(deadlineMs = DRAIN_DEADLINE_MS) {
      stopping = true;
      for (const res of inFlight) closeAfter(res);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const idle = inFlight.size === 0 ? Promise.resolve(true) : new Promise<boolean>((resolve) => (settle = () => resolve(true)));
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs)));
      const drained = await Promise.race([idle, deadline]);
      clearTimeout(timer);
      // Keep-alive connections that carried the last responses, and anything past the deadline.
      server.closeAllConnections();
      await closed;
      return { drained };
    },
  };
}
