// One delivery attempt of an outbound event (spec 6.3, decision D6): a single POST, no retries
// here (the workflow owns the schedule, domain/webhooks/backoff.ts), and a result that says whether to retry.
//
// node:http/node:https rather than fetch, because only they let us hook the resolution step of
// the very connection being made: the `lookup` passed in the request options classifies every
// address DNS returns for this connection and refuses before any connect if one is not public.
// Checking a name and then letting the HTTP client resolve it again would leave a window for a
// DNS answer that changes in between (rebinding); here the address checked is the address used.
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { classifyAddress, defaultResolver, describeRefusal, isLoopbackHost, isPermittedAddress, urlHost } from '../../infra/webhooks/address-policy';
import type { AddressClassification, Resolver } from '../../infra/webhooks/address-policy';

export type DeliveryOutcome = 'delivered' | 'retryable_failure' | 'permanent_failure';

export interface DeliveryAttemptResult {
  outcome: DeliveryOutcome;
  /** The receiver's HTTP status; null when no response arrived. */
  status: number | null;
  /** Why the attempt failed when there is no status to say it (or a 3xx was not followed). */
  error: string | null;
  durationMs: number;
  /** At most maxExcerptBytes of the response body, decoded as UTF-8, for the delivery log. */
  responseExcerpt: string | null;
  /** The headers sent, as sent (D13: the deliveries page shows each attempt's request); absent when nothing could be sent. */
  requestHeaders?: Record<string, string>;
  /** The response's headers as received; absent without a response. */
  responseHeaders?: Record<string, string>;
  /** The non-public address that was refused (D6), when that is why the attempt failed. */
  refusedAddress?: string;
}

export interface DeliverOnceInput {
  url: string;
  /** The exact bytes that were signed. */
  body: string;
  /** X-Service-Event, X-Service-Delivery and X-Service-Signature (spec 6.3 rules 1 and 2). */
  headers: Readonly<Record<string, string>>;
  /** OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS (D6). */
  allowPrivateNetworks: boolean;
  /** OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: loopback receivers too (and http to them); nothing else private. */
  allowLoopback?: boolean;
  /** Spec 6.3 rule 3: 8 seconds for the whole exchange. A parameter so tests can be quick. */
  timeoutMs?: number;
  /** Resolves the URL's host for this connection; tests inject it so they never touch DNS. */
  lookup?: Resolver;
  maxExcerptBytes?: number;
}

export const DELIVERY_TIMEOUT_MS = 8000;
/** D13: the first 4 KiB of the response body are kept for the deliveries page. */
export const DEFAULT_EXCERPT_BYTES = 4096;
export const USER_AGENT = 'ShadeOffice-Webhooks/1.0';

// Headers the delivery itself owns; a caller's value for one of them is ignored rather than
// sent, so a body can never be framed or typed differently from what was signed.
const OWNED_HEADERS = new Set(['content-type', 'content-length', 'user-agent', 'host', 'transfer-encoding', 'connection']);

/** Recognised by deliverOnce when its own connect-time check refused an address. */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_REFUSED_ADDRESS';
  constructor(readonly classification: Extract<AddressClassification, { public: false }>) {
    super(describeRefusal(classification));
    this.name = 'RefusedAddressError';
  }
}

/**
 * Spec 6.3 rule 4: only 5xx, 408 and 429 are retried. A 3xx is a failure because redirects are
 * not followed (rule 6), and it is not retried: a redirect is the receiver's deliberate,
 * repeatable answer, so asking again a few seconds later would get the same one (the tenant
 * fixes the URL and replays). Anything outside 100-599 is a receiver bug and is not retried.
 */
export function outcomeForStatus(status: number): DeliveryOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 500 && status < 600) return 'retryable_failure';
  if (status === 408 || status === 429) return 'retryable_failure';
  return 'permanent_failure';
}

function familyMatches(address: string, family: LookupOptions['family']): boolean {
  if (family === 4 || family === 'IPv4') return isIP(address) === 4;
  if (family === 6 || family === 'IPv6') return isIP(address) === 6;
  return true;
}

