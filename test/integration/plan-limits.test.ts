import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool } from '../../scripts/harness/owner-db';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { PLAN_LIMITS, PLANS, type Plan } from '../../db/plans/plan-limits';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';

// D15: one token bucket per tenant and plan on every /v1/ path, shared by every API process.
let owner: pg.Pool;
let api: ApiHarness;
let second: ApiHarness;

beforeAll(async () => {
  owner = ownerPool();
  [api, second] = await Promise.all([startApi(), startApi()]);
});
afterAll(async () => {
  await Promise.all([api.close(), second.close()]);
  await owner.end();
});

async function tenantOn(plan?: Plan): Promise<{ id: string; token: string }> {
  const t = await createTenant(owner, { admin: 'ADMIN' });
  await giveRateCard(t.id, SANDBOX_RATE_CARD);
  if (plan) await owner.query('update organizations set plan = $2 where id = $1', [t.id, plan]);
  return { id: t.id, token: await api.tokenFor(t.users.admin!) };
}

/**
 * Fills the tenant's bucket with `tokens` and stamps it an hour ahead, so nothing refills while a
 * test draws (a bucket never refills before its stamp): counts are then exact on a busy machine.
 */
async function freeze(organizationId: string, tokens: number): Promise<void> {
  await owner.query(
    `insert into plan_buckets (organization_id, tokens, allowed, updated_at) values ($1, $2, true, clock_timestamp() + interval '1 hour')
     on conflict (organization_id) do update set tokens = excluded.tokens, updated_at = excluded.updated_at`,
    [organizationId, tokens],
  );
}

const get = (token: string, harness = api, path = '/v1/pricebooks') => harness.request(path, { token });

describe('plan buckets (D15, document 001 section 8)', () => {
  it('a burst of the plan’s depth passes, the next is 429 rate-limited with Retry-After; /api/ is not counted', async () => {
    const tenant = await tenantOn(); // starter by default
    const { burst, requestsPerMinute } = PLAN_LIMITS.starter;
    await freeze(tenant.id, burst);
    const answers = await Promise.all(Array.from({ length: burst }, () => get(tenant.token)));
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    const remaining = answers.map((a) => Number(a.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: burst }, (_, i) => i)); // each draw saw its own count
    const refused = await get(tenant.token);
    expect(refused.status).toBe(429);
    const problem = (await refused.json()) as { type: string; status: number };
    expect(problem).toMatchObject({ type: 'rate-limited', status: 429 });
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(burst));
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    const now = Date.now() / 1000;
    // Full again after depth / rate seconds at most.
    expect(reset).toBeGreaterThan(now);
    expect(reset).toBeLessThanOrEqual(Math.ceil(now + (burst * 60) / requestsPerMinute) + 1);
    // The /api/ interface keeps its own limits (document 000 section 8): no plan headers, not refused.
    const me = await api.request('/api/v1/auth/me', { token: tenant.token });
    expect(me.status).toBe(200);
    expect(me.headers.get('x-ratelimit-limit')).toBeNull();
    // The unauthenticated are refused before the bucket: 401, and nothing drawn or shown.
    const anonymous = await api.request('/v1/pricebooks');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('refills at the plan’s per-minute rate, up to its depth', async () => {
    const tenant = await tenantOn();
    const rate = PLAN_LIMITS.starter.requestsPerMinute / 60; // 20 a second
    await get(tenant.token);
    // An empty bucket last drawn 3 seconds ago holds 3 seconds of refill.
    await owner.query(`update plan_buckets set tokens = 0, updated_at = clock_timestamp() - interval '3 seconds' where organization_id = $1`, [tenant.id]);
    const res = await get(tenant.token);
    expect(res.status).toBe(200);
    const remaining = Number(res.headers.get('x-ratelimit-remaining'));
    expect(remaining).toBeGreaterThanOrEqual(3 * rate - 1);
    expect(remaining).toBeLessThan(3 * rate - 1 + rate); // less than one more second of refill
    // Never beyond the depth, however long it rested.
    await owner.query(`update plan_buckets set updated_at = clock_timestamp() - interval '1 day' where organization_id = $1`, [tenant.id]);
    expect((await get(tenant.token)).headers.get('x-ratelimit-remaining')).toBe(String(PLAN_LIMITS.starter.burst - 1));
    // An empty bucket answers when one token is back: 1 / rate seconds, rounded up.
    await owner.query(`update plan_buckets set tokens = 0, updated_at = clock_timestamp() + interval '10 seconds' where organization_id = $1`, [tenant.id]);
    const empty = await get(tenant.token);
    expect(empty.status).toBe(429);
    expect(Number(empty.headers.get('retry-after'))).toBe(Math.max(1, Math.ceil(1 / rate)));
  });

  it.each(PLANS)('the %s plan’s bucket is its depth, refilled at its rate', async (plan) => {
    const tenant = await tenantOn(plan);
    const res = await get(tenant.token);
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(PLAN_LIMITS[plan].burst));
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(PLAN_LIMITS[plan].burst - 1));
    // Empty for 6 seconds: 6 seconds of this plan's refill.
    await owner.query(`update plan_buckets set tokens = 0, updated_at = clock_timestamp() - interval '6 seconds' where organization_id = $1`, [tenant.id]);
    const refilled = Number((await get(tenant.token)).headers.get('x-ratelimit-remaining'));
    const perSecond = PLAN_LIMITS[plan].requestsPerMinute / 60;
    expect(refilled).toBeGreaterThanOrEqual(Math.floor(6 * perSecond) - 1);
    expect(refilled).toBeLessThan(Math.min(PLAN_LIMITS[plan].burst, 7 * perSecond));
  });

  it('two API processes draw from one bucket', async () => {
    const tenant = await tenantOn();
    const { burst } = PLAN_LIMITS.starter;
    // Twice the depth, half through each process: one shared bucket lets the depth through; a
    // bucket per process would let both depths through.
    await freeze(tenant.id, burst);
    const answers = await Promise.all(Array.from({ length: 2 * burst }, (_, i) => get(tenant.token, i % 2 === 0 ? api : second)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(burst);
    // Which process met the empty bucket first is a matter of timing; that both now meet it is not.
    expect((await get(tenant.token, api)).status).toBe(429);
    expect((await get(tenant.token, second)).status).toBe(429);
  });
});

