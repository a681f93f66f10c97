// The shared fault-injection and request-log machinery, exercised over plain HTTP against one of
// the fakes (which fake does not matter: they share the pipeline).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FaultInjector, faults } from '../../scripts/sandboxes/faults';
import { SalesforceFake } from '../../scripts/sandboxes/salesforce-fake';
import { waitUntil } from '../../scripts/harness/wait-until';

let fake: SalesforceFake;
let close: () => Promise<void>;

beforeAll(async () => {
  fake = new SalesforceFake();
  ({ close } = await fake.start());
});

afterAll(async () => {
  await close();
});

const versions = () => fetch(`${fake.url}/services/data`);

describe('fault rules', () => {
  it('matches globs, RegExps, methods and predicates, and is consumed in order', () => {
    const f = new FaultInjector();
    const req = (method: string, path: string, query = '') => ({ method, path, query: new URLSearchParams(query), headers: {}, body: Buffer.alloc(0) });
    const a = f.inject({ method: 'post', path: '/v1/invoices/*/finalize', action: faults.unavailable() });
    f.inject({ path: /^\/v3\/company\/\d+\/invoice$/, times: 2, when: (r) => r.query.get('requestid') === 'x', action: faults.reset() });
    f.inject({ path: '/services/**', times: Infinity, action: faults.hang(10) });
    expect(f.take(req('GET', '/v1/invoices/in_1/finalize'))).toBeUndefined();
    expect(f.take(req('POST', '/v1/invoices/in_1/finalize'))).toEqual({ kind: 'status', status: 503 });
    expect(a.remaining).toBe(0);
    expect(f.take(req('POST', '/v1/invoices/in_1/finalize'))).toBeUndefined();
    expect(f.take(req('POST', '/v3/company/1/invoice', 'requestid=y'))).toBeUndefined();
    expect(f.take(req('POST', '/v3/company/1/invoice', 'requestid=x'))?.kind).toBe('reset');
    expect(f.take(req('POST', '/v3/company/1/invoice', 'requestid=x'))?.kind).toBe('reset');
    expect(f.take(req('POST', '/v3/company/1/invoice', 'requestid=x'))).toBeUndefined();
    expect(f.take(req('GET', '/services/data/v62.0/query'))?.kind).toBe('hang');
    expect(f.pending()).toHaveLength(1);
    f.clear();
    expect(f.pending()).toHaveLength(0);
  });
});

describe('fault actions over HTTP', () => {
  it('status: provider body, Retry-After, and the log records it', async () => {
    fake.requests.clear();
    fake.faults.inject({ path: '/services/data', action: faults.rateLimited(7) });
    const res = await versions();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toEqual([{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }]);
    fake.faults.inject({ path: '/services/data', action: faults.status(400, { body: { custom: true } }) });
    const custom = await versions();
    expect(custom.status).toBe(400);
    expect(await custom.json()).toEqual({ custom: true });
    expect((await versions()).status).toBe(200);
    expect(fake.requests.all().map((r) => [r.status, r.fault, r.outcome])).toEqual([
      [429, 'status', 'answered'],
      [400, 'status', 'answered'],
      [200, undefined, 'answered'],
    ]);
  });

  it('hang: cuts the connection after the delay without an answer', async () => {
    fake.requests.clear();
    fake.faults.inject({ path: '/services/data', action: faults.hang(150) });
    const started = Date.now();
    await expect(versions()).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(fake.requests.all()[0]).toMatchObject({ outcome: 'cut', status: undefined, fault: 'hang' });
  });

  it('hang: a client timeout shorter than the hang ends it early', async () => {
    fake.requests.clear();
    fake.faults.inject({ path: '/services/data', action: faults.hang(5_000) });
    // The client gives up once the fake holds the request (not after a fixed time, which a busy
    // machine can spend before the request even arrives).
    const client = new AbortController();
    const call = fetch(`${fake.url}/services/data`, { signal: client.signal });
    await waitUntil('the fake to hold the request', () => fake.requests.all().length > 0);
    client.abort();
    await expect(call).rejects.toThrow();
    // The fake records the outcome when it sees the connection close.
    const request = await waitUntil('the fake to record how the hang ended', () => {
      const first = fake.requests.all()[0];
      return first !== undefined && first.outcome !== 'pending' && first;
    });
    expect(request.outcome).toBe('client-closed');
  });

  it('delay: answers late but answers', async () => {
    fake.faults.inject({ path: '/services/data', action: faults.delay(120) });
    const started = Date.now();
    const res = await versions();
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('reset and lose-response both drop the socket; only lose-response performs the request', async () => {
    fake.requests.clear();
    fake.faults.inject({ path: '/services/data', action: faults.reset() });
    await expect(versions()).rejects.toThrow();
    fake.faults.inject({ path: '/services/data', action: faults.loseResponse() });
    await expect(versions()).rejects.toThrow();
    expect(fake.requests.all().map((r) => [r.outcome, r.status])).toEqual([
      ['cut', undefined],
      ['lost', 200],
    ]);
    expect(fake.requests.count('GET', '/services/data')).toBe(2);
  });
});

describe('the sandboxes\' fault control over HTTP (/__sandbox/faults)', () => {
  const control = (method: string, body?: unknown) =>
    fetch(`${fake.url}/__sandbox/faults`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }) });

  it('injects a status fault for the next matching requests, refuses a bad rule, and clears', async () => {
    expect((await control('POST', { path: '/services/data', status: 503, times: 2 })).status).toBe(201);
    expect((await versions()).status).toBe(503);
    expect((await versions()).status).toBe(503);
    expect((await versions()).status).toBe(200);
    for (const bad of ['not json', { status: 503 }, { path: 'no-slash', status: 503 }, { path: '/x', status: 200 }, { path: '/x', status: 503, times: 0 }]) {
      expect([bad, (await control('POST', bad)).status]).toEqual([bad, 400]);
    }
    expect((await control('GET')).status).toBe(405);
    expect((await control('POST', { path: '/services/data', status: 429, retry_after_seconds: 7, times: 5 })).status).toBe(201);
    const limited = await versions();
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);
    expect((await control('DELETE')).status).toBe(200);
    expect((await versions()).status).toBe(200);
  });
});
