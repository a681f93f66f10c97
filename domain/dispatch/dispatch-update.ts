import canonicalize from 'canonicalize';

/**
 * D23 and document 001 section 6.2: what `dispatch.updated` tells of one route (a crew's day),
 * and the rule deciding whether a change of the route is one to tell and why. Pure: the two
 * states come from the caller, before and after its change.
 */

/** The reasons of D23, in the order the rule looks for them. */
export const DISPATCH_CHANGE_REASONS = ['reassignment', 'resequencing', 'eta_drift', 'technician_status'] as const;
export type DispatchChangeReason = (typeof DISPATCH_CHANGE_REASONS)[number];

/** A stop's status: planned, then what the crew last reported (D23's crew status). */
export const DISPATCH_STOP_STATUSES = ['planned', 'en_route', 'on_site', 'on_break', 'off_duty'] as const;
export type DispatchStopStatus = (typeof DISPATCH_STOP_STATUSES)[number];

export interface DispatchStop {
  sequence: number;
  jobId: string;
  etaLocal: string;
  status: DispatchStopStatus;
}

/** The attributes of a route the event shows and whose prior values it carries. */
export interface DispatchState {
  assigneeId: string;
  totalDriveMinutes: number;
  overtimeMinutes: number;
  stops: DispatchStop[];
}

const ATTRIBUTES = ['assigneeId', 'totalDriveMinutes', 'overtimeMinutes', 'stops'] as const satisfies readonly (keyof DispatchState)[];

/** Only the shown fields of a stop (a stored stop also has departures, windows and drive times). */
export function dispatchStops(stops: readonly DispatchStop[]): DispatchStop[] {
  return stops.map(({ sequence, jobId, etaLocal, status }) => ({ sequence, jobId, etaLocal, status }));
}

/** A crew without a route that day holds no stops and drives nowhere. */
export const emptyDispatchState = (assigneeId: string): DispatchState => ({ assigneeId, totalDriveMinutes: 0, overtimeMinutes: 0, stops: [] });

const same = (a: unknown, b: unknown) => canonicalize(a) === canonicalize(b);

/** The prior values of exactly the attributes that differ between the two states (D23). */
export function previousAttributes(before: DispatchState, after: DispatchState): Partial<DispatchState> {
  const previous: Partial<DispatchState> = {};
  for (const key of ATTRIBUTES) {
    if (!same(key === 'stops' ? dispatchStops(before.stops) : before[key], key === 'stops' ? dispatchStops(after.stops) : after[key])) {
      Object.assign(previous, { [key]: key === 'stops' ? dispatchStops(before.stops) : before[key] });
    }
  }
  return previous;
}

/**
 * Why a route changed, or null when nothing the event shows changed (a repeated trigger fires
 * nothing, D23): a job joined or left it, or its foreman changed (reassignment); the same jobs in
 * another order (resequencing); otherwise its times moved (eta_drift) or only its stops' statuses
 * did (technician_status).
 */
export function dispatchChange(before: DispatchState, after: DispatchState): { changeReason: DispatchChangeReason; previousAttributes: Partial<DispatchState> } | null {
  const previous = previousAttributes(before, after);
  if (Object.keys(previous).length === 0) return null;
  const jobs = (s: DispatchState) => s.stops.map((stop) => stop.jobId);
  const beforeJobs = jobs(before);
  const afterJobs = jobs(after);
  let changeReason: DispatchChangeReason;
  if (before.assigneeId !== after.assigneeId || !same([...beforeJobs].sort(), [...afterJobs].sort())) changeReason = 'reassignment';
  else if (!same(beforeJobs, afterJobs)) changeReason = 'resequencing';
  else if (!same(before.stops.map((s) => s.status), after.stops.map((s) => s.status)) && same(before.stops.map((s) => s.etaLocal), after.stops.map((s) => s.etaLocal))) changeReason = 'technician_status';
  else changeReason = 'eta_drift';
  return { changeReason, previousAttributes: previous };
}

/** D23's crew statuses (`POST /v1/fsm/crews/{id}/status`). */
export const CREW_STATUSES = ['en_route', 'on_site', 'on_break', 'off_duty'] as const satisfies readonly DispatchStopStatus[];
export type CrewStatus = (typeof CREW_STATUSES)[number];

/**
 * D23: a crew's reported status set on its route's stops: on the stop of `jobId`, or without one
 * on the crew's current stop (the last with a reported status, else the first). Any order is
 * allowed (`on_site` before `en_route`); `off_duty` also marks every later stop still planned, so
 * a day left with stops is recorded as such. Null when `jobId` is not on the route.
 */
export function withCrewStatus<S extends DispatchStop>(stops: readonly S[], status: CrewStatus, jobId?: string): S[] | null {
  let index: number;
  if (jobId !== undefined) {
    index = stops.findIndex((s) => s.jobId === jobId);
    if (index < 0) return null;
  } else {
    index = Math.max(
      stops.map((s) => s.status !== 'planned').lastIndexOf(true),
      0,
    );
  }
  return stops.map((s, i) => (i === index || (status === 'off_duty' && i > index && s.status === 'planned') ? { ...s, status } : s));
}
