import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { createRequestMetrics, UNMATCHED_ROUTE } from '../../api/http/metrics';
import { parseExposition, sampleValue } from '../support/prometheus-text';

/**
 * The route label of api/http/metrics.ts against routers shaped like ours (api/app.ts): routes
 * registered on the app with their whole path, handlers mounted under a prefix after them. Those
 * mounted handlers are what once made a `/v1/` error read `/v1/v1/...`: the label is the matched
 * route's pattern wherever the router stands when the answer goes out.
 */
const registry = new Registry();
const metrics = createRequestMetrics(registry);
let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use(metrics.middleware);
  app.get('/v1/fsm/jobs/:job_id', (req, res) => {
    if (req.params.job_id === 'missing') throw new Error('no such job');
    res.json({ ok: true });
  });
  // After the routes, as api/app.ts has them: a pass-through under /v1, and an error handler
  // mounted under /v1 that answers there (the shape of the old /v1 problem handler).
  app.use('/v1', (_req, _res, next) => next());
  app.use('/v1', (_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => void res.status(404).json({ status: 404 }));
  app.use((_req, res) => void res.status(404).json({ status: 404 }));
  await new Promise<void>((resolve) => (server = app.listen(0, '127.0.0.1', () => resolve())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The counter's value once it has counted `expected` answers in all (`finish` comes after the client has the answer). */
async function counted(labels: Record<string, string>, expected: number): Promise<number | undefined> {
  for (;;) {
    const total = parseExposition(await registry.metrics()).filter((s) => s.name === 'shade_http_requests_total').reduce((sum, s) => sum + s.value, 0);
    if (total >= expected) return sampleValue(parseExposition(await registry.metrics()), 'shade_http_requests_total', labels);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the route label of shade_http_requests_total', () => {
  it('is the route pattern for a success and for an error answered by a handler mounted under /v1; unmatched only without a route', async () => {
    expect((await fetch(`${base}/v1/fsm/jobs/4f0c2a1e`)).status).toBe(200);
    expect((await fetch(`${base}/v1/fsm/jobs/missing`)).status).toBe(404);
    expect((await fetch(`${base}/v1/no-such-thing`)).status).toBe(404);
    expect(await counted({ method: 'GET', route: '/v1/fsm/jobs/:job_id', status: '200' }, 3)).toBe(1);
    expect(await counted({ method: 'GET', route: '/v1/fsm/jobs/:job_id', status: '404' }, 3)).toBe(1);
    expect(await counted({ method: 'GET', route: UNMATCHED_ROUTE, status: '404' }, 3)).toBe(1);
    const routes = parseExposition(await registry.metrics()).filter((s) => s.name === 'shade_http_requests_total').map((s) => s.labels.route);
    expect(routes.filter((r) => r !== UNMATCHED_ROUTE && r !== '/v1/fsm/jobs/:job_id')).toEqual([]);
  });
});
