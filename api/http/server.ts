import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenOn } from '../../infra/runtime/listen';
import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import type { ErrorEnvelope } from '../../domain/errors/errors';
import { ERROR_RENDERINGS } from '../../domain/errors/error-kinds';

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

/** The statuses Node itself would answer a request it could not parse, with our envelope (section 7). */
const CLIENT_ERRORS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request took too long to arrive.' },
};
const MALFORMED = { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP.' };

/**
 * A request Node cannot parse never reaches Express; Node would answer it with an empty body.
 * This answers the error envelope instead, where the connection still can be written to.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const { status, reason, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
  const requestId = randomUUID();
  // Refused input whatever the status: its code is the bad_request row's (section 7).
  const envelope: ErrorEnvelope = { error: { code: ERROR_RENDERINGS.bad_request.code, message, details: null, request_id: requestId } };
  const body = JSON.stringify(envelope);
  socket.end(
    [
      `HTTP/1.1 ${status} ${reason}`,
      'Content-Type: application/json; charset=utf-8',
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

  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  let settle: (() => void) | undefined;
  // No connection is kept alive past a stop: the client opens its next one elsewhere.
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.on('request', (_req, res: ServerResponse) => {
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