describe('every /v1/ request draws at least one token (D15), refusals and replays included', () => {
  /** A tenant that can make a /v1/ quote: its catalogue and a customer. */
  async function quotingTenant(): Promise<{ id: string; token: string; quote: Record<string, unknown> }> {
    const tenant = await tenantOn('growth');
    for (const p of SANDBOX_PRODUCTS) {
      await owner.query(
        'insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)',
        [tenant.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null],
      );
    }
    const { rows } = await owner.query<{ id: string }>(`insert into customers (organization_id, name) values ($1, 'Jordan Rivera') returning id`, [tenant.id]);
    const quote = {
      customerId: rows[0]!.id,
      currency: 'CAD',
      taxRegion: 'CA-ON',
      pricebookId: tenant.id,
      lines: [{ sku: 'ROLLER-SCREEN', quantity: 1, configuration: { finishedWidthIn: 48, finishedHeightIn: 60, controlSide: 'left', motorised: false } }],
    };
    return { ...tenant, quote };
  }
  const remainingOf = (res: Response) => Number(res.headers.get('x-ratelimit-remaining'));

  it('GraphQL typename queries, introspection and invalid documents, /v1/quotes replays and empty-key 422s each take one token', async () => {
    const tenant = await quotingTenant();
    const gql = (query: string) => api.request('/v1/graphql', { method: 'POST', token: tenant.token, json: { query } });
    const postQuote = (key: string) => api.request('/v1/quotes', { method: 'POST', token: tenant.token, json: tenant.quote, headers: { 'Idempotency-Key': key } });
    const key = `replayed-${tenant.id}`;
    const made = await postQuote(key);
    expect(made.status).toBe(201);

    const depth = 100;
    // No refill while the requests are sent (see freeze): each kind's count is exact.
    await freeze(tenant.id, depth);
    const kinds: [string, () => Promise<Response>, (res: Response) => Promise<void>][] = [
      ['a typename query', () => gql('{ __typename }'), async (res) => expect(((await res.json()) as { data: unknown }).data).toEqual({ __typename: 'Query' })],
      ['an introspection', () => gql('{ __schema { queryType { name } } }'), async (res) => expect(res.status).toBe(200)],
      ['an invalid document', () => gql('{ workOrders('), async (res) => expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('GRAPHQL_PARSE_FAILED')],
      ['a replay', () => postQuote(key), async (res) => expect([res.status, res.headers.get('idempotent-replayed')]).toEqual([201, 'true'])],
      ['an empty key', () => postQuote(''), async (res) => expect(res.status).toBe(422)],
    ];
    let left = depth;
    for (const [kind, send, check] of kinds) {
      for (let i = 0; i < 3; i++) {
        const res = await send();
        await check(res);
        left -= 1;
        expect([kind, remainingOf(res)]).toEqual([kind, left]);
      }
    }
    // The bucket itself agrees with what the answers said.
    const { rows } = await owner.query<{ tokens: number }>('select tokens::float8 as tokens from plan_buckets where organization_id = $1', [tenant.id]);
    expect(Math.floor(rows[0]!.tokens)).toBe(left);
  });

  it('an empty bucket refuses each of them: 429 rate-limited, GraphQL as THROTTLED', async () => {
    const tenant = await quotingTenant();
    const key = `refused-${tenant.id}`;
    expect((await api.request('/v1/quotes', { method: 'POST', token: tenant.token, json: tenant.quote, headers: { 'Idempotency-Key': key } })).status).toBe(201);
    await freeze(tenant.id, 0);
    const replay = await api.request('/v1/quotes', { method: 'POST', token: tenant.token, json: tenant.quote, headers: { 'Idempotency-Key': key } });
    expect(replay.status).toBe(429);
    expect(((await replay.json()) as { type: string }).type).toBe('rate-limited');
    for (const query of ['{ __typename }', '{ workOrders(']) {
      const res = await api.request('/v1/graphql', { method: 'POST', token: tenant.token, json: { query } });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = (await res.json()) as { errors: { extensions: { code: string; retryAfterSeconds: number } }[] };
      expect(body.errors.map((e) => e.extensions)).toEqual([{ code: 'THROTTLED', retryAfterSeconds: Number(res.headers.get('retry-after')) }]);
    }
  });
});
