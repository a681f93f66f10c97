import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { drawTokens } from '../../db/plans/buckets';
import { bucketLevel, returnTokens, type BucketLevel } from '../../db/plans/buckets';
import { POINTS_PER_REQUEST, type PointsBucket, type ThrottleStatus } from './throttle';

const points = (tokens: number) => Math.round(tokens * POINTS_PER_REQUEST * 100) / 100;

/** Jobber's throttleStatus, in points, from the bucket's level in tokens. */
export function throttleStatusOf(level: BucketLevel): ThrottleStatus {
  return { maximumAvailable: points(level.depth), currentlyAvailable: Math.floor(points(level.tokens)), restoreRate: points(level.rate) };
}

/**
 * D17 with D15: GraphQL's points drawn from the tenant's one plan bucket (db/plans/buckets.ts,
 * the same statement every /v1/ request draws with), a point being 1/POINTS_PER_REQUEST of a request.
 */
export class PlanBucket implements PointsBucket {
  constructor(private readonly em: EntityManager) {}

  status(organizationId: string): Promise<ThrottleStatus> {
    return inTenant(this.em, organizationId, async (tx) => throttleStatusOf(await bucketLevel(tx)));
  }

  take(organizationId: string, requested: number) {
    return inTenant(this.em, organizationId, async (tx) => {
      const drawn = await drawTokens(tx, requested / POINTS_PER_REQUEST);
      const status = throttleStatusOf(await bucketLevel(tx));
      return { taken: drawn.allowed, status, waitSeconds: drawn.allowed ? 0 : drawn.retryAfterSeconds };
    });
  }

  refund(organizationId: string, unused: number): Promise<ThrottleStatus> {
    return inTenant(this.em, organizationId, async (tx) => throttleStatusOf(await returnTokens(tx, unused / POINTS_PER_REQUEST)));
  }
}
