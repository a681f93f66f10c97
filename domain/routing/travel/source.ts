import type { LatLon } from './great-circle';
import { greatCircleMinutes } from './great-circle';

/** D23: where a plan's travel times come from; the answer names it (`travelTimeSource`). */
export type TravelTimeSourceName = 'great_circle' | 'osrm';

/** One interface for every source: minutes from each point to each other, `matrix[a][b]`. */
export interface TravelTimeSource {
  readonly name: TravelTimeSourceName;
  minutes(points: readonly LatLon[]): Promise<number[][]>;
}

/** The default: great-circle distance times the road factor, at the average speed. No network. */
export function greatCircleSource(settings: { roadFactor: number; averageSpeedKmh: number }): TravelTimeSource {
  return { name: 'great_circle', minutes: (points) => Promise.resolve(greatCircleMinutes(points, settings.roadFactor, settings.averageSpeedKmh)) };
}

/**
 * A source that could not answer: the plan fails with this, naming the source, and nothing is
 * applied. There is no silent fallback to another source.
 */
export class TravelTimesUnavailable extends Error {
  constructor(
    readonly source: TravelTimeSourceName,
    detail: string,
  ) {
    // A sentence of its own: the API adds "Nothing was applied." after it.
    super(`Travel times from ${source} failed: ${detail.replace(/\.?$/, '.')}`);
    this.name = 'TravelTimesUnavailable';
  }
}
