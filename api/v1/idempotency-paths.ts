import type { Request } from 'express';

/** D14: the `/v1/` operations that take an `Idempotency-Key` (POSTs that create). */
const IDEMPOTENT_POSTS = [/^\/v1\/quotes\/?$/, /^\/v1\/quotes\/[^/]+\/revisions\/?$/, /^\/v1\/customers\/?$/];

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** A request whose token is drawn when its key is claimed (D15 with D14), not before routing. */
export function defersDraw(req: Request): boolean {
  if (req.method !== 'POST' || req.headers[IDEMPOTENCY_HEADER] === undefined) return false;
  const path = `${req.baseUrl}${req.path}`;
  return IDEMPOTENT_POSTS.some((pattern) => pattern.test(path));
}
