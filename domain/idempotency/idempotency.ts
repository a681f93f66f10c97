import canonicalize from 'canonicalize';

/**
 * D14's idempotency rule, the one definition REST (`Idempotency-Key` header, api/http/route.ts)
 * and GraphQL (`createQuote(idempotencyKey:)`) follow: what a key may be, which requests are the
 * same, and what a request holding a key gets. Storage is db/idempotency/keys.ts; the steps around
 * a request are api/http/idempotency.ts.
 */

/** A key is the tenant's for this long from its claim; then it is claimed anew. */
export const KEY_TTL_HOURS = 24;
/**
 * A key still running this long after its claim belongs to a process that died: its request's
 * write and its kept answer commit together, so it wrote nothing, and the key is claimed anew.
 */
export const RUNNING_LEASE_SECONDS = 60;
const MAX_KEY_LENGTH = 255;

/** What is wrong with a key (1-255 characters), or undefined when nothing is. */
export function keyComplaint(key: string): string | undefined {
  if (key.length === 0) return 'Must not be empty';
  if (key.length > MAX_KEY_LENGTH) return `At most ${MAX_KEY_LENGTH} characters`;
  return undefined;
}

/**
 * What a request asks for: the operation (a REST request's method and path, or a GraphQL
 * mutation's name) and what it was given. Two requests are the same when both are.
 */
export interface RequestIdentity {
  operation: string;
  payload: unknown;
}

/** The request's fingerprint: its operation and its canonical payload (RFC 8785). */
export const fingerprintOf = (request: RequestIdentity): string => `${request.operation}\n${canonicalize(request.payload ?? null)}`;

/** What holds a key when a request comes to claim it. */
export type Holder<A> =
  /** Nobody (never claimed, or expired, or its lease is over). */
  | { by: 'nobody' }
  /** A request whose claim has not committed yet (its transaction holds the key). */
  | { by: 'uncommitted' }
  /** A committed claim: still running, or done with the answer it keeps. */
  | { by: 'claim'; sameRequest: boolean; state: 'running' }
  | { by: 'claim'; sameRequest: boolean; state: 'done'; answer: A };

export type Decision<A> = { kind: 'new' } | { kind: 'replay'; answer: A } | { kind: 'reused' } | { kind: 'in-use' };

/**
 * D14: a free key runs the request; another request with the key is `reused` (422); the same
 * request while the first runs is `in-use` (409), and once it is done gets its answer again.
 */
export function decide<A>(holder: Holder<A>): Decision<A> {
  if (holder.by === 'nobody') return { kind: 'new' };
  if (holder.by === 'uncommitted') return { kind: 'in-use' };
  if (!holder.sameRequest) return { kind: 'reused' };
  if (holder.state === 'running') return { kind: 'in-use' };
  return { kind: 'replay', answer: holder.answer };
}
