import { join } from 'node:path';
import { startTemporalDevServer } from './temporal-dev-server';
import { freePort } from './free-port';
import { dataDir } from './paths';
import { say } from './log';

export interface Temporal {
  address: string;
  namespace: string;
  uiUrl: string | undefined;
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
    say(`using the Temporal server at ${configured}`);
    return { address: configured, namespace, uiUrl: process.env.TEMPORAL_UI_URL, stop: async () => undefined };
  }
  const start = options.purpose === 'start';
  const server = await startTemporalDevServer({
    port: start ? Number(process.env.TEMPORAL_DEV_PORT ?? 7233) : await freePort(),
    ...(start ? { uiPort: Number(process.env.TEMPORAL_DEV_UI_PORT ?? 8233), dbFile: join(dataDir, 'temporal', 'dev.db') } : {}),
    namespace,
  });
  return { address: server.address, namespace, uiUrl: server.uiUrl, stop: () => server.stop() };
}
