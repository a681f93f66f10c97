import type { EntityManager } from '@mikro-orm/postgresql';
import { PLAN_LIMITS, PLANS } from './plan-limits';

/**
 * D15: one token bucket per tenant, in PostgreSQL, shared by every API process. A draw is one
 * statement: it refills the bucket for the time since its last draw (at the plan's rate, up to its
 * depth), takes the tokens when there are enough, and says whether it did, so two processes can
 * never both spend the last token. Runs in a tenant transaction (db/tenant-scope.ts).
 */
export interface BucketState {
  allowed: boolean;
  /** The bucket's depth (the plan's burst). */
  limit: number;
  /** Whole tokens left. */
  remaining: number;
  /** When the bucket is full again, unix seconds. */
  resetAt: number;
  /** When `cost` tokens are there again, seconds from now (0 when they are). */
  retryAfterSeconds: number;
}

// The plan table as SQL rows, from the one table of db/plans/plan-limits.ts.
const LIMITS_SQL = `values ${PLANS.map((plan) => `('${plan}', ${PLAN_LIMITS[plan].burst}::float8, ${PLAN_LIMITS[plan].requestsPerMinute}::float8 / 60)`).join(', ')}`;

const PLAN_OF_TENANT = `select l.depth, l.rate, clock_timestamp() as at
    from organizations o join (${LIMITS_SQL}) as l (plan, depth, rate) on l.plan = o.plan
   where o.id = app_current_organization()`;

interface Row {
  allowed: boolean;
  tokens: number;
  depth: number;
  rate: number;
  at: Date;
}

function stateOf(row: Row, cost: number): BucketState {
  const tokens = Math.max(0, Number(row.tokens));
  const at = new Date(row.at).getTime() / 1000;
  return {
    allowed: row.allowed,
    limit: row.depth,
    remaining: Math.floor(tokens),
    resetAt: Math.ceil(at + (row.depth - tokens) / row.rate),
    retryAfterSeconds: tokens >= cost ? 0 : Math.max(1, Math.ceil((cost - tokens) / row.rate)),
  };
}

/** Takes `cost` tokens from the tenant's bucket when it holds them. */
export async function drawTokens(em: EntityManager, cost = 1): Promise<BucketState> {
  const [row] = await em.execute<Row[]>(
    `with p as (${PLAN_OF_TENANT}),
     drawn as (
       insert into plan_buckets as b (organization_id, tokens, allowed, updated_at)
       select app_current_organization(), greatest(p.depth - ?, 0), p.depth >= ?, p.at from p
       on conflict (organization_id) do update set
         tokens = case when least((select depth from p), b.tokens + (select rate from p) * greatest(extract(epoch from (select at from p) - b.updated_at), 0)) >= ?
                       then least((select depth from p), b.tokens + (select rate from p) * greatest(extract(epoch from (select at from p) - b.updated_at), 0)) - ?
                       else least((select depth from p), b.tokens + (select rate from p) * greatest(extract(epoch from (select at from p) - b.updated_at), 0)) end,
         allowed = least((select depth from p), b.tokens + (select rate from p) * greatest(extract(epoch from (select at from p) - b.updated_at), 0)) >= ?,
         -- Never moves backwards: a bucket stamped ahead of the clock refills from that instant on.
         updated_at = greatest(b.updated_at, (select at from p))
       returning tokens, allowed)
     select drawn.allowed, drawn.tokens, p.depth, p.rate, p.at from drawn, p`,
    [cost, cost, cost, cost, cost],
  );
  if (!row) throw new Error('the tenant selected has no organization row');
  return stateOf(row, cost);
}

/**
 * D17 with D15: the GraphQL side of the tenant's one token bucket (drawTokens above draws from
 * it). A query draws its requested cost there before it runs; these read the bucket to the
 * exact token (for `extensions.cost`) and give back what a query did not use, never above the
 * bucket's depth. Run in a tenant transaction (db/tenant-scope.ts).
 */
export interface BucketLevel {
  /** Tokens in the bucket now, refilled to this instant (fractions kept). */
  tokens: number;
  /** The plan's burst. */
  depth: number;
  /** Tokens restored per second. */
  rate: number;
}

interface LevelRow {
  tokens: number;
  depth: number;
  rate: number;
}
const levelOf = (row: LevelRow): BucketLevel => ({ tokens: Math.max(0, Number(row.tokens)), depth: Number(row.depth), rate: Number(row.rate) });

/** The bucket as it stands, refilled to now, without drawing (full when it was never drawn from). */
export async function bucketLevel(em: EntityManager): Promise<BucketLevel> {
  const [row] = await em.execute<LevelRow[]>(
    `with p as (${PLAN_OF_TENANT})
     select coalesce(least(p.depth, b.tokens + p.rate * greatest(extract(epoch from p.at - b.updated_at), 0)), p.depth) as tokens, p.depth, p.rate
       from p left join plan_buckets b on b.organization_id = app_current_organization()`,
  );
  if (!row) throw new Error('the tenant selected has no organization row');
  return levelOf(row);
}

/** Gives `tokens` back to the bucket (never above its depth); answers the bucket after it. */
export async function returnTokens(em: EntityManager, tokens: number): Promise<BucketLevel> {
  if (tokens > 0) {
    await em.execute(
      `with p as (${PLAN_OF_TENANT})
       update plan_buckets b set tokens = least(p.depth, b.tokens + ?) from p where b.organization_id = app_current_organization()`,
      [tokens],
    );
  }
  return bucketLevel(em);
}
