// The part of VROOM's documented input (docs/API.md of VROOM-Project/vroom) that a problem given
// by matrix uses, checked as the vroom binary checks it: on a fault it answers code 2 (input
// error) with a message naming the offending key, which vroom-express sends with HTTP 400.

export type TimeWindow = [number, number];

export interface VroomJob {
  id: number;
  location_index: number;
  service: number;
  delivery: number[];
  skills: number[];
  time_windows: TimeWindow[];
}

export interface VroomBreak {
  id: number;
  time_windows: TimeWindow[];
  service: number;
}

export interface VroomVehicle {
  id: number;
  profile: string;
  start_index?: number;
  end_index?: number;
  capacity: number[] | null;
  skills: number[];
  time_window: TimeWindow;
  breaks: VroomBreak[];
}

export interface VroomInput {
  jobs: VroomJob[];
  vehicles: VroomVehicle[];
  /** profile -> durations matrix. */
  durations: Map<string, number[][]>;
}

export class VroomInputError extends Error {}

/** The largest time VROOM accepts (its UserDuration is a 32-bit unsigned count of seconds). */
const MAX_TIME = 2 ** 32 - 1;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isUnsigned = (value: unknown, max = Number.MAX_SAFE_INTEGER): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;

function fail(message: string): never {
  throw new VroomInputError(message);
}

function unsignedArray(value: unknown, what: string): number[] {
  if (!Array.isArray(value) || !value.every((item) => isUnsigned(item))) fail(`Invalid ${what}.`);
  return value as number[];
}

function timeWindow(value: unknown, what: string): TimeWindow {
  if (!Array.isArray(value) || value.length !== 2 || !isUnsigned(value[0], MAX_TIME) || !isUnsigned(value[1], MAX_TIME)) fail(`Invalid ${what}.`);
  if (value[0] > value[1]) fail(`Invalid ${what}: start is after end.`);
  return [value[0], value[1]];
}

function timeWindows(value: unknown, what: string): TimeWindow[] {
  if (value === undefined) return [[0, MAX_TIME]];
  if (!Array.isArray(value) || value.length === 0) fail(`Invalid time_windows array for ${what}.`);
  const windows = value.map((item) => timeWindow(item, `time_window for ${what}`)).sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < windows.length; i++) if (windows[i]![0] <= windows[i - 1]![1]) fail(`Overlapping time_windows for ${what}.`);
  return windows;
}

