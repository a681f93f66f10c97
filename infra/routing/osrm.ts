import { z } from 'zod';
import type { LatLon } from '../../domain/routing/travel/great-circle';
import { TravelTimesUnavailable, type TravelTimeSource } from '../../domain/routing/travel/source';

/**
 * D23: travel times from an OSRM server's table service
 * (`GET /table/v1/driving/{lon},{lat};...?annotations=duration`): OSRM takes coordinates
 * longitude first, answers `code: "Ok"` with `durations` in seconds (null where no route), and
 * any other code is its error (`InvalidQuery`, `NoTable`, `TooBig`, ...). A timeout, a refused
 * connection, a non-JSON or malformed answer all fail the plan with TravelTimesUnavailable.
 */
const TableAnswer = z.object({
  code: z.string(),
  message: z.string().optional(),
  durations: z.array(z.array(z.number().nonnegative().nullable())).optional(),
});

export function osrmSource(options: { baseUrl: string; timeoutMs: number; fetch?: typeof fetch }): TravelTimeSource {
  const send = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  return {
    name: 'osrm',
    async minutes(points: readonly LatLon[]): Promise<number[][]> {
      if (points.length === 0) return [];
      const coordinates = points.map((p) => `${p.lon.toFixed(6)},${p.lat.toFixed(6)}`).join(';');
      const url = `${base}/table/v1/driving/${coordinates}?annotations=duration`;
      let status: number;
      let text: string;
      try {
        const response = await send(url, { signal: AbortSignal.timeout(options.timeoutMs), headers: { accept: 'application/json' } });
        status = response.status;
        text = await response.text();
      } catch (error) {
        // fetch says only "fetch failed"; the socket's own error (ECONNREFUSED, ENOTFOUND...) is its cause.
        const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
        const why = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : (error as Error).message;
        const reason = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? `no answer within ${options.timeoutMs} ms` : `unreachable (${why})`;
        throw new TravelTimesUnavailable('osrm', `${base} ${reason}`);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new TravelTimesUnavailable('osrm', `${base} answered HTTP ${status} with a body that is not JSON`);
      }
      const parsed = TableAnswer.safeParse(json);
      if (!parsed.success) throw new TravelTimesUnavailable('osrm', `${base} answered HTTP ${status} with a body that is not a table answer`);
      const answer = parsed.data;
      if (answer.code !== 'Ok') throw new TravelTimesUnavailable('osrm', `${base} answered ${answer.code}${answer.message ? `: ${answer.message}` : ''}`);
      const durations = answer.durations;
      if (!durations || durations.length !== points.length || durations.some((row) => row.length !== points.length)) {
        throw new TravelTimesUnavailable('osrm', `${base} answered a table of the wrong size for ${points.length} points`);
      }
      return durations.map((row, a) =>
        row.map((seconds, b) => {
          if (seconds === null) throw new TravelTimesUnavailable('osrm', `${base} found no route from point ${a} to point ${b}`);
          return seconds / 60;
        }),
      );
    },
  };
}
