/** A point in WGS84 decimal degrees. */
export interface LatLon {
  lat: number;
  lon: number;
}

const EARTH_RADIUS_KM = 6371.0088;

/** The great-circle distance in kilometres (haversine). */
export function greatCircleKm(a: LatLon, b: LatLon): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * D23's default travel times, no network: the great-circle distance times the tenant's road
 * factor, at its average speed. Minutes, `matrix[a][b]` from point a to point b.
 */
export function greatCircleMinutes(points: readonly LatLon[], roadFactor: number, averageSpeedKmh: number): number[][] {
  return points.map((a) => points.map((b) => (greatCircleKm(a, b) * roadFactor * 60) / averageSpeedKmh));
}