export function parseVroomInput(body: unknown): VroomInput {
  if (!isObject(body)) fail('Invalid JSON object in request, please add vehicles and jobs or shipments to the object body');
  if (!('jobs' in body || 'shipments' in body) || !('vehicles' in body)) fail('Invalid JSON object in request, please add vehicles and jobs or shipments to the object body');
  if ('shipments' in body) fail('Shipments are not supported by this sandbox.');
  if (!Array.isArray(body.vehicles) || body.vehicles.length === 0) fail('Invalid vehicles array.');
  if (!Array.isArray(body.jobs)) fail('Invalid jobs array.');
  const durations = new Map<string, number[][]>();
  if (body.matrices !== undefined) {
    if (!isObject(body.matrices)) fail('Invalid matrices object.');
    for (const [profile, matrices] of Object.entries(body.matrices)) {
      if (!isObject(matrices) || !Array.isArray(matrices.durations)) fail(`Invalid durations matrix for profile ${profile}.`);
      const rows = matrices.durations as unknown[];
      for (const row of rows) if (!Array.isArray(row) || row.length !== rows.length || !row.every((cell) => isUnsigned(cell, MAX_TIME))) fail(`Invalid durations matrix for profile ${profile}: not a square matrix of durations.`);
      durations.set(profile, rows as number[][]);
    }
  } else if (body.matrix !== undefined) {
    fail('The deprecated matrix key is not supported by this sandbox: use matrices.');
  } else {
    fail('No matrices given and no routing server in this sandbox.');
  }
  let amountSize: number | null = null;
  const checkAmount = (amount: number[], what: string) => {
    if (amountSize === null) amountSize = amount.length;
    else if (amount.length !== amountSize) fail(`Inconsistent ${what} length: ${amount.length} and ${amountSize}.`);
  };
  const vehicleIds = new Set<number>();
  const vehicles = body.vehicles.map((raw): VroomVehicle => {
    if (!isObject(raw) || !isUnsigned(raw.id)) fail('Invalid id for vehicle.');
    const id = raw.id;
    if (vehicleIds.has(id)) fail(`Duplicate vehicle id: ${id}.`);
    vehicleIds.add(id);
    const profile = raw.profile === undefined ? 'car' : typeof raw.profile === 'string' ? raw.profile : fail(`Invalid profile for vehicle ${id}.`);
    const matrix = durations.get(profile) ?? fail(`Missing durations matrix for profile ${profile}.`);
    const index = (key: 'start_index' | 'end_index') => {
      const value = raw[key];
      if (value === undefined) return undefined;
      if (!isUnsigned(value) || value >= matrix.length) fail(`Invalid ${key} for vehicle ${id}.`);
      return value;
    };
    const start = index('start_index');
    const end = index('end_index');
    if (start === undefined && end === undefined) fail(`Missing start_index or end_index for vehicle ${id}.`);
    const capacity = raw.capacity === undefined ? null : unsignedArray(raw.capacity, `capacity for vehicle ${id}`);
    if (capacity) checkAmount(capacity, 'capacity');
    const breakIds = new Set<number>();
    const breaks = raw.breaks === undefined ? [] : Array.isArray(raw.breaks) ? raw.breaks.map((item): VroomBreak => {
      if (!isObject(item) || !isUnsigned(item.id)) fail(`Invalid id for break of vehicle ${id}.`);
      if (breakIds.has(item.id)) fail(`Duplicate break id: ${item.id} for vehicle ${id}.`);
      breakIds.add(item.id);
      if (item.service !== undefined && !isUnsigned(item.service, MAX_TIME)) fail(`Invalid service for break ${item.id}.`);
      return { id: item.id, time_windows: timeWindows(item.time_windows, `break ${item.id}`), service: (item.service as number | undefined) ?? 0 };
    }) : fail(`Invalid breaks for vehicle ${id}.`);
    return {
      id,
      profile,
      ...(start === undefined ? {} : { start_index: start }),
      ...(end === undefined ? {} : { end_index: end }),
      capacity,
      skills: raw.skills === undefined ? [] : unsignedArray(raw.skills, `skills for vehicle ${id}`),
      time_window: raw.time_window === undefined ? [0, MAX_TIME] : timeWindow(raw.time_window, `time_window for vehicle ${id}`),
      breaks,
    };
  });
  const jobIds = new Set<number>();
  const size = Math.min(...vehicles.map((vehicle) => durations.get(vehicle.profile)!.length));
  const jobs = body.jobs.map((raw): VroomJob => {
    if (!isObject(raw) || !isUnsigned(raw.id)) fail('Invalid id for job.');
    const id = raw.id;
    if (jobIds.has(id)) fail(`Duplicate job id: ${id}.`);
    jobIds.add(id);
    if (!isUnsigned(raw.location_index) || raw.location_index >= size) fail(`Invalid location_index for job ${id}.`);
    if (raw.service !== undefined && !isUnsigned(raw.service, MAX_TIME)) fail(`Invalid service duration for job ${id}.`);
    if (raw.amount !== undefined || raw.pickup !== undefined) fail(`Only delivery amounts are supported by this sandbox (job ${id}).`);
    const delivery = raw.delivery === undefined ? [] : unsignedArray(raw.delivery, `delivery for job ${id}`);
    if (raw.delivery !== undefined) checkAmount(delivery, 'delivery');
    return {
      id,
      location_index: raw.location_index,
      service: (raw.service as number | undefined) ?? 0,
      delivery,
      skills: raw.skills === undefined ? [] : unsignedArray(raw.skills, `skills for job ${id}`),
      time_windows: timeWindows(raw.time_windows, `job ${id}`),
    };
  });
  if (amountSize !== null && amountSize > 0) {
    for (const vehicle of vehicles) if (!vehicle.capacity) fail(`Missing capacity for vehicle ${vehicle.id}.`);
  }
  return { jobs, vehicles, durations };
}
