import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { PLAN_LIMITS } from '../../db/plans/plan-limits';
import { MAX_QUERY_COST } from '../../api/graphql/cost';
import { POINTS_PER_REQUEST } from '../../api/graphql/throttle';

// D17 with D15: GraphQL's points come out of the tenant's one plan bucket, the bucket every /v1/
// request draws from, and a query the bucket cannot pay for is THROTTLED with the time to wait.
let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
let token: string;

/** 2 + 100 × (1 + (1 + 48 × 1)) = 5,002 points: half a starter bucket. */
const HALF_BUCKET = '{ workOrders(first: 100) { nodes { quote { lines(first: 48) { position } } } } }';

async function gql(query: string) {
  const res = await api.request('/v1/graphql', { method: 'POST', token, json: { query } });
  return { res, body: (await res.json()) as { data?: unknown; errors?: { extensions: Record<string, unknown> }[]; extensions: { cost: Record<string, any> } } };
}
/**
 * `refillPausedSeconds`: the bucket's clock is set that far ahead, so nothing refills until then
 * (the refill counts only time after updated_at). A test that needs an exact balance across
 * several requests then does not depend on how fast a loaded machine sends them.
 */
const setTokens = (tokens: number, refillPausedSeconds = 0) =>
  owner.query(
    `insert into plan_buckets (organization_id, tokens, allowed, updated_at) values ($1, $2, true, clock_timestamp() + make_interval(secs => $3))
     on conflict (organization_id) do update set tokens = $2, updated_at = clock_timestamp() + make_interval(secs => $3)`,
    [tenant.id, tokens, refillPausedSeconds],
  );

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  tenant = await createTenant(owner, { admin: 'ADMIN' });
  token = await api.tokenFor(tenant.users.admin!);
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

describe('the plan bucket (D15) pays for GraphQL (D17)', () => {
  it('a starter tenant holds 10,000 points, restored at 1,000 a second; each plan can pay for the largest query', async () => {
    await setTokens(PLAN_LIMITS.starter.burst);
    const { res, body } = await gql('{ workOrders(first: 5) { nodes { id } } }');
    expect(body.errors).toBeUndefined();
    // Nothing to return: requested 2 + 5 = 7, actual 2; the 5 unused points go back. The request
    // itself took one request's worth of points first, as every /v1/ request does (D15).
    expect(body.extensions.cost).toMatchObject({ requestedQueryCost: 7, actualQueryCost: 2 });
    expect(body.extensions.cost.throttleStatus).toEqual({ maximumAvailable: 10_000, currentlyAvailable: expect.any(Number), restoreRate: 1_000 });
    expect(body.extensions.cost.throttleStatus.currentlyAvailable).toBeGreaterThanOrEqual(10_000 - POINTS_PER_REQUEST - 2);
    expect(res.headers.get('x-ratelimit-limit')).toBe('200');
    for (const limit of Object.values(PLAN_LIMITS)) expect(limit.burst * POINTS_PER_REQUEST).toBeGreaterThanOrEqual(MAX_QUERY_COST);
  });

  it('points and requests come out of the same bucket', async () => {
    await setTokens(PLAN_LIMITS.starter.burst);
    const { body } = await gql(HALF_BUCKET);
    expect(body.extensions.cost.requestedQueryCost).toBe(5_002);
    // The tenant has no work orders: actual 2 points, so 5,000 go back before the next request;
    // the query's request token and this request's are spent.
    const after = await api.request('/v1/graphql/schema.graphql', { token });
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(197);
    // Drawn, not given back: five requests' worth of REST leaves less for GraphQL.
    // 101.04 tokens pay for the query alone (its request token and 5,002 points); no refill while the five requests are sent.
    await setTokens(101.04, 60);
    for (let i = 0; i < 5; i++) expect((await api.request('/v1/graphql/schema.graphql', { token })).status).toBe(200);
    const throttled = await gql(HALF_BUCKET);
    expect(throttled.body.errors?.[0]?.extensions.code).toBe('THROTTLED');
  });

  it('THROTTLED after the bucket runs dry: the time to wait, nothing run, nothing drawn', async () => {
    // Two tokens: the request's own, and one towards the query's 100.04.
    await setTokens(2);
    const { res, body } = await gql(HALF_BUCKET);
    expect(res.status).toBe(200);
    expect(body.data ?? null).toBeNull();
    expect(body.errors).toHaveLength(1);
    // The 99.04 tokens missing at 20 a second: about five seconds.
    expect(body.errors![0]!.extensions).toEqual({ code: 'THROTTLED', retryAfterSeconds: expect.any(Number) });
    const wait = body.errors![0]!.extensions.retryAfterSeconds as number;
    expect(wait).toBeGreaterThanOrEqual(5);
    expect(wait).toBeLessThanOrEqual(6);
    expect(res.headers.get('retry-after')).toBe(String(wait));
    expect(body.extensions.cost).toMatchObject({ requestedQueryCost: 5_002, actualQueryCost: 0 });
    expect(body.extensions.cost.throttleStatus.currentlyAvailable).toBeLessThan(5_002);
    // A cheap query still runs: the refused one took nothing beyond its request token.
    const cheap = await gql('{ workOrders(first: 1) { nodes { id } } }');
    expect(cheap.body.errors).toBeUndefined();
  });
});
