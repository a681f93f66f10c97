import { randomInt } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createApp, type AppDependencies } from '../../api/app';
import type { Server } from 'node:http';
import { serve } from '../../api/http/server';
import { createLogger } from '../../infra/runtime/logger';
import { databaseTimeouts, loadSettings, type Settings } from '../../infra/runtime/settings';
import { createOrm } from '../../db/orm';
import { boundedPool } from '../../db/database-timeouts';
import { appDatabaseUrl } from '../../db/database-urls';
import { TokenService } from '../../api/auth/tokens';
import type { Role } from '../../db/entities/user';

export interface ApiHarness {
  url: string;
  /** The HTTP server itself (timing tests add a control cost ahead of the app). */
  server: Server;
  settings: Settings;
  orm: MikroORM;
  /** fetch against the API; each harness speaks from its own client address (X-Forwarded-For). */
  request(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  tokenFor(user: { id: string; organizationId: string; role: Role }): Promise<string>;
  clientAddress: string;
  /** Stops as api/main.ts does: drains requests in flight for up to `drainMs` (default 0), then closes the pools. */
  close(drainMs?: number): Promise<{ drained: boolean }>;
}

export type HarnessOptions = Partial<Omit<AppDependencies, 'settings' | 'em' | 'limiterPool'>> & { env?: Record<string, string | undefined> };

/** A real API on an ephemeral port, on the test database, as the application role. */
export async function startApi(options: HarnessOptions = {}): Promise<ApiHarness> {
  // As if behind one reverse proxy on loopback, so each harness can speak for its own client
  // address; tests of the proxy setting itself override TRUST_PROXY_HOPS.
  // Database waits bounded as in production, but at 30 s unless a test names its own (the
  // outage test does): the suite's machine is shared and busy, and a burst of 100 requests on
  // this pool of 5 may queue for longer than production's 5 s without anything being wrong.
  const settings = loadSettings({ DATABASE_CONNECT_TIMEOUT_MS: '30000', DATABASE_STATEMENT_TIMEOUT_MS: '30000', ...process.env, PORT: '0', TRUST_PROXY_HOPS: '1', ...options.env });
  const appUrl = appDatabaseUrl(settings.DATABASE_URL, settings.DATABASE_APP_PASSWORD);
  // Bounded as api/process.ts bounds them (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS).
  const timeouts = databaseTimeouts(settings, 'api');
  const orm = await createOrm({ url: appUrl, poolMax: 5, timeouts });
  const limiterPool = boundedPool(appUrl, 3, timeouts);
  limiterPool.on('error', () => undefined);
  const app = createApp({ logger: createLogger('silent'), ...options, settings, em: orm.em, limiterPool });
  // The same server as api/main.ts: envelopes for unparseable requests, and the draining stop.
  const served = await serve(app, { port: 0, host: '127.0.0.1' });
  const url = served.url;
  // An address of the benchmarking range (198.18.0.0/15, never routed) per harness, drawn from
  // 130,000 so broad limits do not leak between the suite's harnesses.
  const clientAddress = `198.${randomInt(18, 20)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const tokens = new TokenService(settings.AUTH_TOKEN_SECRET);
  return {
    url,
    server: served.server,
    settings,
    orm,
    clientAddress,
    request: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has('x-forwarded-for')) headers.set('x-forwarded-for', clientAddress);
      if (init.token) headers.set('authorization', `Bearer ${init.token}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(url + path, { ...init, headers, body });
    },
    tokenFor: (user) => tokens.issue({ userId: user.id, organizationId: user.organizationId, role: user.role }),
    close: async (drainMs = 0) => {
      const outcome = await served.stop(drainMs);
      await Promise.allSettled([orm.close(true), limiterPool.end()]);
      return outcome;
    },
  };
}
