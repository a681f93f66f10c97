/**
 * D15: each plan's token bucket, from document 001 section 8: `burst` is the bucket's depth and
 * `requestsPerMinute` its refill. `routes` is the table's third column: how many crews may hold a route on one date, enforced
 * by route planning (PLAN_ROUTE_LIMIT; db/fsm/routes.ts, docs/plan-limits.md).
 */
export const PLANS = ['starter', 'growth', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimit {
  requestsPerMinute: number;
  burst: number;
  routes: number;
}

export const PLAN_LIMITS: { readonly [P in Plan]: PlanLimit } = {
  starter: { requestsPerMinute: 1200, burst: 200, routes: 4 },
  growth: { requestsPerMinute: 4000, burst: 800, routes: 16 },
  enterprise: { requestsPerMinute: 10000, burst: 2500, routes: 64 },
};
