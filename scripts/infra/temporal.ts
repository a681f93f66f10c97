import { join } from 'node:path';
import { startTemporalDevServer } from './temporal-dev-server';
import { freePort } from './free-port';
import { dataDir } from './paths';

export interface Temporal {
  address: string;
  namespace: string;
  uiUrl: string | undefined;
  /** Which server this is, for the set-up line. */
  description: string;
  stop(): Promise<void>;
}

/**
 * TEMPORAL_ADDRESS when it is set; otherwise the Temporal CLI's development server: with its
 * web UI and a persistence file in .data for `npm start` (workflows survive a restart), headless
 * and in memory for tests.
 */
export async function provideTemporal(options: { purpose: 'start' | 'test' }): Promise<Temporal> {
  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  const configured = process.env.TEMPORAL_ADDRESS;
  if (configured) {
    return { address: configured, namespace, uiUrl: process.env.TEMPORAL_UI_URL, description: `the server at ${configured}`, stop: async () => undefined };
  }
  const start = options.purpose === 'start';
  const server = await startTemporalDevServer({
    port: start ? Number(process.env.TEMPORAL_DEV_PORT ?? 7233) : await freePort(),
    ...(start ? { uiPort: Number(process.env.TEMPORAL_DEV_UI_PORT ?? 8233), dbFile: join(dataDir, 'temporal', 'dev.db') } : {}),
    namespace,
  });
  const description = `development server on ${server.address}${server.uiUrl ? `, web UI ${server.uiUrl}` : ''}`;
  return { address: server.address, namespace, uiUrl: server.uiUrl, description, stop: () => server.stop() };
}
