// A contractor's busy day for the solver's benchmark and tests (D23): crews from one depot in
// Toronto, jobs at sites within about 25 km, travel by great circle times D23's default road factor
// (1.3) at its default average speed (40 km/h), in minutes from midnight. Drawn from a seed, so the
// same day comes back every run.
import type { RoutingJob, RoutingProblem } from '../../domain/routing/problem';
import { SeededRandom } from './seeded-random';

const TORONTO = { lat: 43.6532, lon: -79.3832 };
const EARTH_RADIUS_KM = 6371.0088;
const ROAD_FACTOR = 1.3;
const SPEED_KMH = 40;

export function greatCircleKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

export interface ContractorDayOptions {
  crews: number;
  jobs: number;
  seed: number;
}

export function contractorDay({ crews, jobs, seed }: ContractorDayOptions): RoutingProblem {
  const random = new SeededRandom(seed);
  const places = [TORONTO];
  for (let job = 0; job < jobs; job++) {
    // Up to ~25 km out: 0.22 degrees of latitude, 0.3 of longitude at Toronto.
    places.push({ lat: TORONTO.lat + random.between(-2200, 2200) / 10_000, lon: TORONTO.lon + random.between(-3000, 3000) / 10_000 });
  }
  const travel = places.map((from) => places.map((to) => Math.round(((greatCircleKm(from, to) * ROAD_FACTOR) / SPEED_KMH) * 60)));
  const windows = [
    [480, 1020],
    [480, 1020],
    [480, 720],
    [720, 1020],
    [540, 660],
    [780, 900],
  ] as const;
  const dayJobs: RoutingJob[] = Array.from({ length: jobs }, (_, job) => {
    const [windowStart, windowEnd] = windows[random.between(0, windows.length - 1)]!;
    return { id: `job-${job + 1}`, location: job + 1, windowStart, windowEnd, serviceTime: 15 * random.between(2, 6), demand: 0 };
  });
  // A third of the jobs need a motor fitter, whom half the crews have; a tenth need the high-reach
  // kit of a quarter of the crews.
  const motorCrew = Array.from({ length: crews }, (_, crew) => crew % 2 === 0);
  const reachCrew = Array.from({ length: crews }, (_, crew) => crew % 4 === 1);
  const needsMotor = dayJobs.map(() => random.between(0, 2) === 0);
  const needsReach = dayJobs.map(() => random.between(0, 9) === 0);
  return {
    jobs: dayJobs,
    crews: Array.from({ length: crews }, (_, crew) => ({ id: `crew-${crew + 1}`, depot: 0, shiftStart: 480, shiftEnd: 1020, breakTime: 30, overtimeCap: 60, capacity: Infinity })),
    travel,
    allowed: dayJobs.map((_, job) => Array.from({ length: crews }, (_, crew) => (!needsMotor[job] || motorCrew[crew]!) && (!needsReach[job] || reachCrew[crew]!))),
    objective: { perVehicle: 0, perTravel: 1, perOvertime: 2 },
  };
}
