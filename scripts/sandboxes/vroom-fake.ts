// A local VROOM server (vroom-express in front of the vroom binary) for the VROOM implementation
// of the route solver (D23, infra/routing/vroom-solver.ts). It validates the request as VROOM does
// (scripts/sandboxes/vroom/input.ts) and answers VROOM's documented output: `code`, `summary`,
// `unassigned` and `routes` with their `steps`, or `code` and `error` with vroom-express's HTTP
// status (400 for an input error, 500 for an internal or routing one). Listens on 127.0.0.1.
//
//   const fake = new VroomFake();
//   const { url, close } = await fake.start();   // ROUTING_VROOM_URL=url
import { HttpFake, json } from './core/http-fake';
import type { FakeRequest, FakeResponse, StartedFake } from './core/http-fake';
import type { FaultInjector, RequestLog } from './faults';
import { VroomInputError, parseVroomInput } from './vroom/input';
import { solveVroom } from './vroom/solve';

/** VROOM's exit codes, which vroom-express also puts in the body. */
export const VROOM_CODES = { ok: 0, internal: 1, input: 2, routing: 3 } as const;

export class VroomFake {
  readonly #http: HttpFake;
  readonly #now: () => number;
  /** The bodies of the problems received, newest last, for tests to inspect what a client sent. */
  readonly problems: unknown[] = [];
  /** Raw bodies to answer instead of a solution (a broken proxy, a truncated answer). */
  readonly #garbage: string[] = [];
  /** A raw body answered to every problem, until cleared (a server that is broken for good). */
  #always: string | undefined;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#http = new HttpFake({ handle: (req) => this.#handle(req), faultResponse: (status) => json(status, { code: VROOM_CODES.internal, error: 'Internal error' }) }, this.#now);
  }

  get faults(): FaultInjector {
    return this.#http.faults;
  }

  get requests(): RequestLog {
    return this.#http.requests;
  }

  get url(): string {
    return this.#http.url;
  }

  start(port = 0): Promise<StartedFake> {
    return this.#http.start(port);
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /** Answers the next problem with HTTP 200 and this body instead of a solution. */
  answerNextWith(body: string): void {
    this.#garbage.push(body);
  }

  /**
   * Answers every problem with HTTP 200 and this body (non-JSON, JSON that is no solution) until
   * called with undefined. A server that hangs, closes the connection or answers an error every
   * time is a fault rule with `times: Infinity` (`faults`).
   */
  answerEveryWith(body: string | undefined): void {
    this.#always = body;
  }

  #handle(req: FakeRequest): FakeResponse {
    if (req.path === '/health' && req.method === 'GET') return { status: 200 };
    if (req.path !== '/' || req.method !== 'POST') return json(404, { code: VROOM_CODES.input, error: `Cannot ${req.method} ${req.path}` });
    let body: unknown;
    try {
      body = JSON.parse(req.body.toString('utf8'));
    } catch {
      return json(400, { code: VROOM_CODES.input, error: 'Invalid JSON object in request, please add vehicles and jobs or shipments to the object body' });
    }
    this.problems.push(body);
    const garbage = this.#garbage.shift() ?? this.#always;
    if (garbage !== undefined) return { status: 200, headers: { 'content-type': 'application/json' }, body: garbage };
    const started = this.#now();
    try {
      return json(200, solveVroom(parseVroomInput(body), started, this.#now));
    } catch (error) {
      if (error instanceof VroomInputError) return json(400, { code: VROOM_CODES.input, error: error.message });
      throw error;
    }
  }
}
