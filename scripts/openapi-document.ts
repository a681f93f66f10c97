import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { createApp } from '../api/app';
import { createLogger } from '../infra/runtime/logger';
import { loadSettings } from '../infra/runtime/settings';
import { buildDocument } from '../api/meta/openapi';
import type { RouteHost } from '../api/http/route';

/** Stands in for the entity manager: declaring routes never uses it, and nothing here serves a request. */
const untouchable = <T extends object>(name: string): T =>
  new Proxy({} as T, {
    get: (_target, property) => {
      throw new Error(`building the OpenAPI document used the ${name} (${String(property)}); it must not`);
    },
  });

/**
 * The OpenAPI document /openapi.json serves, built without a database or a server: the same
 * route declarations, registered by createApp, and the same builder. `servers` is the relative
 * default (no PUBLIC_BASE_URL), which the generated types do not use anyway.
 */
export function openApiDocument(): ReturnType<typeof buildDocument> {
  const settings = loadSettings({ NODE_ENV: 'development', DATABASE_URL: 'postgres://unused@127.0.0.1:9/unused', AUTH_TOKEN_SECRET: 'x'.repeat(32), LOG_LEVEL: 'silent' });
  let host: RouteHost | undefined;
  // The limiter needs a real pool to know its kind; a pg pool connects only on a first query.
  const limiterPool = new pg.Pool({ connectionString: settings.DATABASE_URL, max: 1 });
  try {
    createApp({
      settings,
      em: untouchable<EntityManager>('entity manager'),
      limiterPool,
      logger: createLogger('silent'),
      extraRoutes: (h) => {
        host = h;
      },
    });
  } finally {
    void limiterPool.end();
  }
  return buildDocument(host!.registry, { serverUrl: '/' });
}