/**
 * The `lookup` hook for one connection: resolves with `resolve`, then (unless private networks
 * are allowed) refuses the connection with a RefusedAddressError if any answer is not public,
 * before net gets an address to connect to. Any, not just the first: with happy eyeballs the
 * socket may try every returned address, so a mixed answer is not safe to trim.
 */
export function createGuardedLookup(
  resolve: Resolver,
  allowPrivate: boolean,
  onRefused: (classification: Extract<AddressClassification, { public: false }>) => void = () => {},
  allowLoopback = false,
): LookupFunction {
  return (hostname, options, callback) => {
    // Through a promise first, so that a resolver that throws synchronously is a lookup error.
    Promise.resolve(hostname).then(resolve).then(
      (answers: readonly LookupAddress[]) => {
        if (!allowPrivate) {
          for (const { address } of answers) {
            const classification = classifyAddress(address);
            if (!classification.public && !isPermittedAddress(classification, allowLoopback)) {
              onRefused(classification);
              callback(new RefusedAddressError(classification), '');
              return;
            }
          }
        }
        const usable = answers
          .filter(({ address }) => familyMatches(address, options.family))
          .map(({ address }) => ({ address, family: isIP(address) }));
        const first = usable[0];
        if (!first) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          callback(err, '');
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), ''),
    );
  };
}

/** Header names as received (lower case), repeated ones joined as HTTP allows. */
function responseHeadersOf(response: IncomingMessage | null): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!response) return headers;
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/**
 * Makes one attempt and never throws: every way it can end is a DeliveryAttemptResult, which
 * the caller logs (D6: every attempt is listed) and feeds to the retry schedule.
 *
 * Outcomes: 2xx delivered; 5xx, 408, 429, network errors and the deadline retryable; every other
 * status, a refused destination (D6) and an unusable URL permanent. A refusal is permanent
 * because it is a policy decision about the endpoint, not a transient fault.
 *
 * The deadline (timeoutMs) covers resolution, connect, sending and the response: at the deadline
 * the request is aborted and its socket destroyed. The status line decides the outcome as soon
 * as it arrives within the deadline (spec 6.3 rule 3 asks for a 2xx within 8 seconds); the body
 * is then read only for the excerpt, at most maxExcerptBytes of it and never past the deadline,
 * and the connection is dropped rather than draining the rest.
 */
