import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Request, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { claimKey, completeKey, releaseKey } from '../../db/idempotency/keys';
import { drawTokens } from '../../db/plans/buckets';
import { idempotencyKeyInUse, idempotencyKeyReused, validationFailed } from '../../domain/errors/errors';
import { answerDraw, peekFor } from './plan-limits';
import { defersDraw, IDEMPOTENCY_HEADER } from './idempotency-paths';

/** What a handler answers, kept whole for a replay. */
export interface Answer {
  status: number;
  body: unknown;
  /** Headers that belong to the first answer (X-Engine-Latency-Ms); replays answer them again. */
  headers?: Record<string, string>;
}

/**
 * The fingerprint of a request: its method, path and body. The body is the parsed JSON,
 * canonicalised by RFC 8785 (JSON Canonicalization Scheme), so key order, whitespace and number
 * spelling (1.0, 1e0) do not make two bodies differ.
 */
export function fingerprintOf(req: Request): string {
  const canonical = canonicalize(req.body ?? null) ?? 'null';
  return createHash('sha256').update(`${req.method} ${req.baseUrl}${req.path}\n${canonical}`).digest('hex');
}

/**
 * Keeps the answer with its key inside the transaction that writes what it answers, so that the
 * write and the kept answer commit together or not at all (without a key it does nothing).
 */
export type Keep = (tx: EntityManager, answer: Answer) => Promise<void>;

const stored = (answer: Answer) => ({ status: answer.status, body: JSON.stringify(answer.body), headers: answer.headers ?? {} });

function send(res: Response, answer: Answer): void {
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.status(answer.status).json(answer.body);
}

/**
 * D14: runs `work` once per `Idempotency-Key` of the tenant. Without the header the request runs
 * normally. The first request claims the key (and draws its D15 token in the same transaction);
 * another request with the key while it runs is 409 `idempotency-key-in-use`, with another body
 * 422 `idempotency-key-reused`, and with the same body, within 24 hours of the first, gets the
 * first answer again with `Idempotent-Replayed: true` and draws no token. A request that fails
 * keeps nothing: the key is released and the next attempt runs. `work` hands its answer to `keep`
 * in the transaction of its write; a process that dies before that commit wrote nothing, and its
 * key is claimed anew once its lease is over (db/idempotency/keys.ts).
 */
export async function idempotent(em: EntityManager, req: Request, res: Response, work: (keep: Keep) => Promise<Answer>): Promise<void> {
  const key = req.get(IDEMPOTENCY_HEADER);
  if (key === undefined) {
    send(res, await work(async () => undefined));
    return;
  }
  if (key.length === 0 || key.length > 255) {
    // No token was drawn for it either (defersDraw): a malformed key costs nothing and writes nothing.
    if (defersDraw(req)) await peekFor(em, req, res);
    throw validationFailed({ 'headers.Idempotency-Key': key.length === 0 ? 'Must not be empty' : 'At most 255 characters' });
  }
  const organizationId = req.caller!.organizationId;
  const fingerprint = fingerprintOf(req);
  const claim = await inTenant(em, organizationId, async (tx) => {
    const claimed = await claimKey(tx, key, fingerprint);
    // A refused draw throws and rolls the claim back with it.
    if (claimed.claimed && defersDraw(req)) answerDraw(res, await drawTokens(tx));
    return claimed;
  });
  if (!claim.claimed) {
    if (defersDraw(req)) await peekFor(em, req, res);
    if (claim.fingerprint !== fingerprint) throw idempotencyKeyReused();
    if (claim.state === 'running') throw idempotencyKeyInUse();
    res.setHeader('Idempotent-Replayed', 'true');
    for (const [name, value] of Object.entries(claim.response.headers)) res.setHeader(name, value);
    // Through res.json, so a replay is answered in the caller's D16 version like the first answer.
    res.status(claim.response.status).json(JSON.parse(claim.response.body));
    return;
  }
  // Kept in the current version's shape; each replay is shaped for its caller's version.
  let kept = false;
  const keep: Keep = async (tx, answer) => {
    await completeKey(tx, key, stored(answer));
    kept = true;
  };
  let answer: Answer;
  try {
    answer = await work(keep);
  } catch (error) {
    await inTenant(em, organizationId, (tx) => releaseKey(tx, key));
    throw error;
  }
  if (!kept) await inTenant(em, organizationId, (tx) => completeKey(tx, key, stored(answer)));
  send(res, answer);
}
