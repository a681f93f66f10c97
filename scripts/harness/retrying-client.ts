import { randomInt } from 'node:crypto';

export type RequestInitWithJson = RequestInit & { token?: string; json?: unknown };

/**
 * A client of the API that outlives the API process: a request that finds no API (refused,
 * reset, cut off mid-answer) is sent again until the API answers or `patienceMs` runs out.
 * Given several API processes, it sends its requests to each in turn, as a load balancer would,
 * and one that finds no API goes to the next (the scale-out test kills one of two).
 * Whether sending it again is safe is the caller's concern (it knows what the request does);
 * an answer, any status, is returned as it is.
 *
 * Each request speaks from its own address of the benchmarking range 198.18.0.0/15 (only
 * X-Forwarded-For text, nothing connects to it), as many clients would, so the broad limit of
 * 300 a minute per address does not throttle a campaign; the API is started trusting one proxy hop.
 */
export class RetryingClient {
  /** Requests sent again because the API was not there. */
  resent = 0;
  /** Answers `idempotency-key-in-use` waited out (a key a killed API held; D14). */
  waitedForKeys = 0;
  /** Answers per API base URL. */
  readonly answered = new Map<string, number>();
  private readonly baseUrls: readonly string[];
  private turn = 0;

  constructor(
    baseUrl: string | readonly string[],
    private readonly patienceMs = 180_000,
  ) {
    this.baseUrls = typeof baseUrl === 'string' ? [baseUrl] : baseUrl;
    if (this.baseUrls.length === 0) throw new Error('a RetryingClient needs at least one API');
  }

  async request(path: string, init: RequestInitWithJson = {}): Promise<Response> {
    const deadline = Date.now() + this.patienceMs;
    for (let failures = 1; ; failures++) {
      const baseUrl = this.baseUrls[this.turn++ % this.baseUrls.length]!;
      try {
        const res = await fetch(baseUrl + path, this.prepared(init));
        this.answered.set(baseUrl, (this.answered.get(baseUrl) ?? 0) + 1);
        return res;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`${init.method ?? 'GET'} ${path}: no API for ${this.patienceMs} ms (${String(error)})`, { cause: error });
        this.resent++;
        // The next API at once; a pause only once every one of them failed this request.
        if (failures % this.baseUrls.length !== 0) continue;
        await new Promise((resolve) => setTimeout(resolve, 200 + randomInt(300)));
      }
    }
  }

  /** The answer's JSON, throwing with the status and body unless it is `expected`. */
  async json<T>(path: string, init: RequestInitWithJson, expected = 200): Promise<T> {
    const res = await this.request(path, init);
    if (res.status !== expected) throw new Error(`${init.method ?? 'GET'} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  }

  private prepared(init: RequestInitWithJson): RequestInit {
    const headers = new Headers(init.headers);
    if (!headers.has('x-forwarded-for')) headers.set('x-forwarded-for', `198.${randomInt(18, 20)}.${randomInt(0, 256)}.${randomInt(1, 255)}`);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const { token: _token, json: _json, ...rest } = init;
    return { ...rest, headers, body, signal: AbortSignal.timeout(60_000) };
  }
}
