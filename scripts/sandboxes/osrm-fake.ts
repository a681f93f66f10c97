import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOn } from '../../infra/runtime/listen';
import { greatCircleKm } from '../../domain/routing/travel/great-circle';

/**
 * A local stand-in for an OSRM server's table service (D23), on 127.0.0.1: it speaks
 * `GET /table/v1/{profile}/{lon},{lat};...?annotations=duration` as OSRM documents it (coordinates
 * longitude first; `code: "Ok"` with `durations` in seconds, one row per source; its error answers
 * `InvalidUrl`, `InvalidOptions`, `InvalidQuery` with HTTP 400). Durations are the road distance
 * at `speedKmh` over `roadFactor` times the great circle, so a test can tell them from the built-in
 * source's. `mode` makes it misbehave: `garbage` answers a body that is not JSON, `wrong-shape` a
 * table of the wrong size, `no-table` OSRM's `NoTable`, `slow` answers after `delayMs`.
 */
export type OsrmFakeMode = 'ok' | 'garbage' | 'wrong-shape' | 'no-table' | 'slow';

export class OsrmFake {
  mode: OsrmFakeMode = 'ok';
  delayMs = 5_000;
  /** Every coordinate list asked for, as [lon, lat] pairs, to check the order a client sends. */
  readonly requests: [number, number][][] = [];
  private server: Server | undefined;

  constructor(private readonly options: { roadFactor?: number; speedKmh?: number } = {}) {}

  async start(): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    const url = await listenOn(server, 0, '127.0.0.1');
    return {
      url,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = /^\/table\/v1\/([a-z]+)\/([^/]+)$/.exec(url.pathname);
    if (req.method !== 'GET' || !match) return answer(400, { code: 'InvalidUrl', message: `URL string malformed close to position 1: "${url.pathname}"` });
    const annotations = url.searchParams.get('annotations') ?? 'duration';
    if (!annotations.split(',').every((a) => a === 'duration' || a === 'distance')) return answer(400, { code: 'InvalidOptions', message: 'Unknown annotations' });
    const pairs = decodeURIComponent(match[2]!).split(';').map((pair) => pair.split(',').map(Number));
    if (pairs.length < 2 || pairs.some((p) => p.length !== 2 || p.some((n) => !Number.isFinite(n)))) return answer(400, { code: 'InvalidQuery', message: 'Query string malformed' });
    if (pairs.some(([lon, lat]) => Math.abs(lon!) > 180 || Math.abs(lat!) > 90)) return answer(400, { code: 'InvalidValue', message: 'Invalid coordinate value.' });
    this.requests.push(pairs as [number, number][]);
    if (this.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>502 Bad Gateway</body></html>');
      return;
    }
    if (this.mode === 'no-table') return answer(400, { code: 'NoTable', message: 'No table found' });
    const points = pairs.map(([lon, lat]) => ({ lat: lat!, lon: lon! }));
    const speed = this.options.speedKmh ?? 50;
    const factor = this.options.roadFactor ?? 1.25;
    const durations = points.map((a) => points.map((b) => Math.round(((greatCircleKm(a, b) * factor) / speed) * 3600 * 10) / 10));
    if (this.mode === 'wrong-shape') durations.pop();
    answer(200, { code: 'Ok', durations, sources: points.map((p) => ({ location: [p.lon, p.lat], name: '', hint: '' })), destinations: points.map((p) => ({ location: [p.lon, p.lat], name: '', hint: '' })) });
  }
}
