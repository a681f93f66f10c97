/**
 * D17 and D15: a query's points are drawn from the tenant's one D15 token bucket, the same bucket
 * every /v1/ request draws from. The bucket counts requests; a GraphQL point is a fiftieth of a
 * request (POINTS_PER_REQUEST), so a starter plan's burst of 200 requests holds 10,000 points,
 * exactly the most one query may cost, and every plan can run its largest query from a full
 * bucket. docs/graphql.md gives each plan's figures.
 */
export const POINTS_PER_REQUEST = 50;

/** Jobber's `throttleStatus`, in points. */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  /** Points restored per second. */
  restoreRate: number;
}

export interface PointsBucket {
  /** The bucket as it is now, without drawing. */
  status(organizationId: string): Promise<ThrottleStatus>;
  /** Draws `points` when the bucket holds them, else nothing, and says how long until it would. */
  take(organizationId: string, points: number): Promise<{ taken: boolean; status: ThrottleStatus; waitSeconds: number }>;
  /** Gives back points drawn but not used (requested minus actual cost). */
  refund(organizationId: string, points: number): Promise<ThrottleStatus>;
}
