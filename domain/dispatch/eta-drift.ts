import { minutesOf } from '../routing/clock';

/**
 * D23's ETA drift: what a crew has done so far on its route (job statuses, time entries) moves
 * the ETAs of the stops that follow, and `dispatch.updated` (`eta_drift`) fires when one of them
 * moves by more than the tenant's threshold. Pure: the caller reads the progress and the route,
 * and reschedules the following stops with the one route evaluation (domain/routing/plan.ts,
 * `progressedRoute`, through scheduleRoute).
 */

/** What is known of a stop's job, times as local minutes of the route's date (null: none on that date). */
export interface StopProgress {
  status: string;
  /** The first time entry's start, or the job's actual start, on the route's date. */
  startedAt: number | null;
  /** The last time entry's end on the route's date. */
  lastEndedAt: number | null;
}

/** The stop the rest of the day is rescheduled from: its position on the route and when the crew leaves it. */
export interface ProgressAnchor {
  index: number;
  departure: number;
}

const STARTED_STATUSES: readonly string[] = ['in_progress', 'on_hold', 'complete'];

/** Minutes since the local midnight of `date` of a local `YYYY-MM-DDTHH:mm` (a later date counts on: 24:30 is 1470). */
export function minutesOnDate(date: string, local: string): number {
  const days = (Date.UTC(Number(local.slice(0, 4)), Number(local.slice(5, 7)) - 1, Number(local.slice(8, 10))) - Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)))) / 86_400_000;
  return days * 1440 + minutesOf(local.slice(11, 16));
}

/**
 * The crew's last started stop and when it leaves it, or null when no stop has started (the plan's
 * ETAs stand). A stop has started when its job is in progress, on hold or complete, or has time
 * logged on the route's date. A complete job was left when its last time entry ended (else now, on
 * the route's own day, else as planned). A job still open is left no earlier than its start plus
 * its whole duration (`durationOf`), its last time entry's end, and now (on the route's own day).
 * `now` is null when the route is not today's.
 */
export function progressAnchor(
  date: string,
  stops: readonly { jobId: string; etaLocal: string; departLocal: string }[],
  progress: ReadonlyMap<string, StopProgress>,
  durationOf: (jobId: string) => number,
  now: number | null,
): ProgressAnchor | null {
  for (let index = stops.length - 1; index >= 0; index--) {
    const stop = stops[index]!;
    const known = progress.get(stop.jobId);
    if (!known || (!STARTED_STATUSES.includes(known.status) && known.lastEndedAt === null)) continue;
    if (known.status === 'complete') return { index, departure: known.lastEndedAt ?? now ?? minutesOnDate(date, stop.departLocal) };
    const start = known.startedAt ?? minutesOnDate(date, stop.etaLocal);
    return { index, departure: Math.max(start + durationOf(stop.jobId), known.lastEndedAt ?? -Infinity, now ?? -Infinity) };
  }
  return null;
}

/** The largest move, in minutes, of the ETA of a stop on both lists (matched by job). */
export function etaDriftMinutes(before: readonly { jobId: string; etaLocal: string }[], after: readonly { jobId: string; etaLocal: string }[]): number {
  const was = new Map(before.map((s) => [s.jobId, s.etaLocal]));
  let largest = 0;
  for (const stop of after) {
    const prior = was.get(stop.jobId);
    if (prior === undefined) continue;
    largest = Math.max(largest, Math.abs(minutesOnDate('2000-01-01', stop.etaLocal) - minutesOnDate('2000-01-01', prior)));
  }
  return largest;
}

/** D23: a recomputed route is told (and stored) only when some stop's ETA moved by more than the threshold. */
export const driftsBeyond = (before: readonly { jobId: string; etaLocal: string }[], after: readonly { jobId: string; etaLocal: string }[], thresholdMinutes: number): boolean =>
  etaDriftMinutes(before, after) > thresholdMinutes;
