import { createServer, type Server } from 'node:http';
import { listenOn } from './listen';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * Prometheus metrics of one process: a registry with the Node.js process metrics
 * (heap, event-loop lag, GC) and whatever the API (api/http/metrics.ts) or the worker
 * (worker/metrics.ts) registers on it. All our metric names start with `shade_`.
 */
export function createMetricsRegistry(process: 'api' | 'worker'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` on its own port, apart from the API's: the port is never published (it
 * listens on loopback unless METRICS_HOST says otherwise, and docker-compose only exposes it
 * to the stack's Prometheus), so nothing about the deployment's insides is public. `extra`
 * appends other exposition text (the Temporal SDK runtime's own metrics, in the worker).
 */
/** A process's own liveness, answered at /healthz beside /metrics: 200 when live, else 503. */
export type HealthReport = () => { live: boolean } & Record<string, unknown>;

export async function serveMetrics(registry: Registry, options: { host: string; port: number; extra?: () => Promise<string>; health?: HealthReport }): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (options.health && req.method === 'GET' && (req.url ?? '').split('?')[0] === '/healthz') {
      const report = options.health();
      res.writeHead(report.live ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(report));
      return;
    }
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: metrics are at /metrics\n');
      return;
    }
    void (async () => {
      try {
        const ours = await registry.metrics();
        const extra = options.extra ? await options.extra().catch(() => '') : '';
        res.writeHead(200, { 'content-type': registry.contentType }).end(extra ? `${ours}\n${extra}` : ours);
      } catch (error) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    })();
  });
  const base = await listenOn(server, options.port, options.host);
  return {
    url: `${base}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
