import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomInt } from 'node:crypto';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';

let first: ApiHarness;
let second: ApiHarness;

beforeAll(async () => {
  first = await startApi();
  second = await startApi();
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
});

const address = () => `203.0.113.${randomInt(1, 255)}`;

describe('broad rate limit (section 8)', () => {
  it('sends the section 8 headers, and no legacy X-RateLimit headers', async () => {
    const client = address();
    const res = await first.request('/api/connectors', { headers: { 'x-forwarded-for': client } });
    expect(res.status).toBe(200);
    // reset counts down from the 60-second window; a slow round trip may already show 59.
    expect(res.headers.get('ratelimit')).toMatch(/^limit=300, remaining=299, reset=(59|60)$/);
    expect(res.headers.get('ratelimit-policy')).toBe('300;w=60');
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers.get(name)).toBeNull();
  });

  it('exempts /api/health', async () => {
    const res = await first.request('/api/health', { headers: { 'x-forwarded-for': address() } });
    expect(res.headers.get('ratelimit')).toBeNull();
  });

  it('counts per client address across two API processes sharing one database', async () => {
    const client = address();
    const headers = { 'x-forwarded-for': client };
    // 150 through each instance: the 300th is still allowed, the 301st is not, on either.
    for (let batch = 0; batch < 15; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).request('/api/connectors', { headers })),
      );
      for (const res of responses) expect(res.status).toBe(200);
    }
    const refusedHere = await first.request('/api/connectors', { headers });
    const refusedThere = await second.request('/api/routes', { headers });
    for (const res of [refusedHere, refusedThere]) {
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(res.headers.get('ratelimit')).toMatch(/^limit=300, remaining=0, reset=\d+$/);
    }
    // Another address is not affected, and health stays open for the limited one.
    expect((await first.request('/api/connectors', { headers: { 'x-forwarded-for': address() } })).status).toBe(200);
    expect((await first.request('/api/health', { headers })).status).toBe(200);
  });

  it('trusts exactly one proxy hop: the address nearest the proxy counts, not a forged first entry', async () => {
    const real = address();
    const forged = (n: number) => `192.0.2.${n}`;
    const a = await first.request('/api/connectors', { headers: { 'x-forwarded-for': `${forged(1)}, ${real}` } });
    const b = await first.request('/api/connectors', { headers: { 'x-forwarded-for': `${forged(2)}, ${real}` } });
    expect(a.headers.get('ratelimit')).toMatch(/^limit=300, remaining=299, reset=(59|60)$/);
    expect(b.headers.get('ratelimit')).toMatch(/^limit=300, remaining=298, reset=\d+$/);
  });

  it('answers the OAuth callback\'s 429 as an HTML page, like every callback outcome (4.5)', async () => {
    const headers = { 'x-forwarded-for': address() };
    for (let batch = 0; batch < 15; batch++) {
      await Promise.all(Array.from({ length: 20 }, () => first.request('/api/connectors', { headers })));
    }
    const res = await first.request('/api/v1/integrations/accounting/callback?code=x&state=y', { headers });
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.text()).toContain('Too many requests');
  });
});
