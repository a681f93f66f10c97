// Fault injection and request logging shared by every fake provider.
//
// A fault rule matches the next N requests by method and path and replaces the normal handling:
//   - `status`: answer with a status and the provider's own error body for that status (or a given one);
//   - `hang`: read the request, never perform it, and hold the socket until `ms` elapse, then cut it,
//     so the client sees its own timeout (or a reset if its timeout is longer);
//   - `delay`: perform the operation at once but answer only after `ms` (a slow provider);
//   - `lose-response`: perform the operation, then destroy the socket without answering — the
//     "did my write happen?" case that idempotency keys exist for;
//   - `reset`: destroy the socket without performing anything.
// Rules are consumed in insertion order; the first matching rule with uses left wins.

export type FaultAction =
  | {
      kind: 'status';
      status: number;
      /** JSON-serialisable body; omitted = the provider's own body for this status. */
      body?: unknown;
      headers?: Record<string, string>;
      /** Sets `Retry-After` (seconds), as providers do on 429 and some 503s. */
      retryAfterSeconds?: number;
    }
  | { kind: 'hang'; ms: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'lose-response' }
  | { kind: 'reset' };

export interface RequestInfo {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface FaultRule {
  /** HTTP method, case-insensitive; omitted or '*' matches any. */
  method?: string;
  /**
   * Exact path, a glob where `*` matches one path segment and `**` any number of segments
   * (e.g. '/v1/invoices/*\/finalize'), or a RegExp tested against the path (no query string).
   */
  path: string | RegExp;
  /** How many matching requests this rule affects; default 1. Infinity is allowed. */
  times?: number;
  /** Extra predicate, e.g. on the query string or a header. */
  when?: (req: RequestInfo) => boolean;
  action: FaultAction;
}

export interface FaultHandle {
  /** Matching requests still to be affected. */
  readonly remaining: number;
  /** Matching requests already affected. */
  readonly hits: number;
  cancel(): void;
}

interface ActiveRule {
  rule: FaultRule;
  matcher: (path: string) => boolean;
  remaining: number;
  hits: number;
}

function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        out += '.*';
        i++;
      } else {
        out += '[^/]*';
      }
    } else {
      out += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}

export class FaultInjector {
  readonly #rules: ActiveRule[] = [];

  inject(rule: FaultRule): FaultHandle {
    const times = rule.times ?? 1;
    if (!(times > 0)) throw new Error('fault rule `times` must be positive');
    const re = typeof rule.path === 'string' ? globToRegExp(rule.path) : rule.path;
    const active: ActiveRule = { rule, matcher: (p) => re.test(p), remaining: times, hits: 0 };
    this.#rules.push(active);
    const rules = this.#rules;
    return {
      get remaining() {
        return active.remaining;
      },
      get hits() {
        return active.hits;
      },
      cancel() {
        active.remaining = 0;
        const i = rules.indexOf(active);
        if (i >= 0) rules.splice(i, 1);
      },
    };
  }

  /** Returns the action for this request and consumes one use of the rule, if any rule matches. */
  take(req: RequestInfo): FaultAction | undefined {
    for (const active of this.#rules) {
      if (active.remaining <= 0) continue;
      const m = active.rule.method;
      if (m && m !== '*' && m.toUpperCase() !== req.method) continue;
      if (!active.matcher(req.path)) continue;
      if (active.rule.when && !active.rule.when(req)) continue;
      active.remaining--;
      active.hits++;
      if (active.remaining <= 0) this.#rules.splice(this.#rules.indexOf(active), 1);
      return active.rule.action;
    }
    return undefined;
  }

  clear(): void {
    this.#rules.length = 0;
  }

  /** Rules that still have uses left, for asserting that a test consumed what it injected. */
  pending(): FaultRule[] {
    return this.#rules.filter((r) => r.remaining > 0).map((r) => r.rule);
  }
}

// Shorthands for the common actions.
export const faults = {
  status(status: number, opts: { body?: unknown; headers?: Record<string, string>; retryAfterSeconds?: number } = {}): FaultAction {
    return { kind: 'status', status, ...opts };
  },
  unavailable(opts: { body?: unknown; retryAfterSeconds?: number } = {}): FaultAction {
    return { kind: 'status', status: 503, ...opts };
  },
  rateLimited(retryAfterSeconds = 1, opts: { body?: unknown } = {}): FaultAction {
    return { kind: 'status', status: 429, retryAfterSeconds, ...opts };
  },
  hang(ms: number): FaultAction {
    return { kind: 'hang', ms };
  },
  delay(ms: number): FaultAction {
    return { kind: 'delay', ms };
  },
  loseResponse(): FaultAction {
    return { kind: 'lose-response' };
  },
  reset(): FaultAction {
    return { kind: 'reset' };
  },
} as const;

export type RequestOutcome =
  | 'pending'
  /** A response was written. */
  | 'answered'
  /** Operation performed, response never sent (lose-response). */
  | 'lost'
  /** Socket cut without performing the operation (hang or reset). */
  | 'cut'
  /** The client went away before the response could be written. */
  | 'client-closed';

export interface LoggedRequest {
  seq: number;
  at: number;
  method: string;
  path: string;
  query: Record<string, string>;
  /** Provider idempotency token: Stripe `Idempotency-Key`, QBO `requestid`; undefined elsewhere. */
  idempotencyKey: string | undefined;
  /** Status the fake produced (also set for `lost`: what the client would have seen). */
  status: number | undefined;
  outcome: RequestOutcome;
  /** Which injected fault handled it, if any. */
  fault: FaultAction['kind'] | undefined;
  /** True when the provider replayed a stored response for an idempotency token. */
  replayed: boolean;
}

export class RequestLog {
  readonly #entries: LoggedRequest[] = [];
  #seq = 0;

  open(entry: Omit<LoggedRequest, 'seq' | 'status' | 'outcome' | 'replayed' | 'fault'>): LoggedRequest {
    const e: LoggedRequest = { ...entry, seq: ++this.#seq, status: undefined, outcome: 'pending', fault: undefined, replayed: false };
    this.#entries.push(e);
    return e;
  }

  all(): readonly LoggedRequest[] {
    return this.#entries;
  }

  /** Requests matching method and path (same glob/RegExp rules as faults). */
  find(method: string | undefined, path: string | RegExp): LoggedRequest[] {
    const re = typeof path === 'string' ? globToRegExp(path) : path;
    return this.#entries.filter((e) => (!method || method === '*' || e.method === method.toUpperCase()) && re.test(e.path));
  }

  count(method: string | undefined, path: string | RegExp): number {
    return this.find(method, path).length;
  }

  clear(): void {
    this.#entries.length = 0;
  }
}
