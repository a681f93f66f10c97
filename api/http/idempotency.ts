import type { Request, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { completeKey, holderOf, holdKey, insertClaim, releaseKey, type KeptAnswer } from '../../db/idempotency/keys';
import { decide, fingerprintOf, keyComplaint, type Decision, type RequestIdentity } from '../../domain/idempotency/idempotency';
import { idempotencyKeyInUse, idempotencyKeyReused, validationFailed } from '../../domain/errors/errors';

/**
 * D14's one protocol, for every interface that takes an idempotency key (a route that declares
 * `idempotency`, api/http/route.ts; GraphQL's createQuote). The rule is domain/idempotency, the
 * storage db/idempotency/keys.ts. The steps:
 * 1. claim: read who holds the key and let the rule decide: the same request again is answered
 *    what it kept (replay), or is "in use" while it runs; another request with the key is
 *    "reused"; a new request takes the key's turn in the claiming transaction (another
 *    transaction holding it, its claim not yet committed, makes this one "in use" at once) and
 *    claims it (`running`);
 * 2. the work keeps its answer with the key in the transaction of its write, so both commit or
 *    neither does;
 * 3. a failed request keeps nothing: its claim is released (or rolled back with it).
 * Where the claim commits is the one choice a caller makes: `IdempotencyKeys.once` claims in a
 * transaction of its own, committed before the work, so the work may open its own transactions (a key left running by a process
 * that died is claimed anew after its lease); `onceWithin` claims in the caller's transaction, for
 * work that runs in it whole (GraphQL's operation), and its rollback frees the key.
 */

/** D14's request header, on the routes that declare `idempotency`. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** What a request answers, kept whole with its key for a replay. */
export interface Answer {
  status: number;
  body: unknown;
  /** Headers that belong to the first answer (X-Engine-Latency-Ms); a replay answers them again. */
  headers?: Record<string, string>;
}

/** Keeps the answer with the key in `tx`, the transaction that writes what it answers (without a key it does nothing). */
export type Keep = (tx: EntityManager, answer: Answer) => Promise<void>;
export const keepNothing: Keep = async () => undefined;

export interface KeyedRequest {
  key: string;
  request: RequestIdentity;
}

export interface Outcome {
  answer: Answer;
  /** The answer is the one the key kept (D14: `Idempotent-Replayed: true`, GraphQL's `replayed`). */
  replayed: boolean;
}

/** A key the rule refuses (1-255 characters) is a validation failure of the field that carried it. */
export function checkKey(key: string, field: string): void {
  const complaint = keyComplaint(key);
  if (complaint) throw validationFailed({ [field]: complaint });
}

const kept = (answer: Answer): KeptAnswer => ({ status: answer.status, body: answer.body, headers: answer.headers ?? {} });

async function claim(tx: EntityManager, key: string, fingerprint: string): Promise<Decision<KeptAnswer>> {
  // A committed claim decides at once: replays of a finished key take no turns.
  const committed = await holderOf(tx, key, fingerprint);
  if (committed.by !== 'nobody') return decide(committed);
  // To claim, take the key's turn; a claim not yet committed holds it.
  if (!(await holdKey(tx, key))) return decide({ by: 'uncommitted' });
  if (await insertClaim(tx, key, fingerprint)) return { kind: 'new' };
  // Another claim committed between the read and the turn (one that does not take turns, or one just done);
  // gone again, it was released by a request that failed a moment ago: in use until then.
  const claimed = await holderOf(tx, key, fingerprint);
  return claimed.by === 'nobody' ? { kind: 'in-use' } : decide(claimed);
}

/** Replay or refusal; undefined when the request is new and its key claimed. */
function settled(decision: Decision<KeptAnswer>): Outcome | undefined {
  if (decision.kind === 'reused') throw idempotencyKeyReused();
  if (decision.kind === 'in-use') throw idempotencyKeyInUse();
  if (decision.kind === 'replay') return { answer: decision.answer, replayed: true };
  return undefined;
}

/** Runs `work` once per key, claiming in a transaction of its own (see above). */
export class IdempotencyKeys {
  constructor(private readonly em: EntityManager) {}

  async once(organizationId: string, keyed: KeyedRequest, work: (keep: Keep) => Promise<Answer>): Promise<Outcome> {
    const { key } = keyed;
    const fingerprint = fingerprintOf(keyed.request);
    const replay = settled(await inTenant(this.em, organizationId, (tx) => claim(tx, key, fingerprint)));
    if (replay) return replay;
    let keptWithWrite = false;
    let answer: Answer;
    try {
      answer = await work(async (tx, first) => {
        await completeKey(tx, key, kept(first));
        keptWithWrite = true;
      });
    } catch (error) {
      await inTenant(this.em, organizationId, (tx) => releaseKey(tx, key));
      throw error;
    }
    // Work that wrote nothing of its own keeps its answer now.
    if (!keptWithWrite) await inTenant(this.em, organizationId, (tx) => completeKey(tx, key, kept(answer)));
    return { answer, replayed: false };
  }
}

/** Runs `work` once per key, claiming in the caller's tenant transaction `tx`, which the work writes in (see above). */
export async function onceWithin(tx: EntityManager, keyed: KeyedRequest, work: (keep: Keep) => Promise<Answer>): Promise<Outcome> {
  const { key } = keyed;
  const replay = settled(await claim(tx, key, fingerprintOf(keyed.request)));
  if (replay) return replay;
  let keptWithWrite = false;
  const answer = await work(async (within, first) => {
    await completeKey(within, key, kept(first));
    keptWithWrite = true;
  });
  if (!keptWithWrite) await completeKey(tx, key, kept(answer));
  return { answer, replayed: false };
}

/** D14: said on a kept answer repeated for a repeated key. */
export const IDEMPOTENCY_REPLAYED_HEADER = 'Idempotent-Replayed';

/** Through res.json, so an answer (and a replay) is shaped for the caller's D16 version. */
export function sendAnswer(res: Response, answer: Answer): void {
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.status(answer.status).json(answer.body);
}

export interface KeyedHttpRequest {
  req: Request;
  res: Response;
  /** The request's Idempotency-Key header. */
  key: string;
  keys: IdempotencyKeys;
}

/**
 * A route's request carrying an `Idempotency-Key` (api/http/route.ts `idempotency`): its method
 * and path with its parsed JSON body make the fingerprint; a replay says `Idempotent-Replayed:
 * true`. Its D15 token was drawn by route() before the key was looked at, so a malformed, reused
 * or in-use key and a replay are counted like any request.
 */
export async function answerOnce({ req, res, key, keys }: KeyedHttpRequest, work: (keep: Keep) => Promise<Answer>): Promise<void> {
  const complaint = keyComplaint(key);
  if (complaint) throw validationFailed({ [`headers.${IDEMPOTENCY_HEADER}`]: complaint });
  const outcome = await keys.once(req.caller!.organizationId, { key, request: { operation: `${req.method} ${req.baseUrl}${req.path}`, payload: req.body } }, work);
  if (outcome.replayed) res.setHeader(IDEMPOTENCY_REPLAYED_HEADER, 'true');
  sendAnswer(res, outcome.answer);
}
