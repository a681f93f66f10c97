import { describe, expect, it } from '@jest/globals';
import express from 'express';
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
