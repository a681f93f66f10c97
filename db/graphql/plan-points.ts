import type { EntityManager } from '@mikro-orm/postgresql';
import { PLAN_LIMITS, PLANS } from '../plans/plan-limits';

/**
 * D17 with D15: the GraphQL side of the tenant's one token bucket (db/plans/buckets.ts draws
 * from it). A query draws its requested cost there before it runs; these read the bucket to the
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

const LIMITS_SQL = `values ${PLANS.map((plan) => `('${plan}', ${PLAN_LIMITS[plan].burst}::float8, ${PLAN_LIMITS[plan].requestsPerMinute}::float8 / 60)`).join(', ')}`;
const PLAN_OF_TENANT = `select l.depth, l.rate, clock_timestamp() as at
    from organizations o join (${LIMITS_SQL}) as l (plan, depth, rate) on l.plan = o.plan
   where o.id = app_current_organization()`;

interface Row {
  tokens: number;
  depth: number;
  rate: number;
}
const levelOf = (row: Row): BucketLevel => ({ tokens: Math.max(0, Number(row.tokens)), depth: Number(row.depth), rate: Number(row.rate) });

/** The bucket as it stands, refilled to now, without drawing (full when it was never drawn from). */
export async function bucketLevel(em: EntityManager): Promise<BucketLevel> {
  const [row] = await em.execute<Row[]>(
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
