import { afterEach, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { route, type RouteHost } from '../../api/http/route';
import { PublicRoutes } from '../../api/http/public-routes';

const host = (): RouteHost => ({ app: express(), registry: new OpenAPIRegistry(), publicRoutes: new PublicRoutes() });
const Thing = z.strictObject({ id: z.uuid(), name: z.string().min(1) });
const base = {
  method: 'post' as const,
  path: '/api/v1/things/:id',
  operationId: 'createThing',
  summary: 'A thing',
  description: 'Test only: declares a route.',
  tags: ['test'],
  auth: 'bearer' as const,
  handler: () => undefined,
};

describe('route(): examples are part of the declaration', () => {
  it('accepts a declaration whose examples its schemas accept', () => {
    expect(() =>
      route(host(), { ...base, body: Thing, bodyExample: { id: '5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c', name: 'Roller' }, responses: { 200: { description: 'ok', schema: Thing, example: { id: '5a1f3c7e-9b2d-4e6f-a8c0-1d3e5f7a9b2c', name: 'Roller' } } } }),
    ).not.toThrow();
  });

  it('refuses a response schema without an example', () => {
    expect(() => route(host(), { ...base, responses: { 200: { description: 'ok', schema: Thing } } })).toThrow(/createThing: response 200 has a schema but no example/);
  });

  it('refuses a body without an example', () => {
    expect(() => route(host(), { ...base, body: Thing, responses: {} })).toThrow(/createThing: the request body has a schema but no example/);
  });

  it('refuses an example its schema rejects, naming the field', () => {
    expect(() => route(host(), { ...base, responses: { 200: { description: 'ok', schema: Thing, example: { id: 'not-a-uuid', name: 'Roller' } } } })).toThrow(/response 200 does not match its schema.*"id"/);
  });
});

describe('PublicRoutes: the bearer guard reads the declarations', () => {
  it('lets through exactly the non-bearer routes, with or without a trailing slash', () => {
    const h = host();
    route(h, { ...base, method: 'get', path: '/api/v1/open/:provider/callback', operationId: 'openThing', auth: 'none', responses: {} });
    route(h, { ...base, method: 'get', path: '/api/v1/closed', operationId: 'closedThing', responses: {} });
    expect(h.publicRoutes.includes('GET', '/api/v1/open/accounting/callback')).toBe(true);
    expect(h.publicRoutes.includes('GET', '/api/v1/open/accounting/callback/')).toBe(true);
    expect(h.publicRoutes.includes('POST', '/api/v1/open/accounting/callback')).toBe(false);
    expect(h.publicRoutes.includes('GET', '/api/v1/open/a/b/callback')).toBe(false);
    expect(h.publicRoutes.includes('GET', '/api/v1/closed')).toBe(false);
  });

  it('treats a dot in a path as a dot, not as any character', () => {
    const routes = new PublicRoutes();
    routes.add('get', '/openapi.json');
    expect(routes.includes('GET', '/openapi.json')).toBe(true);
    expect(routes.includes('GET', '/openapiXjson')).toBe(false);
  });

  it('refuses path syntax it cannot match exactly', () => {
    expect(() => new PublicRoutes().add('get', '/api/v1/files/*rest')).toThrow(/unsupported path syntax/);
  });
});

describe('route(): metering and idempotency are declared (D15, D14)', () => {
  const v1 = { ...base, method: 'get' as const, path: '/v1/things', operationId: 'listV1Things', responses: {} };
  const meter = () => {
    const calls: string[] = [];
    return {
      calls,
      draw: async (organizationId: string) => void calls.push(`draw ${organizationId}`),
    };
  };
  const keyed = {
    ...base,
    path: '/v1/things',
    operationId: 'createV1Thing',
    metering: 'request' as const,
    idempotency: 'Idempotency-Key' as const,
    headers: z.object({ 'Idempotency-Key': z.string().optional() }),
    body: Thing.omit({ id: true }),
    bodyExample: { name: 'Roller' },
    responses: {},
    handler: async () => ({ status: 201, body: { made: true } }),
  };

  it('a bearer route under /v1/ says what it draws; no other route may', () => {
    expect(() => route({ ...host(), meter: meter() }, v1)).toThrow(/listV1Things: a bearer route under \/v1\/ declares what it draws/);
    expect(() => route({ ...host(), meter: meter() }, { ...v1, metering: 'request' })).not.toThrow();
    expect(() => route({ ...host(), meter: meter() }, { ...v1, metering: 'points' })).not.toThrow();
    expect(() => route({ ...host(), meter: meter() }, { ...base, metering: 'request', responses: {} })).toThrow(/only bearer routes under \/v1\/ draw/);
    expect(() => route({ ...host(), meter: meter() }, { ...v1, auth: 'none', metering: 'request' })).toThrow(/only bearer routes under \/v1\/ draw/);
    expect(() => route(host(), { ...v1, auth: 'none' })).not.toThrow();
    expect(() => route(host(), { ...v1, metering: 'request' })).toThrow(/the host has no plan meter/);
  });

  it('an idempotent route is a bearer POST that documents its header, on a host that keeps keys', () => {
    const h = () => ({ ...host(), meter: meter(), idempotencyKeys: {} as never });
    expect(() => route(h(), keyed)).not.toThrow();
    expect(() => route(host(), { ...keyed, metering: undefined, path: '/api/v1/things' })).toThrow(/the host keeps no keys/);
    expect(() => route(h(), { ...keyed, headers: undefined })).toThrow(/documents its Idempotency-Key header/);
    expect(() => route(h(), { ...keyed, method: 'put' })).toThrow(/only a POST takes an Idempotency-Key/);
    expect(() => route(h(), { ...keyed, metering: undefined, auth: 'none' })).toThrow(/an idempotent route is a bearer route/);
  });

  describe('what a declaration does in front of the handler', () => {
    const caller = { userId: 'u1', organizationId: 'o1', role: 'TECHNICIAN' as const, email: 'u1@example.test' };
    let server: Server;
    let origin: string;
    const withCaller = (h: RouteHost) => {
      h.app.use(express.json());
      h.app.use((req: Request, _res: Response, next: NextFunction) => {
        req.caller = caller;
        next();
      });
      return h;
    };
    const listen = async (h: RouteHost) => {
      h.app.use((error: Error & { kind?: string }, _req: Request, res: Response, _next: NextFunction) => {
        res.status(({ forbidden: 403, validation_failed: 422 } as Record<string, number>)[error.kind ?? ''] ?? 500).json({ kind: error.kind ?? 'unexpected', message: error.message });
      });
      server = h.app.listen(0, '127.0.0.1');
      await once(server, 'listening');
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    afterEach(async () => {
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    });

    it('metering "request" and "points" draw one request token before roles are checked; "points" leaves only its cost to the handler', async () => {
      const m = meter();
      const h = withCaller({ ...host(), meter: m });
      route(h, { ...v1, path: '/v1/things/office', operationId: 'office', metering: 'request', roles: ['ADMIN'] });
      route(h, { ...v1, path: '/v1/things/points', operationId: 'points', metering: 'points', handler: ({ res }) => void res.json({ ok: true }) });
      await listen(h);
      expect((await fetch(`${origin}/v1/things/office`)).status).toBe(403);
      expect(m.calls).toEqual(['draw o1']);
      expect((await fetch(`${origin}/v1/things/points`)).status).toBe(200);
      expect(m.calls).toEqual(['draw o1', 'draw o1']);
    });

    it('a request with an Idempotency-Key draws before its key is looked at: a replay and a malformed key draw as any request (D15)', async () => {
      const m = meter();
      const claims: { key: string; operation: string; payload: unknown }[] = [];
      const keys = {
        once: async (_organizationId: string, keyedRequest: { key: string; request: { operation: string; payload: unknown } }, work: (keep: () => Promise<void>) => Promise<unknown>) => {
          claims.push({ key: keyedRequest.key, ...keyedRequest.request });
          if (claims.length > 1) return { answer: { status: 201, body: { made: true }, headers: { 'X-Kept': 'yes' } }, replayed: true };
          return { answer: await work(async () => undefined), replayed: false };
        },
      };
      const h = withCaller({ ...host(), meter: m, idempotencyKeys: keys as never });
      route(h, { ...keyed, roles: undefined });
      await listen(h);
      const post = (key?: string) =>
        fetch(`${origin}/v1/things`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) }, body: JSON.stringify({ name: 'Roller' }) });
      const first = await post('k1');
      expect([first.status, first.headers.get('idempotent-replayed'), await first.json()]).toEqual([201, null, { made: true }]);
      expect(m.calls).toEqual(['draw o1']);
      expect(claims).toEqual([{ key: 'k1', operation: 'POST /v1/things', payload: { name: 'Roller' } }]);
      const again = await post('k1');
      expect([again.status, again.headers.get('idempotent-replayed'), again.headers.get('x-kept')]).toEqual([201, 'true', 'yes']);
      expect(m.calls).toEqual(['draw o1', 'draw o1']);
      // Without a key the request draws and runs as any other; a malformed key is refused before any claim, its token drawn.
      expect((await post()).status).toBe(201);
      expect(m.calls).toEqual(['draw o1', 'draw o1', 'draw o1']);
      const malformed = await post('');
      expect([malformed.status, ((await malformed.json()) as { kind: string }).kind]).toEqual([422, 'validation_failed']);
      expect(claims).toHaveLength(2);
      expect(m.calls).toEqual(['draw o1', 'draw o1', 'draw o1', 'draw o1']);
    });
  });
});
