// The HTTP plumbing every fake shares: a node:http server on 127.0.0.1 with an ephemeral port,
// request buffering, the fault-injection pipeline and the request log. Providers only supply a
// handler and their own error body for an injected status.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { FaultInjector, RequestLog } from '../faults';
import type { FaultAction, LoggedRequest, RequestInfo } from '../faults';

export interface FakeRequest extends RequestInfo {
  /** Full URL as the client addressed it (origin = the fake's own URL). */
  url: URL;
  /** The fake's origin, e.g. http://127.0.0.1:40123, for building absolute links. */
  origin: string;
  header(name: string): string | undefined;
}

export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Set by providers that replay an idempotent response, for the request log. */
  replayed?: boolean;
}

export interface ProviderHooks {
  handle(req: FakeRequest): FakeResponse | Promise<FakeResponse>;
  /** Body the provider itself would send for an injected status (rate limit, outage, ...). */
  faultResponse(status: number, req: FakeRequest): FakeResponse;
  /** Extracts the provider's idempotency token, for the request log. */
  idempotencyKey?(req: FakeRequest): string | undefined;
}

export interface StartedFake {
  url: string;
  close(): Promise<void>;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): FakeResponse {
  return { status, headers: { 'content-type': 'application/json;charset=UTF-8', ...headers }, body: JSON.stringify(body) };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The sandboxes' fault control path (see #controlFaults). */
export const SANDBOX_FAULTS_PATH = '/__sandbox/faults';

/** One fake provider bound to at most one listening server at a time. */
export class HttpFake {
  readonly faults = new FaultInjector();
  readonly requests = new RequestLog();
  readonly #hooks: ProviderHooks;
  readonly #now: () => number;
  #server: Server | undefined;
  #origin: string | undefined;
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(hooks: ProviderHooks, now: () => number) {
    this.#hooks = hooks;
    this.#now = now;
  }

  get url(): string {
    if (!this.#origin) throw new Error('fake not started');
    return this.#origin;
  }

  /** Listens on 127.0.0.1: an ephemeral port unless one is given (npm start's sandboxes). */
  async start(port = 0): Promise<StartedFake> {
    if (this.#server) throw new Error('fake already started');
    const server = createServer((req, res) => {
      this.#dispatch(req, res).catch((err: unknown) => {
        // A bug in a fake must be loud in the test run, not a silent hang.
        console.error('fake provider crashed handling', req.method, req.url, err);
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`fake provider error: ${String(err)}`);
        }
      });
    });
    server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const { port: bound } = server.address() as AddressInfo;
    this.#server = server;
    this.#origin = `http://127.0.0.1:${bound}`;
    return { url: this.#origin, close: () => this.close() };
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    for (const s of this.#sockets) s.destroy();
    await closed;
  }

  #sleep(ms: number, res: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.#timers.delete(t);
        resolve();
      }, ms);
      this.#timers.add(t);
      // The client giving up ends the wait early: nothing is left to answer.
      res.once('close', () => {
        clearTimeout(t);
        this.#timers.delete(t);
        resolve();
      });
    });
  }

  async #dispatch(raw: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(raw);
    const origin = this.#origin ?? 'http://127.0.0.1';
    const url = new URL(raw.url ?? '/', origin);
    const headers = raw.headers as Record<string, string | string[] | undefined>;
    const req: FakeRequest = {
      method: (raw.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      headers,
      body,
      url,
      origin,
      header: (name) => headerValue(headers[name.toLowerCase()]),
    };
    const entry = this.requests.open({
      at: this.#now(),
      method: req.method,
      path: req.path,
      query: Object.fromEntries(url.searchParams),
      idempotencyKey: this.#hooks.idempotencyKey?.(req),
    });
    if (req.path === SANDBOX_FAULTS_PATH) {
      this.#send(res, entry, this.#controlFaults(req));
      return;
    }
    const fault = this.faults.take(req);
    entry.fault = fault?.kind;
    if (!fault) {
      this.#send(res, entry, await this.#hooks.handle(req));
      return;
    }
    await this.#applyFault(fault, req, res, entry);
  }

  /**
   * The sandbox's own control (never a provider path): `POST` a status fault for the next
   * matching requests, as a developer simulates a provider outage or refusal by hand (README,
   * "Operating workflows"); `DELETE` clears them. Listens on 127.0.0.1 only, like the rest.
   */
  #controlFaults(req: FakeRequest): FakeResponse {
    if (req.method === 'DELETE') {
      this.faults.clear();
      return json(200, { cleared: true });
    }
    if (req.method !== 'POST') return json(405, { error: 'POST or DELETE' });
    let rule: unknown;
    try {
      rule = JSON.parse(req.body.toString('utf8'));
    } catch {
      return json(400, { error: 'the body is not JSON' });
    }
    const r = rule as { method?: unknown; path?: unknown; times?: unknown; status?: unknown; retry_after_seconds?: unknown };
    const times = r.times === undefined ? 1 : r.times;
    const valid =
      typeof r.path === 'string' && r.path.startsWith('/') &&
      (r.method === undefined || typeof r.method === 'string') &&
      typeof times === 'number' && Number.isInteger(times) && times >= 1 && times <= 1000 &&
      typeof r.status === 'number' && Number.isInteger(r.status) && r.status >= 400 && r.status <= 599 &&
      (r.retry_after_seconds === undefined || (typeof r.retry_after_seconds === 'number' && r.retry_after_seconds >= 0));
    if (!valid) return json(400, { error: 'expected {"path": "/...", "status": 400-599, "method"?, "times"? (1-1000), "retry_after_seconds"?}' });
    this.faults.inject({
      ...(typeof r.method === 'string' ? { method: r.method } : {}),
      path: r.path as string,
      times,
      action: { kind: 'status', status: r.status as number, ...(typeof r.retry_after_seconds === 'number' ? { retryAfterSeconds: r.retry_after_seconds } : {}) },
    });
    return json(201, { injected: { method: r.method ?? '*', path: r.path, times, status: r.status } });
  }

  async #applyFault(fault: FaultAction, req: FakeRequest, res: ServerResponse, entry: LoggedRequest): Promise<void> {
    switch (fault.kind) {
      case 'status': {
        const base = fault.body === undefined ? this.#hooks.faultResponse(fault.status, req) : json(fault.status, fault.body);
        const headers = { ...base.headers, ...fault.headers };
        if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
        this.#send(res, entry, { ...base, status: fault.status, headers });
        return;
      }
      case 'reset':
        entry.outcome = 'cut';
        res.socket?.destroy();
        return;
      case 'hang':
        await this.#sleep(fault.ms, res);
        entry.outcome = res.socket && !res.socket.destroyed ? 'cut' : 'client-closed';
        res.socket?.destroy();
        return;
      case 'delay': {
        const out = await this.#hooks.handle(req);
        await this.#sleep(fault.ms, res);
        this.#send(res, entry, out);
        return;
      }
      case 'lose-response': {
        const out = await this.#hooks.handle(req);
        entry.status = out.status;
        entry.replayed = out.replayed ?? false;
        entry.outcome = 'lost';
        res.socket?.destroy();
        return;
      }
    }
  }

  #send(res: ServerResponse, entry: LoggedRequest, out: FakeResponse): void {
    entry.status = out.status;
    entry.replayed = out.replayed ?? false;
    if (res.destroyed || !res.socket || res.socket.destroyed) {
      entry.outcome = 'client-closed';
      return;
    }
    entry.outcome = 'answered';
    const body = out.body ?? '';
    res.writeHead(out.status, { ...out.headers, 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  }
}