export async function deliverOnce(input: DeliverOnceInput): Promise<DeliveryAttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = input.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const maxExcerptBytes = input.maxExcerptBytes ?? DEFAULT_EXCERPT_BYTES;
  const allowPrivate = input.allowPrivateNetworks;
  const allowLoopback = input.allowLoopback ?? false;
  const resolve = input.lookup ?? defaultResolver;

  const failure = (outcome: DeliveryOutcome, error: string, refusedAddress?: string): DeliveryAttemptResult => ({
    outcome,
    status: null,
    error,
    durationMs: elapsed(),
    responseExcerpt: null,
    ...(refusedAddress === undefined ? {} : { refusedAddress }),
  });

  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return failure('permanent_failure', 'invalid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return failure('permanent_failure', `unsupported URL scheme ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    return failure('permanent_failure', 'URL must not contain a user name or password');
  }
  const host = urlHost(url);
  // A literal IP never goes through `lookup` (net skips resolution for it), so it is checked here.
  if (!allowPrivate && isIP(host) !== 0) {
    const classification = classifyAddress(host);
    if (!classification.public && !isPermittedAddress(classification, allowLoopback)) return failure('permanent_failure', `refused: ${describeRefusal(classification)}`, host);
  }
  // The registration rule (address-policy.ts) again, in case the settings changed since then.
  if (!allowPrivate && url.protocol !== 'https:' && !(allowLoopback && isLoopbackHost(host))) {
    return failure('permanent_failure', allowLoopback ? 'URL must use https (http only for a loopback receiver)' : 'URL must use https');
  }

  let refused: Extract<AddressClassification, { public: false }> | null = null;
  const lookup = createGuardedLookup(
    resolve,
    allowPrivate,
    (classification) => {
      refused = classification;
    },
    allowLoopback,
  );

  const bodyBytes = Buffer.from(input.body, 'utf8');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) {
    if (!OWNED_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  headers['content-type'] = 'application/json';
  headers['user-agent'] = USER_AGENT;
  headers['content-length'] = String(bodyBytes.length);
  // As on the wire: node adds Host from the URL.
  const requestHeaders = { host: url.host, ...headers };
  // The request counts as sent once a permitted connection is made (D13: shown with the attempt);
  // a refusal, an unusable header or a connection that never opened sent nothing.
  let connected = false;
  const sentFailure = (outcome: DeliveryOutcome, error: string): DeliveryAttemptResult => ({ ...failure(outcome, error), ...(connected ? { requestHeaders } : {}) });

  const options: RequestOptions = {
    method: 'POST',
    hostname: host,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    // A fresh agent per attempt: no pooled socket from another tenant's delivery, and `lookup`
    // runs for this connection.
    agent: false,
    lookup,
  };

  return new Promise<DeliveryAttemptResult>((settle) => {
    let settled = false;
    let status: number | null = null;
    let response: IncomingMessage | null = null;
    const chunks: Buffer[] = [];
    let excerptBytes = 0;
    let req: ClientRequest | null = null;

    const excerpt = (): string | null => (status === null ? null : Buffer.concat(chunks).toString('utf8'));

    const finish = (result: DeliveryAttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      response?.destroy();
      req?.destroy();
      settle(result);
    };

    const finishWithResponse = () => {
      if (status === null) return;
      const outcome = outcomeForStatus(status);
      let error: string | null = null;
      if (status >= 300 && status < 400) {
        const location = response?.headers.location;
        error = `redirect not followed${location ? ` (Location: ${location.slice(0, 200)})` : ''}`;
      } else if (outcome !== 'delivered' && (status < 100 || status > 599)) {
        error = `unexpected status ${status}`;
      }
      finish({ outcome, status, error, durationMs: elapsed(), responseExcerpt: excerpt(), requestHeaders, responseHeaders: responseHeadersOf(response) });
    };

    const deadline = setTimeout(() => {
      if (status !== null) {
        // The answer came in time; only the excerpt is cut short.
        finishWithResponse();
        return;
      }
      finish(sentFailure('retryable_failure', `timeout: no response within ${timeoutMs} ms`));
    }, timeoutMs);

    const onError = (err: unknown) => {
      if (status !== null) {
        finishWithResponse();
      } else if (refused || err instanceof RefusedAddressError) {
        const classification = refused ?? (err as RefusedAddressError).classification;
        finish(failure('permanent_failure', `refused: ${describeRefusal(classification)}`, classification.address));
      } else {
        finish(sentFailure('retryable_failure', errorText(err)));
      }
    };

    try {
      req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(options);
    } catch (err) {
      // Such as a header value with a newline: retrying the same input cannot help.
      finish(failure('permanent_failure', `invalid request: ${errorText(err)}`));
      return;
    }

    req.on('error', onError);
    req.on('socket', (socket: Socket) => {
      // Defence in depth behind `lookup`: the address this socket actually connected to.
      socket.once('connect', () => {
        const remote = socket.remoteAddress;
        if (!allowPrivate && remote !== undefined) {
          const classification = classifyAddress(remote);
          if (!classification.public && !isPermittedAddress(classification, allowLoopback)) {
            refused = classification;
            req?.destroy(new RefusedAddressError(classification));
            return;
          }
        }
        connected = true;
      });
    });
    req.on('response', (res: IncomingMessage) => {
      response = res;
      status = res.statusCode ?? null;
      res.on('data', (chunk: Buffer) => {
        const room = maxExcerptBytes - excerptBytes;
        if (room > 0) {
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          chunks.push(part);
          excerptBytes += part.length;
        }
        if (excerptBytes >= maxExcerptBytes) finishWithResponse();
      });
      res.on('end', finishWithResponse);
      res.on('error', onError);
    });
    req.end(bodyBytes);
  });
}
