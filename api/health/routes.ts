import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import { route, type RouteHost } from '../http/route';
import type { Settings } from '../../infra/runtime/settings';
import { ErrorEnvelopeSchema } from '../http/common-schemas';
import { errorExample } from '../http/error-examples';
import { withDeadline } from '../../infra/runtime/deadline';
import { pingDatabase } from '../../db/health';

const HEALTH_TIMEOUT_MS = 2000;
const errorExampleOfBadJson = errorExample(400, 'The request body is not valid JSON.');

const Build = z.strictObject({ commit: z.string().nullable(), ref: z.string().nullable(), environment: z.string().nullable() });
export const Health = z
  .strictObject({
    status: z.enum(['ok', 'degraded']),
    database: z.enum(['reachable', 'unreachable']),
    latency_ms: z.number().int().min(0).optional().meta({ description: 'Present only when status is ok' }),
    build: Build,
    timestamp: z.string(),
  })
  .meta({ id: 'Health' });

export function healthRoutes(host: RouteHost, deps: { em: EntityManager; settings: Settings }): void {
  const build = {
    commit: deps.settings.BUILD_COMMIT ?? null,
    ref: deps.settings.BUILD_REF ?? null,
    environment: deps.settings.BUILD_ENVIRONMENT ?? deps.settings.NODE_ENV,
  };
  route(host, {
    method: 'get',
    path: '/api/health',
    operationId: 'getHealth',
    summary: 'Liveness with a database round trip (exempt from the broad rate limit)',
    description: '200 when the database answers within two seconds, 503 (still the Health object) when it does not. No token, no rate limit.',
    tags: ['infrastructure'],
    auth: 'none',
    responses: {
      200: {
        description: 'Database reachable',
        schema: Health,
        example: { status: 'ok', database: 'reachable', latency_ms: 2, build: { commit: '7037bbd', ref: 'main', environment: 'production' }, timestamp: '2026-11-23T09:30:00.000Z' },
      },
      // Like every route: a body sent with a JSON content type is parsed before routing.
      400: { description: 'A request body was sent with a JSON content type and is not valid JSON', schema: ErrorEnvelopeSchema, example: errorExampleOfBadJson },
      503: {
        description: 'Database unreachable (the Health object, not an error envelope)',
        schema: Health,
        example: { status: 'degraded', database: 'unreachable', build: { commit: '7037bbd', ref: 'main', environment: 'production' }, timestamp: '2026-11-23T09:30:00.000Z' },
      },
    },
    handler: async ({ req, res }) => {
      const started = process.hrtime.bigint();
      try {
        await withDeadline(pingDatabase(deps.em.fork()), HEALTH_TIMEOUT_MS, 'the database check');
        const latency = Number((process.hrtime.bigint() - started) / 1_000_000n);
        res.json({ status: 'ok', database: 'reachable', latency_ms: latency, build, timestamp: new Date().toISOString() });
      } catch (error) {
        req.log.warn({ err: error }, 'health check: database unreachable');
        res.status(503).json({ status: 'degraded', database: 'unreachable', build, timestamp: new Date().toISOString() });
      }
    },
  });
}
